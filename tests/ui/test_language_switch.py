"""Switching the language takes effect at once, without a restart (#14 plain words)."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from tests.ui.conftest import TIMEOUT

from ui.i18n import LANGUAGE_KEY
from ui.main_window import SETTINGS, TIMELINE, MainWindow


def _choose(qtbot: QtBot, window: MainWindow, code: str) -> None:
    box = window.settings.preferences.language
    box.setFocus()
    target = box.findData(code)
    while box.currentIndex() != target:
        key = Qt.Key.Key_Down if box.currentIndex() < target else Qt.Key.Key_Up
        qtbot.keyClick(box, key)


def test_switching_to_chinese_and_back_needs_no_restart(qtbot: QtBot, window: MainWindow) -> None:
    window.nav.setCurrentRow(SETTINGS)
    qtbot.waitUntil(lambda: bool(window.settings.values["active"].text()), timeout=TIMEOUT)
    _choose(qtbot, window, "zh_CN")
    qtbot.waitUntil(lambda: window.nav.item(TIMELINE).text() == "时间线", timeout=TIMEOUT)
    assert QSettings().value(LANGUAGE_KEY) == "zh_CN"
    assert window.nav.currentRow() == SETTINGS  # still on the Settings page
    assert window.menuBar().actions()[0].text() != "&File"
    qtbot.waitUntil(lambda: "事件" in window.status_label.text(), timeout=TIMEOUT)
    # The status bar's own texts (built outside MainWindow) follow the language too.
    assert window.undo_button.text() == "撤销"
    assert window.demo_label.text() == "演示库"
    _choose(qtbot, window, "en")
    qtbot.waitUntil(lambda: window.nav.item(TIMELINE).text() == "Timeline", timeout=TIMEOUT)
    qtbot.waitUntil(lambda: "events recorded" in window.status_label.text(), timeout=TIMEOUT)
    assert "language was changed" in window.message.text()
    assert window.undo_button.text() == "Undo" and window.demo_label.text() == "DEMO store"
