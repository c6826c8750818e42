"""The main window: navigation, status line, following other processes, lazy models."""

from __future__ import annotations

from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from core import ManualClock, MemoryService, NewEvent
from tests.ui.conftest import TIMEOUT

from ui.main_window import MainWindow
from ui.models.event_table import EventTableModel


def test_window_shows_views_and_status(qtbot: QtBot, window: MainWindow) -> None:
    """R25: five views in the navigation; the review badge counts waiting items."""
    assert [window.nav.item(i).text().split()[0] for i in range(5)] == [
        "Timeline",
        "Review",
        "Sessions",
        "Settings",
        "Agents",
    ]
    qtbot.waitUntil(
        lambda: "key protected by a passphrase" in window.status_label.text(), timeout=TIMEOUT
    )
    assert "revision" not in window.status_label.text()
    qtbot.waitUntil(lambda: window.nav.item(1).text().endswith("7"), timeout=TIMEOUT)
    for row in range(5):
        window.nav.setCurrentRow(row)
        assert window.stack.currentIndex() == row


def test_window_follows_changes_made_elsewhere(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """R30: a memory committed by another writer appears without a restart."""
    qtbot.waitUntil(lambda: window.bus.revision > 0, timeout=TIMEOUT)
    before = window.timeline.model.item_count
    demo.memories.remember({"user": "zoe"}, "Remember that Zoe likes tabs over spaces.")
    qtbot.waitUntil(lambda: window.timeline.model.item_count == before + 1, timeout=4000)
    model = window.timeline.model
    contents = [getattr(model.item_at(r), "content", "") for r in range(model.rowCount())]
    assert "Zoe likes tabs over spaces." in contents


def test_hidden_views_only_mark_themselves_dirty(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """Views not visible refresh when shown, not on every change."""
    window.nav.setCurrentRow(2)
    qtbot.waitUntil(lambda: window.sessions.sessions.rowCount() > 0, timeout=TIMEOUT)
    window.nav.setCurrentRow(0)
    qtbot.waitUntil(lambda: window.bus.revision > 0, timeout=TIMEOUT)
    demo.events.append_event(
        NewEvent(session="new-one", actor="user", trust="user", scope={"user": "a"}, text="hello")
    )
    qtbot.waitUntil(lambda: window.sessions.dirty, timeout=4000)
    window.nav.setCurrentRow(2)
    qtbot.waitUntil(lambda: window.sessions.sessions.row_of("new-one") >= 0, timeout=TIMEOUT)


def test_event_model_passes_the_model_tester(
    qtbot: QtBot, service: MemoryService, clock: ManualClock
) -> None:
    """The lazily paged event model obeys Qt's item-model contract, including fetchMore."""
    service.events.append_events(
        [
            NewEvent(session="s", actor="user", trust="user", scope={"user": "a"}, text=f"e{i}")
            for i in range(450)
        ]
    )
    window = MainWindow(service, now=clock.now)
    qtbot.addWidget(window)
    model = EventTableModel(window.tasks)
    model.load(
        lambda before, limit: service.events.list_events(
            before_position=before, limit=limit, newest_first=True
        )
    )
    qtbot.waitUntil(lambda: model.rowCount() == 200, timeout=TIMEOUT)
    ModelTester(qtbot).check(model, force_py=True)
    while model.rowCount() < 450:
        model.fetchMore()
        qtbot.wait(20)
    assert model.event_at(0).text == "e449"  # type: ignore[union-attr]
