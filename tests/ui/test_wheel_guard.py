"""Scrolling the Settings page over a combo or spin box changes nothing (#43 item 4)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from tests.ui.conftest import TIMEOUT

from ui.main_window import SETTINGS, MainWindow


def _wheel(widget: QWidget, steps: int) -> None:
    """A mouse wheel turned `steps` notches over the middle of `widget`."""
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(
        centre,
        QPointF(widget.mapToGlobal(centre.toPoint())),
        QPoint(0, 0),
        QPoint(0, 120 * steps),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


def test_wheel_over_settings_boxes_scrolls_and_changes_nothing(
    qtbot: QtBot, window: MainWindow
) -> None:
    window.nav.setCurrentRow(SETTINGS)
    policy = window.settings.policy
    qtbot.waitUntil(lambda: policy.inferred_ttl.value() > 1, timeout=TIMEOUT)
    language = window.settings.preferences.language
    expiry = policy.inferred_ttl
    window.nav.setFocus()
    before = (language.currentIndex(), expiry.value(), policy.candidate_ttl.value())
    for widget in (language, expiry, policy.candidate_ttl):
        _wheel(widget, -1)
        _wheel(widget, 2)
    assert (language.currentIndex(), expiry.value(), policy.candidate_ttl.value()) == before
    # Focused (clicked or tabbed into), the box still takes the wheel as before.
    qtbot.mouseClick(expiry, Qt.MouseButton.LeftButton)
    assert expiry.hasFocus()
    _wheel(expiry, 1)
    assert expiry.value() != before[1]
