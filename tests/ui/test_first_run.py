"""First run: the window shows at once; the demo is a separate store, clearly labelled; an
empty store stays empty (#14: the demo is not the user's store; start-up)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.demo import demo_data_dir
from app.gui_start import Starter
from app.launch import gui_request
from core import MemoryService
from tests.conftest import PASSPHRASE
from tests.ui.conftest import TIMEOUT

SLOW = 30_000  # the worker imports the engine and opens (and fills) a store


@pytest.fixture
def starters(qapp: QApplication, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Starter]]:
    monkeypatch.setenv("MEMORY_CENTER_PASSPHRASE", PASSPHRASE)
    made: list[Starter] = []
    yield made
    for starter in made:
        window = starter.main_window
        if window is not None:
            window.close()
            window.service.close()
        starter.window.close()


def _start(
    qapp: QApplication, starters: list[Starter], data_dir: Path, *, demo: bool = False
) -> Starter:
    starter = Starter(qapp, data_dir, demo=demo)
    starters.append(starter)
    starter.begin()
    assert starter.window.isVisible()  # shown before anything is opened
    return starter


def _memories(starter: Starter) -> list[object]:
    service: MemoryService = starter.main_window.service
    return list(service.memories.list_memories())


def test_first_run_offers_the_demo_as_a_separate_store(
    qtbot: QtBot, qapp: QApplication, starters: list[Starter], tmp_path: Path
) -> None:
    """No store yet: the choice is shown; the demo opens in its own store, labelled as such,
    and the user's store directory gets nothing."""
    data_dir = tmp_path / "store"
    starter = _start(qapp, starters, data_dir)
    qtbot.waitUntil(lambda: starter.window.demo_button.isVisible(), timeout=TIMEOUT)
    assert starter.window.empty_button.isVisible()
    qtbot.mouseClick(starter.window.demo_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: starter.main_window is not None, timeout=SLOW)
    window = starter.main_window
    assert "DEMO" in window.windowTitle()
    assert window.demo_label.isVisible()
    assert len(_memories(starter)) > 5
    assert not data_dir.exists() or not any(data_dir.iterdir())
    assert (demo_data_dir(data_dir) / "keyfile.json").exists() or any(
        demo_data_dir(data_dir).iterdir()
    )


def test_start_empty_keeps_the_store_empty(
    qtbot: QtBot, qapp: QApplication, starters: list[Starter], tmp_path: Path
) -> None:
    """ "Start with an empty store": no demo memory in the user's store, no DEMO label."""
    data_dir = tmp_path / "store"
    starter = _start(qapp, starters, data_dir)
    qtbot.waitUntil(lambda: starter.window.empty_button.isVisible(), timeout=TIMEOUT)
    qtbot.mouseClick(starter.window.empty_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: starter.main_window is not None, timeout=SLOW)
    assert _memories(starter) == []
    assert "DEMO" not in starter.main_window.windowTitle()
    assert not starter.main_window.demo_label.isVisible()
    assert not demo_data_dir(data_dir).exists()


def test_leaving_the_demo_opens_the_users_store(
    qtbot: QtBot, qapp: QApplication, starters: list[Starter], tmp_path: Path
) -> None:
    """`gui --demo` opens the demo directly; File > Leave the demo opens the user's store."""
    assert gui_request(["gui", "--demo"]) == (None, True)
    assert gui_request(["--data-dir", "/x", "gui"]) == (Path("/x"), False)
    assert gui_request(["memory", "list"]) is None
    data_dir = tmp_path / "store"
    starter = _start(qapp, starters, data_dir, demo=True)
    qtbot.waitUntil(lambda: starter.main_window is not None, timeout=SLOW)
    demo_window = starter.main_window
    assert demo_window.leave_demo_action.isVisible()
    demo_window.leave_demo_action.trigger()
    qtbot.waitUntil(
        lambda: starter.main_window is not None and starter.main_window is not demo_window,
        timeout=SLOW,
    )
    assert _memories(starter) == []
    assert not starter.main_window.leave_demo_action.isVisible()


def test_nothing_heavy_before_the_first_window() -> None:
    """The launcher and the start window import neither the engine nor the main window."""
    code = (
        "import sys; import app.launch, app.gui_start; "
        "print(sorted(m for m in ('core', 'sqlalchemy', 'numpy', 'ui.main_window') "
        "if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"
