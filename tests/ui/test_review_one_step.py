"""#15.2 through the review queue: "edit and approve" is one user action, so the store moves
by one revision and the bus carries one change set naming the memory."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QPlainTextEdit
from pytestqt.qtbot import QtBot

from core import Changes, MemoryService
from tests.ui.conftest import TIMEOUT, find, status_of
from tests.ui.test_review import _open_review, _select

from ui.main_window import MainWindow


def test_edit_and_approve_publishes_one_change_set(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    view = _open_review(qtbot, window)
    _select(qtbot, view, "terse replies")
    target = find(demo, "terse replies")
    published: list[Changes] = []
    window.bus.changes_applied.connect(lambda changes, _who: published.append(changes))
    before = demo.events.revision()
    qtbot.keyClick(view.list, Qt.Key.Key_E)
    qtbot.waitUntil(lambda: isinstance(QApplication.focusWidget(), QPlainTextEdit), timeout=TIMEOUT)
    editor = QApplication.focusWidget()
    assert isinstance(editor, QPlainTextEdit)
    qtbot.keyClick(editor, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(editor, " Short answers first.")
    qtbot.keyClick(editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: status_of(demo, "terse replies") == "active", timeout=TIMEOUT)
    qtbot.waitUntil(lambda: any(target.id in c.memory_ids for c in published), timeout=TIMEOUT)
    assert demo.events.revision() == before + 1
    assert len(demo.events.changes_since(before)) == 1
    assert demo.memories.get_memory(target.id).content.endswith("Short answers first.")
    mine = [c for c in published if target.id in c.memory_ids]
    assert len(mine) == 1 and mine[0].revision == before + 1
