"""Keyboard review is safe: dialogs open with the focus in their input, Ctrl+Enter submits,
and the single-letter A/E/S/R shortcuts never act while a dialog or a text field has focus."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit, QPlainTextEdit
from pytestqt.qtbot import QtBot

from core import MemoryService
from tests.ui.conftest import TIMEOUT, find, status_of, wait_status
from tests.ui.test_review import _open_review, _select

from ui.main_window import MainWindow


def _candidates(service: MemoryService) -> set[str]:
    return {r.id for r in service.memories.list_memories() if r.status.value == "candidate"}


def test_typing_a_sentence_in_the_edit_dialog_approves_nothing_else(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """E, then a sentence with spaces and the letters a/e/s/r: all of it lands in the text."""
    view = _open_review(qtbot, window)
    _select(qtbot, view, "terse replies")
    target = find(demo, "terse replies").id
    before = _candidates(demo)
    qtbot.keyClick(view.list, Qt.Key.Key_E)
    dialog = view.active_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: isinstance(QApplication.focusWidget(), QPlainTextEdit), timeout=TIMEOUT)
    editor = QApplication.focusWidget()
    qtbot.keyClicks(editor, " are short answers ever ok? yes: rarely")
    assert dialog.isVisible()
    qtbot.wait(200)
    assert _candidates(demo) == before  # nothing was approved, rejected or re-scoped
    assert dialog.value().endswith("are short answers ever ok? yes: rarely")  # type: ignore[attr-defined]
    qtbot.keyClick(editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: status_of(demo, "rarely") == "active", timeout=TIMEOUT)
    assert _candidates(demo) == before - {target}


def test_reject_dialog_types_its_reason_and_enter_submits(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """R opens the reason with the focus in it; letters are the reason, Enter rejects."""
    view = _open_review(qtbot, window)
    _select(qtbot, view, "squash-merges")
    before = _candidates(demo)
    qtbot.keyClick(view.list, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: isinstance(QApplication.focusWidget(), QLineEdit), timeout=TIMEOUT)
    field = QApplication.focusWidget()
    qtbot.keyClicks(field, "a ser")
    qtbot.wait(200)
    assert _candidates(demo) == before
    qtbot.keyClick(field, Qt.Key.Key_Return)
    wait_status(qtbot, demo, "squash-merges", "rejected")
    history = demo.memories.history(find(demo, "squash-merges").id)
    assert history[-1].reason == "a ser"


def test_letters_in_a_text_field_of_the_window_are_not_shortcuts(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """With the focus in a text field, A does not approve the item under review."""
    view = _open_review(qtbot, window)
    _select(qtbot, view, "squash-merges")
    field = QLineEdit(view)
    field.show()
    field.setFocus()
    qtbot.waitUntil(field.hasFocus, timeout=TIMEOUT)
    qtbot.keyClicks(field, "aesr")
    qtbot.wait(200)
    assert status_of(demo, "squash-merges") == "candidate"
    assert field.text() == "aesr"


def test_a_queue_opened_with_the_mouse_takes_the_letter_keys(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """Clicking "Review queue" in the side list, then pressing A (as its button says)
    approves the selected suggestion; the side list's type-ahead used to take the A and
    jump to the Agents page."""
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=TIMEOUT)
    nav = window.nav
    item_rect = nav.visualItemRect(nav.item(1))
    qtbot.mouseClick(nav.viewport(), Qt.MouseButton.LeftButton, pos=item_rect.center())
    view = window.review
    qtbot.waitUntil(lambda: view.current_record() is not None, timeout=TIMEOUT)
    assert QApplication.focusWidget() is view.list
    current = view.current_record()
    assert current is not None
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_A)
    wait_status(qtbot, demo, current.content, "active")
    assert nav.currentRow() == 1
