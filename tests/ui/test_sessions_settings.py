"""Sessions (opt-out, snapshots) and Settings (key rotation) (R24, R26, R27)."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from core import MemoryService
from tests.ui.conftest import TIMEOUT

from ui.main_window import MainWindow


def _open_session(qtbot: QtBot, window: MainWindow, name: str) -> None:
    window.open_session(name)
    view = window.sessions
    qtbot.waitUntil(lambda: view.current is not None and view.current.id == name, timeout=TIMEOUT)


def test_session_events_and_snapshot(qtbot: QtBot, window: MainWindow) -> None:
    """A session shows its events and its model call: injected and dropped with reasons."""
    _open_session(qtbot, window, "checkout-carol")
    view = window.sessions
    qtbot.waitUntil(lambda: view.events.rowCount() == 1, timeout=TIMEOUT)
    qtbot.waitUntil(lambda: "Injected" in view.snapshot_text.text(), timeout=TIMEOUT)
    assert "eu-west-1" in view.snapshot_text.text()
    assert "Dropped, and why" in view.snapshot_text.text()


def test_opt_out_switch(qtbot: QtBot, window: MainWindow, demo: MemoryService) -> None:
    """The switch writes the session's opt-out; nothing is injected into it afterwards."""
    _open_session(qtbot, window, "web-shop-ci")
    view = window.sessions
    assert not view.opt_out.isChecked()
    view.opt_out.click()
    qtbot.waitUntil(lambda: demo.events.get_session("web-shop-ci").opted_out, timeout=TIMEOUT)
    qtbot.waitUntil(lambda: "Memory is off" in window.message.text(), timeout=TIMEOUT)
    view.opt_out.click()
    qtbot.waitUntil(lambda: not demo.events.get_session("web-shop-ci").opted_out, timeout=TIMEOUT)


def test_rotate_key_with_progress(qtbot: QtBot, window: MainWindow, demo: MemoryService) -> None:
    """Rotation re-encrypts under a new key behind a progress dialog; data stays readable."""
    window.nav.setCurrentRow(3)
    view = window.settings
    qtbot.waitUntil(lambda: bool(view.values["active"].text()), timeout=TIMEOUT)
    old = demo.keys.info().active_key_id
    view.key.rotate_button.click()
    assert view.key.rotate_confirmation is not None
    view.key.rotate_confirmation.button(QMessageBox.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: demo.keys.info().active_key_id != old, timeout=10_000)
    qtbot.waitUntil(lambda: "Key rotated" in window.message.text(), timeout=10_000)
    qtbot.waitUntil(lambda: view.values["active"].text() != old, timeout=TIMEOUT)
    assert len(demo.memories.list_memories()) == 16


def test_language_choice_is_remembered(qtbot: QtBot, window: MainWindow) -> None:
    """The language switch stores the choice for the next start."""
    from PySide6.QtCore import QSettings

    from ui.i18n import LANGUAGE_KEY

    view = window.settings
    view.preferences.language.setCurrentIndex(view.preferences.language.findData("zh_CN"))
    assert QSettings().value(LANGUAGE_KEY) == "zh_CN"


def test_chinese_translation_loads(qtbot: QtBot, demo: MemoryService) -> None:
    """The compiled Simplified Chinese catalogue translates the interface."""
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication

    from ui.i18n import install_translator
    from ui.presentation import status_text

    app = QApplication.instance()
    assert app is not None
    translator = install_translator(app, "zh_CN")
    assert translator is not None
    try:
        assert status_text("candidate") == "待审"
        win = MainWindow(demo)
        qtbot.addWidget(win)
        assert win.nav.item(0).text() == "时间线"
    finally:
        QCoreApplication.removeTranslator(translator)
