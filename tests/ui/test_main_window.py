"""The first slice of the memory center: real widgets, offscreen, over a real store."""

from __future__ import annotations

from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from app.demo import seed_demo_if_empty
from core import MemoryService, NewEvent

from ui.main_window import MainWindow


def test_window_shows_the_event_log_and_status(qtbot: QtBot, service: MemoryService) -> None:
    """R25: the log is visible with its status line, newest first."""
    seed_demo_if_empty(service)
    window = MainWindow(service)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: window.events.rowCount() == 9, timeout=5000)
    assert "revision 1" in window.status_label.text()
    assert "key: passphrase" in window.status_label.text()
    newest = window.events.index(0, 5).data()
    assert "航班" in newest


def test_window_follows_changes_made_elsewhere(qtbot: QtBot, service: MemoryService) -> None:
    """R30: a change committed by another writer appears without a restart."""
    window = MainWindow(service)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: "revision 0" in window.status_label.text(), timeout=5000)
    service.append_event(
        NewEvent(
            session="cli", actor="user", trust="user", scope={"user": "a"}, text="from elsewhere"
        )
    )
    qtbot.waitUntil(lambda: window.events.rowCount() == 1, timeout=5000)
    assert window.events.index(0, 5).data() == "from elsewhere"


def test_event_model_passes_the_model_tester(qtbot: QtBot, service: MemoryService) -> None:
    """The lazily paged model obeys Qt's item-model contract, including fetchMore."""
    service.append_events(
        [
            NewEvent(session="s", actor="user", trust="user", scope={"user": "a"}, text=f"e{i}")
            for i in range(450)
        ]
    )
    window = MainWindow(service)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: window.events.rowCount() == 200, timeout=5000)
    ModelTester(qtbot).check(window.events, force_py=True)
    while window.events.canFetchMore():
        window.events.fetchMore()
    assert window.events.rowCount() == 450
