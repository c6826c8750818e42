"""Window preferences and the start (#43 item 9): the theme chooser, settings kept per store,
the hand-over from the start window without a jump, the empty timeline's hint."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, QSettings, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.gui_start import Starter, settings_dir, use_store_settings
from core import ManualClock, MemoryService
from tests.conftest import PASSPHRASE
from tests.ui.conftest import TIMEOUT

from ui.i18n import LANGUAGE_KEY
from ui.main_window import SETTINGS, MainWindow
from ui.style import DARK, LIGHT


@pytest.fixture
def restyled(qapp: QApplication) -> Iterator[None]:
    """Give the application its look back after the test."""
    palette, sheet = qapp.palette(), qapp.styleSheet()
    yield
    qapp.setPalette(palette)
    qapp.setStyleSheet(sheet)


def _choose(qtbot: QtBot, box: object, code: str) -> None:
    box.setFocus()  # type: ignore[attr-defined]
    target = box.findData(code)  # type: ignore[attr-defined]
    while box.currentIndex() != target:  # type: ignore[attr-defined]
        down = box.currentIndex() < target  # type: ignore[attr-defined]
        qtbot.keyClick(box, Qt.Key.Key_Down if down else Qt.Key.Key_Up)  # type: ignore[arg-type]


def test_theme_light_dark_system(
    qtbot: QtBot, qapp: QApplication, window: MainWindow, restyled: None
) -> None:
    qtbot.keyClick(window.nav, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    assert window.nav.currentRow() == SETTINGS
    theme = window.settings.preferences.theme
    assert [theme.itemData(i) for i in range(theme.count())] == ["system", "light", "dark"]
    _choose(qtbot, theme, "dark")
    assert qapp.palette().color(QPalette.ColorRole.Window).name() == DARK["bg"]
    assert QSettings().value("ui/theme") == "dark"
    _choose(qtbot, theme, "light")
    assert qapp.palette().color(QPalette.ColorRole.Window).name() == LIGHT["bg"]
    _choose(qtbot, theme, "system")
    assert QSettings().value("ui/theme") == "system"


def test_settings_are_kept_per_store(tmp_path: Path) -> None:
    """Language (and window size) of one store do not follow another store's window."""
    first, second = tmp_path / "home-store", tmp_path / "work-store"
    use_store_settings(first)
    QSettings().setValue(LANGUAGE_KEY, "zh_CN")
    QSettings().sync()
    use_store_settings(second)
    assert QSettings().value(LANGUAGE_KEY) is None
    use_store_settings(first)
    assert QSettings().value(LANGUAGE_KEY) == "zh_CN"
    assert settings_dir(first).is_dir() and not first.exists()  # beside the store, not in it


def test_main_window_takes_the_start_windows_place(
    qtbot: QtBot,
    qapp: QApplication,
    demo: MemoryService,
    data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMORY_CENTER_PASSPHRASE", PASSPHRASE)
    starter = Starter(qapp, data_dir, demo=False)
    start = starter.window
    start.show()
    qtbot.waitExposed(start)
    start.setGeometry(QRect(140, 90, 1040, 690))
    place = start.geometry()
    starter._show_main(demo, MainWindow)
    window = starter.main_window
    qtbot.addWidget(window)
    assert window.isVisible() and not start.isVisible()
    assert window.geometry() == place


def test_empty_timeline_says_how_memories_get_here(
    qtbot: QtBot, service: MemoryService, clock: ManualClock
) -> None:
    window = MainWindow(service, now=clock.now)
    qtbot.addWidget(window)
    window.show()
    hint = window.timeline.empty_hint
    qtbot.waitUntil(hint.isVisible, timeout=TIMEOUT)
    assert "Connect an agent" in hint.text() and "Import transcripts" in hint.text()
    assert window.timeline.loading_bar.isHidden()
    service.memories.remember({"user": "ana"}, "Remember: the shed key hangs by the door.")
    window.refresh_all()
    qtbot.waitUntil(lambda: window.timeline.model.item_count == 1, timeout=TIMEOUT)
    assert not hint.isVisible()
