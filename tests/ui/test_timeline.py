"""Timeline: grouping, filters, search, events toggle, and the lazy model contract (R25, R28)."""

from __future__ import annotations

import datetime as dt
import random
import string

from PySide6.QtCore import QDate
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from core import ManualClock, MemoryFilter, MemoryRecord, MemoryService
from tests.ui.conftest import TIMEOUT

from ui.main_window import MainWindow
from ui.models.timeline_model import IsDayRole
from ui.views.timeline_view import TimelineView

LETTERS = string.ascii_lowercase


def _memories(view: TimelineView) -> list[MemoryRecord]:
    m = view.model
    return [i for i in (m.item_at(r) for r in range(m.rowCount())) if isinstance(i, MemoryRecord)]


def _apply(qtbot: QtBot, view: TimelineView, change: object = None) -> None:
    with qtbot.waitSignal(view.filtered, timeout=TIMEOUT):
        view.apply_filter()
    qtbot.waitUntil(lambda: not view.model.loading, timeout=TIMEOUT)


def test_grouped_by_day_with_status_words(qtbot: QtBot, window: MainWindow) -> None:
    """Rows start with a day header; each status shows a word and an icon."""
    model = window.timeline.model
    assert model.index(0, 0).data(IsDayRole)
    assert model.item_count == 16
    words = {model.index(r, 0).data() for r in range(1, model.rowCount())}
    assert {"active", "suggested", "quarantined", "rejected", "disabled"} <= words
    assert all(model.index(r, 0).data(1) is not None for r in range(1, model.rowCount()))


def test_timeline_model_passes_the_model_tester(
    qtbot: QtBot, service: MemoryService, clock: ManualClock
) -> None:
    """Lazy paging over 240 memories across days obeys the item-model contract."""
    rnd = random.Random(7)
    for i in range(240):
        if i % 80 == 0:
            clock.advance(dt.timedelta(days=1))
        words = " ".join("".join(rnd.choice(LETTERS) for _ in range(7)) for _ in range(4))
        service.memories.remember({"user": "m", "project": f"p{i}"}, f"Remember {words}")
    window = MainWindow(service, now=clock.now)
    qtbot.addWidget(window)
    window.show()
    model = window.timeline.model
    qtbot.waitUntil(lambda: model.item_count == 200, timeout=TIMEOUT)
    ModelTester(qtbot).check(model, force_py=True)
    while model.item_count < 240:
        model.fetchMore()
        qtbot.wait(10)
    days = [r for r in range(model.rowCount()) if model.index(r, 0).data(IsDayRole)]
    assert len(days) == 3


def test_search_box(qtbot: QtBot, window: MainWindow) -> None:
    """Full-text search (case-insensitive, Chinese too)."""
    view = window.timeline
    view.search.setText("PNPM")
    _apply(qtbot, view)
    assert [r.content for r in _memories(view)] == ["I prefer pnpm for every JavaScript project."]
    view.search.setText("香菜")
    _apply(qtbot, view)
    assert len(_memories(view)) == 1


def test_status_kind_trust_and_scope_filters(qtbot: QtBot, window: MainWindow) -> None:
    """Each filter narrows the list; the store agrees on what each record is."""
    view = window.timeline
    view.status_filter.setCurrentIndex(view.status_filter.findData("candidate"))
    _apply(qtbot, view)
    # Four: one of them possibly contradicts another memory (#40).
    assert {r.status.value for r in _memories(view)} == {"candidate"} and len(_memories(view)) == 4
    view.status_filter.setCurrentIndex(0)
    view.kind_filter.setCurrentIndex(view.kind_filter.findData("decision"))
    _apply(qtbot, view)
    assert {r.kind.value for r in _memories(view)} == {"decision"}
    view.kind_filter.setCurrentIndex(0)
    view.trust_filter.setCurrentIndex(view.trust_filter.findData("untrusted"))
    _apply(qtbot, view)
    assert [r.source_trust.value for r in _memories(view)] == ["untrusted"]
    view.trust_filter.setCurrentIndex(0)
    view.scope_filter.setText("org=acme")
    _apply(qtbot, view)
    assert {r.scope.get("org") for r in _memories(view)} == {"acme"}


def test_expired_filter_and_date_range(
    qtbot: QtBot, window: MainWindow, clock: ManualClock
) -> None:
    """`expired` is its own state once the time is up; a date range hides other days."""
    view = window.timeline
    clock.advance(dt.timedelta(days=2))
    view.status_filter.setCurrentIndex(view.status_filter.findData("expired"))
    _apply(qtbot, view)
    assert [r.content for r in _memories(view)] == [
        "the staging deploy freeze ends tomorrow evening."
    ]
    view.status_filter.setCurrentIndex(0)
    view.use_dates.setChecked(True)
    day = clock.now().astimezone().date() + dt.timedelta(days=5)
    view.date_from.setDate(QDate(day.year, day.month, day.day))
    view.date_to.setDate(QDate(day.year, day.month, day.day))
    _apply(qtbot, view)
    assert _memories(view) == []


def test_events_toggle(qtbot: QtBot, window: MainWindow) -> None:
    """With the toggle, raw events are merged in time order (decision events left out)."""
    view = window.timeline
    view.show_events.setChecked(True)
    _apply(qtbot, view)
    model = view.model
    items = [model.item_at(r) for r in range(model.rowCount())]
    events = [i for i in items if i is not None and not isinstance(i, MemoryRecord)]
    assert events and all(e.kind.value != "memory_decision" for e in events)  # type: ignore[union-attr]


def test_metadata_filters_page_in_sql_and_count_in_the_store(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """Kind/trust filters are answered by the store: its count, its pages."""
    view = window.timeline
    view.kind_filter.setCurrentIndex(view.kind_filter.findData("decision"))
    with qtbot.waitSignal(view.filtered, timeout=TIMEOUT) as blocker:
        view.apply_filter()
    qtbot.waitUntil(lambda: not view.model.loading, timeout=TIMEOUT)
    expected = demo.memories.count_memories(MemoryFilter(kinds=("decision",)))
    assert blocker.args == [expected]
    ids = [r.id for r in demo.memories.list_memories(MemoryFilter(kinds=("decision",), limit=1000))]
    assert [r.id for r in _memories(view)] == ids


def test_ranked_search_in_a_scope(qtbot: QtBot, window: MainWindow, demo: MemoryService) -> None:
    """With text and a key=value scope the user may ask for the store's ranked search."""
    view = window.timeline
    assert not view.ranked.isEnabled()
    view.search.setText("pnpm")
    view.scope_filter.setText("user=alice project=web-shop")
    _apply(qtbot, view)
    assert view.ranked.isEnabled() and not view.ranked.isChecked()
    view.ranked.setChecked(True)
    _apply(qtbot, view)
    hits = demo.retrieval.search_memory({"user": "alice", "project": "web-shop"}, "pnpm", limit=100)
    assert hits and [r.id for r in _memories(view)] == [h.memory_id for h in hits]
    assert not any(view.model.index(r, 0).data(IsDayRole) for r in range(view.model.rowCount()))


def test_history_shows_when_it_was_said(
    qtbot: QtBot, service: MemoryService, clock: ManualClock
) -> None:
    """#17: an imported turn said long ago shows its said date, and its tooltip both times;
    a memory of today shows the time it was stored. #43: the column starts with the stored
    time, the time its day group (Today) is about."""
    said = dt.datetime(2023, 5, 8, 13, 56, tzinfo=dt.UTC)
    old = service.memories.remember({"user": "ana"}, "Sage green, after three coats.", said_at=said)
    new = service.memories.remember({"user": "ana"}, "Remember: the shed key hangs by the door.")
    assert old.value.record is not None and new.value.record is not None
    window = MainWindow(service, now=clock.now)
    qtbot.addWidget(window)
    window.show()
    model = window.timeline.model
    qtbot.waitUntil(lambda: model.item_count == 2, timeout=TIMEOUT)
    rows = {
        model.item_at(r).id: r  # type: ignore[union-attr]
        for r in range(model.rowCount())
        if isinstance(model.item_at(r), MemoryRecord)
    }
    time_col = model.columnCount() - 1
    said_cell = model.index(rows[old.value.record.id], time_col)
    stored = old.value.record.updated_at.astimezone().strftime("%H:%M")
    assert said_cell.data() == f"{stored} · said " + said.astimezone().strftime("%Y-%m-%d")
    header = max(r for r in range(rows[old.value.record.id]) if model.index(r, 0).data(IsDayRole))
    assert model.index(header, 0).data().startswith("Today")
    assert said_cell.data(3).startswith("Said " + said.astimezone().strftime("%Y-%m-%d %H:%M"))
    assert ", stored " in said_cell.data(3)
    today_cell = model.index(rows[new.value.record.id], time_col)
    assert today_cell.data() == new.value.record.updated_at.astimezone().strftime("%H:%M")
    assert today_cell.data(3).startswith("Stored ")
    # The column fits a date, not only a time of day.
    table = window.timeline.table
    assert table.columnWidth(time_col) > table.fontMetrics().horizontalAdvance("2023-05-08")
