"""Defect: an edit that changes nothing created a new revision. Through the review queue, as a
person does it: E, then Ctrl+Enter on the unchanged text."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QPlainTextEdit
from pytestqt.qtbot import QtBot

from core import MemoryService
from tests.ui.conftest import TIMEOUT, find, status_of
from tests.ui.test_review import _open_review, _select

from ui.main_window import MainWindow


def test_edit_without_a_change_approves_and_writes_no_revision(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    view = _open_review(qtbot, window)
    _select(qtbot, view, "terse replies")
    target = find(demo, "terse replies")
    revisions_before = len(demo.memories.revisions(target.id))
    qtbot.keyClick(view.list, Qt.Key.Key_E)
    qtbot.waitUntil(lambda: isinstance(QApplication.focusWidget(), QPlainTextEdit), timeout=TIMEOUT)
    editor = QApplication.focusWidget()
    qtbot.keyClick(editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: status_of(demo, "terse replies") == "active", timeout=TIMEOUT)
    assert len(demo.memories.revisions(target.id)) == revisions_before
    assert demo.memories.get_memory(target.id).content == target.content
