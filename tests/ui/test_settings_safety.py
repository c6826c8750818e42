"""Rotate key asks first; embedders that are not installed cannot be chosen (#14 defect 10)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from core import MemoryService
from tests.ui.conftest import TIMEOUT

from ui.main_window import SETTINGS, MainWindow
from ui.views.settings import SettingsView


def _settings(qtbot: QtBot, window: MainWindow) -> SettingsView:
    window.nav.setCurrentRow(SETTINGS)
    view = window.settings
    qtbot.waitUntil(lambda: bool(view.values["active"].text()), timeout=TIMEOUT)
    return view


def test_rotate_key_asks_and_cancel_changes_nothing(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """Clicking Rotate key… opens a question with Cancel as default; Escape keeps the key."""
    view = _settings(qtbot, window)
    old = demo.keys.info().active_key_id
    qtbot.mouseClick(view.key.rotate_button, Qt.MouseButton.LeftButton)
    box = view.key.rotate_confirmation
    assert isinstance(box, QMessageBox)
    qtbot.waitExposed(box)
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
    qtbot.keyClick(box, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: view.key.rotate_confirmation is None, timeout=TIMEOUT)
    qtbot.wait(300)
    assert demo.keys.info().active_key_id == old
    assert view.key.rotate_button.isEnabled()


def test_missing_embedders_are_greyed_out_with_what_they_need(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """An embedder whose package is missing is listed but disabled, and says what to install;
    installed ones stay selectable; the list shows plain names."""
    view = _settings(qtbot, window)
    choices = demo.index.embedder_choices()
    missing = [n for n, why in choices.items() if why]
    usable = [n for n, why in choices.items() if not why]
    assert "hashing" in usable
    model = view.index.embedder.model()
    qtbot.waitUntil(
        lambda: all(
            not model.item(view.index.embedder.findData(n)).isEnabled()
            for n in missing  # type: ignore[attr-defined]
        ),
        timeout=TIMEOUT,
    )
    for name in missing:
        item = model.item(view.index.embedder.findData(name))  # type: ignore[attr-defined]
        assert "Not installed" in item.toolTip() and "Python packages" in item.toolTip()
    for name in usable:
        assert model.item(view.index.embedder.findData(name)).isEnabled()  # type: ignore[attr-defined]
    assert view.index.embedder.itemText(view.index.embedder.findData("hashing")).startswith(
        "Word hashing"
    )
    # Keyboard: going through the list never lands on a missing embedder.
    view.index.embedder.setFocus()
    for _ in range(view.index.embedder.count()):
        qtbot.keyClick(view.index.embedder, Qt.Key.Key_Down)
        assert view.index.embedder.currentData() not in missing
