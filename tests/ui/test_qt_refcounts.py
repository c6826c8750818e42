"""Guard against Qt bindings that drop references to None (Python 3.11 aborts on that).

PySide6 6.12.0 decremented None's reference count on every item-model read that returned a
new object; after a few thousand repaints Python stopped with "deallocating None". The
project pins an unaffected version; this test fails if a binding update brings it back.
"""

from __future__ import annotations

import sys

from pytestqt.qtbot import QtBot

from ui.main_window import MainWindow


def test_painting_the_timeline_does_not_consume_references_to_none(
    qtbot: QtBot, window: MainWindow
) -> None:
    """Repaint the real timeline many times: None's refcount must not fall."""
    view = window.timeline
    before = sys.getrefcount(None)
    for _ in range(150):
        view.repaint()
        window.repaint()
    qtbot.wait(10)
    assert sys.getrefcount(None) >= before - 5
