"""The timeline table: memories (and events) newest first, with a header row per day.

Rows are fetched lazily (`canFetchMore`/`fetchMore`) from a `TimelineStream` on the reader
pool; while a page loads the model keeps serving the rows it has.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QCoreApplication, QModelIndex, Qt

from core import Event, MemoryFlag, MemoryRecord, Sensitivity

from ui.models.row_table import Index, PageFeed, RowTableModel
from ui.models.timeline_source import Item, TimelineStream, item_time
from ui.presentation import (
    actor_text,
    bold_font,
    confidence_text,
    day_of,
    day_title,
    event_kind_text,
    event_text,
    icon,
    kind_text,
    local_time,
    scope_short,
    scope_tip,
    source_text,
    status_icon,
    status_text,
    trust_text,
)
from ui.tasks import TaskRunner

PAGE = 200
ItemRole = Qt.ItemDataRole.UserRole + 1
IsDayRole = Qt.ItemDataRole.UserRole + 2
(COL_STATUS, COL_KIND, COL_CONTENT, COL_SCOPE, COL_CONF, COL_SOURCE, COL_TIME) = range(7)


def _headers() -> tuple[str, ...]:
    return (
        QCoreApplication.translate("Timeline", "Status"),
        QCoreApplication.translate("Timeline", "Kind"),
        QCoreApplication.translate("Timeline", "Content"),
        QCoreApplication.translate("Timeline", "Scope"),
        QCoreApplication.translate("Timeline", "Conf."),
        QCoreApplication.translate("Timeline", "Source"),
        QCoreApplication.translate("Timeline", "Time"),
    )


@dataclass(frozen=True)
class Row:
    """A day header (`item` None) or one memory or event."""

    day: dt.date
    item: Item | None = None


class TimelineModel(RowTableModel[Row]):
    """Lazily paged, day-grouped rows of a `TimelineStream`.

    Signals (inherited): rowsInserted after each page, modelReset on a new stream.
    """

    def __init__(self, tasks: TaskRunner, now: Callable[[], dt.datetime]) -> None:
        super().__init__(_headers())
        self._feed: PageFeed[list[Item]] = PageFeed(tasks)
        self._now = now
        self._stream: TimelineStream | None = None
        self.item_count = 0

    # --- feeding -------------------------------------------------------------

    def set_stream(self, stream: TimelineStream) -> None:
        """Show a new stream (new filter or new store revision) from its first page."""
        self._feed.restart()
        self.item_count = 0
        self._stream = stream
        self.reset_rows()
        self.fetchMore(QModelIndex())

    @property
    def loading(self) -> bool:
        """True while a page is being read."""
        return self._feed.loading

    def item_at(self, row: int) -> Item | None:
        """The memory or event of a row (None for day headers)."""
        found = self.row_at(row)
        return found.item if found is not None else None

    def row_of(self, memory_id: str) -> int:
        """The row showing a memory, or -1."""
        return self.find_row(lambda r: isinstance(r.item, MemoryRecord) and r.item.id == memory_id)

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        stream = self._stream
        return (
            not parent.isValid()
            and stream is not None
            and not self._feed.loading
            and not stream.exhausted()
        )

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if not self.canFetchMore(parent):
            return
        stream = self._stream
        assert stream is not None
        self._feed.load(lambda: stream.next_page(PAGE), self._append)

    def _append(self, items: list[Item]) -> None:
        new: list[Row] = []
        last_day = self._last_day()
        grouped = self._stream is not None and not self._stream.ranked
        for item in items:
            day = day_of(item_time(item))
            if grouped and day != last_day:
                new.append(Row(day))
                last_day = day
            new.append(Row(day, item))
        self.item_count += len(items)
        self.append_rows(new)

    def _last_day(self) -> dt.date | None:
        return self._rows[-1].day if self._rows else None

    # --- Qt model ------------------------------------------------------------

    def selectable(self, row: Row) -> bool:
        return row.item is not None

    def cell(self, row: Row, column: int, role: int) -> Any:
        if role == ItemRole:
            return row.item
        if role == IsDayRole:
            return row.item is None
        if row.item is None:
            return self._day_data(row.day, column, role)
        if isinstance(row.item, MemoryRecord):
            return self._memory_data(row.item, column, role)
        return self._event_data(row.item, column, role)

    def _day_data(self, day: dt.date, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and column == 0:
            return day_title(day, self._now().astimezone().date())
        if role == Qt.ItemDataRole.FontRole:
            return bold_font()
        return None

    def _memory_data(self, r: MemoryRecord, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole or role == Qt.ItemDataRole.AccessibleTextRole:
            return self._memory_text(r, column)
        if role == Qt.ItemDataRole.DecorationRole:
            if column == COL_STATUS:
                return status_icon(r.effective_status(self._now()))
            if column == COL_CONTENT and MemoryFlag.CONFLICT in r.flags:
                return icon("conflict")
            if column == COL_SOURCE and r.sensitivity == Sensitivity.REDACTED:
                return icon("redacted")
        if role == Qt.ItemDataRole.ToolTipRole and column == COL_CONTENT:
            return r.spoken()[:2000]
        if role == Qt.ItemDataRole.ToolTipRole and column == COL_SCOPE:
            return scope_tip(r.scope)
        if role == Qt.ItemDataRole.ToolTipRole and column == COL_TIME:
            return _time_tip(r)
        if role == Qt.ItemDataRole.TextAlignmentRole and column == COL_CONF:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _memory_text(self, r: MemoryRecord, column: int) -> str:
        if column == COL_STATUS:
            return status_text(r.effective_status(self._now()))
        if column == COL_KIND:
            return kind_text(r.kind.value)
        if column == COL_CONTENT:
            text = r.spoken().replace("\n", " ")[:300]
            return text if text else QCoreApplication.translate("Timeline", "(purged)")
        if column == COL_SCOPE:
            return scope_short(r.scope)
        if column == COL_CONF:
            return confidence_text(r.confidence)
        if column == COL_SOURCE:
            return trust_text(r.source_trust.value)
        said = r.own_time()
        # Rows are grouped under the day they were stored; the column starts with that same
        # time (a date alone there read as filed under the wrong day, #43) and adds the day
        # history imported or recorded later was said, so a year-old chat is not this
        # morning's.
        stored = local_time(r.updated_at, "%H:%M")
        if said is None:
            return stored
        return (
            QCoreApplication.translate("Timeline", "%1 · said %2")
            .replace("%1", stored)
            .replace("%2", local_time(said, "%Y-%m-%d"))
        )

    def _event_data(self, e: Event, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DecorationRole and column == COL_STATUS:
            return icon("event")
        if role == Qt.ItemDataRole.ToolTipRole and column == COL_CONTENT:
            return e.text[:2000]
        if role == Qt.ItemDataRole.ToolTipRole and column == COL_SCOPE:
            return scope_tip(e.scope)
        if role == Qt.ItemDataRole.ForegroundRole:
            return None
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return None
        values = {
            COL_STATUS: QCoreApplication.translate("Timeline", "event"),
            COL_KIND: event_kind_text(e.kind.value),
            COL_CONTENT: f"{actor_text(e.actor.value)}: "
            + event_text(e.text).replace("\n", " ")[:300],
            COL_SCOPE: scope_short(e.scope),
            COL_CONF: "",
            COL_SOURCE: trust_text(e.trust.value)
            + (f" · {source_text(e.source.value)}" if e.source else ""),
            COL_TIME: local_time(e.ts, "%H:%M"),
        }
        return values[column]


def _time_tip(r: MemoryRecord) -> str:
    """When the memory was stored, and when it was said if that was earlier."""
    stored = local_time(r.updated_at, "%Y-%m-%d %H:%M")
    said = r.own_time()
    if said is None:
        return QCoreApplication.translate("Timeline", "Stored %1").replace("%1", stored)
    return (
        QCoreApplication.translate("Timeline", "Said %1, stored %2")
        .replace("%1", local_time(said, "%Y-%m-%d %H:%M"))
        .replace("%2", stored)
    )
