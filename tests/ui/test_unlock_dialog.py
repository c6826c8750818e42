"""Unlocking with a wrong passphrase says so and keeps the dialog open (#14 defect 4)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.gui import ask_and_open
from core import ManualClock, MemoryService
from tests.conftest import PASSPHRASE
from tests.ui.conftest import TIMEOUT
from tests.ui.test_import_lock import _window

from ui.passphrase_dialog import PassphraseDialog


def test_wrong_passphrase_keeps_the_dialog_open(
    qtbot: QtBot, demo: MemoryService, clock: ManualClock, data_dir: Path
) -> None:
    """Lock, Unlock, a wrong passphrase: the dialog stays and says it is wrong; the right one
    unlocks."""
    win = _window(
        qtbot, demo, clock, unlock=lambda: ask_and_open(data_dir, create=False, parent=win)
    )
    qtbot.waitUntil(win.lock_action.isEnabled, timeout=TIMEOUT)
    win.lock_action.trigger()
    assert win.locked
    seen: list[tuple[bool, str]] = []

    def type_into_dialog() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, PassphraseDialog)
        field = QApplication.focusWidget()
        assert field is dialog.first
        qtbot.keyClicks(field, "not the passphrase")
        qtbot.keyClick(field, Qt.Key.Key_Return)
        # The key is derived on a worker thread: the dialog says so and keeps answering.
        assert dialog.unlocking and dialog.state.isVisible() and not dialog.first.isEnabled()
        qtbot.waitUntil(lambda: not dialog.unlocking, timeout=TIMEOUT)
        seen.append((dialog.isVisible(), dialog.problem.text()))
        assert field.hasFocus()
        qtbot.keyClicks(field, PASSPHRASE)  # the wrong text is selected: typing replaces it
        qtbot.keyClick(field, Qt.Key.Key_Return)
        assert dialog.unlocking

    QTimer.singleShot(200, type_into_dialog)
    qtbot.mouseClick(win.unlock_button, Qt.MouseButton.LeftButton)
    assert seen == [(True, "That passphrase is wrong. Try again.")]
    assert not win.locked
    qtbot.waitUntil(lambda: win.timeline.model.item_count > 0, timeout=TIMEOUT)
    win.close()
    win.service.close()
