"""Undo for approve, reject and quarantine goes through the core's compensating decisions;
a quarantined item is approved only after a confirmation (#14)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from core import MemoryService
from tests.ui.conftest import TIMEOUT, find, status_of, wait_status
from tests.ui.test_detail import _show
from tests.ui.test_review import _open_review, _select

from ui.main_window import MainWindow


def test_approve_then_undo_from_the_status_bar(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """A approves; Undo puts the suggestion back, recorded as undo_approve in the history."""
    view = _open_review(qtbot, window)
    _select(qtbot, view, "squash-merges")
    qtbot.keyClick(view.list, Qt.Key.Key_A)
    wait_status(qtbot, demo, "squash-merges", "active")
    qtbot.waitUntil(window.undo_button.isVisible, timeout=TIMEOUT)
    qtbot.mouseClick(window.undo_button, Qt.MouseButton.LeftButton)
    wait_status(qtbot, demo, "squash-merges", "candidate")
    actions = [d.action for d in demo.memories.history(find(demo, "squash-merges").id)]
    assert actions[-2:] == ["approve", "undo_approve"]
    qtbot.waitUntil(lambda: "Undone" in window.message.text(), timeout=TIMEOUT)


def test_reject_then_undo_with_ctrl_z(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """R, a reason, Enter; Ctrl+Z brings the suggestion back."""
    view = _open_review(qtbot, window)
    _select(qtbot, view, "squash-merges")
    qtbot.keyClick(view.list, Qt.Key.Key_R)
    dialog = view.active_dialog
    assert dialog is not None
    qtbot.keyClicks(dialog.reason, "wrong")  # type: ignore[attr-defined]
    qtbot.keyClick(dialog.reason, Qt.Key.Key_Return)  # type: ignore[attr-defined]
    wait_status(qtbot, demo, "squash-merges", "rejected")
    qtbot.waitUntil(window.undo_action.isEnabled, timeout=TIMEOUT)
    window.activateWindow()  # the offscreen platform leaves the closed dialog active
    qtbot.waitUntil(window.isActiveWindow, timeout=TIMEOUT)
    qtbot.keyClick(view.list, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    wait_status(qtbot, demo, "squash-merges", "candidate")


def test_quarantined_approve_is_secondary_and_asks(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """On a quarantined item Approve is not the primary button; A asks first, and Escape
    keeps it quarantined; "Approve anyway" approves."""
    view = _open_review(qtbot, window)
    _select(qtbot, view, "Payly")
    assert view.approve_button.objectName() != "Primary"
    view.list.setFocus()
    qtbot.keyClick(view.list, Qt.Key.Key_A)
    box = view.active_dialog
    assert isinstance(box, QMessageBox)
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
    qtbot.keyClick(box, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: view.active_dialog is None, timeout=TIMEOUT)
    qtbot.wait(200)
    assert status_of(demo, "Payly") == "quarantined"
    qtbot.mouseClick(view.approve_button, Qt.MouseButton.LeftButton)
    box = view.active_dialog
    assert isinstance(box, QMessageBox)
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    wait_status(qtbot, demo, "Payly", "active")
    _select(qtbot, view, "terse replies")
    assert view.approve_button.objectName() == "Primary"


def test_quarantine_then_undo(qtbot: QtBot, window: MainWindow, demo: MemoryService) -> None:
    """Quarantine from the detail panel; Undo makes the memory active again."""
    panel = _show(qtbot, window, demo, "pnpm for every")
    qtbot.mouseClick(panel.quarantine_button, Qt.MouseButton.LeftButton)
    dialog = panel.active_dialog
    assert dialog is not None
    qtbot.keyClicks(dialog.reason, "checking the source")  # type: ignore[attr-defined]
    qtbot.keyClick(dialog.reason, Qt.Key.Key_Return)  # type: ignore[attr-defined]
    wait_status(qtbot, demo, "pnpm for every", "quarantined")
    qtbot.waitUntil(window.undo_button.isVisible, timeout=TIMEOUT)
    qtbot.mouseClick(window.undo_button, Qt.MouseButton.LeftButton)
    wait_status(qtbot, demo, "pnpm for every", "active")
    assert demo.memories.history(find(demo, "pnpm for every").id)[-1].action == "undo_quarantine"
