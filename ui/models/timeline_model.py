"""The timeline table: memories (and events) newest first, with a header row per day.

Rows are fetched lazily (`canFetchMore`/`fetchMore`) from a `TimelineStream` on the reader
pool; while a page loads the model keeps serving the rows it has.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)

from core import Event, MemoryRecord

from ui.models.timeline_source import Item, TimelineStream, item_time
from ui.presentation import (
    bold_font,
    confidence_text,
    day_of,
    day_title,
    icon,
    kind_text,
    local_time,
    status_icon,
    status_text,
    trust_text,
)
from ui.tasks import TaskRunner

PAGE = 200
Index = QModelIndex | QPersistentModelIndex
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


class TimelineModel(QAbstractTableModel):
    """Lazily paged, day-grouped rows of a `TimelineStream`.

    Signals (inherited): rowsInserted after each page, modelReset on a new stream.
    """

    def __init__(self, tasks: TaskRunner, now: Callable[[], dt.datetime]) -> None:
        super().__init__()
        self._tasks = tasks
        self._now = now
        self._rows: list[Row] = []
        self._stream: TimelineStream | None = None
        self._generation = 0
        self._loading = False
        self._headers = _headers()
        self.item_count = 0

    # --- feeding -------------------------------------------------------------

    def set_stream(self, stream: TimelineStream) -> None:
        """Show a new stream (new filter or new store revision) from its first page."""
        self._generation += 1
        self.beginResetModel()
        self._rows = []
        self.item_count = 0
        self._stream = stream
        self._loading = False
        self.endResetModel()
        self.fetchMore(QModelIndex())

    @property
    def loading(self) -> bool:
        """True while a page is being read."""
        return self._loading

    def item_at(self, row: int) -> Item | None:
        """The memory or event of a row (None for day headers)."""
        return self._rows[row].item if 0 <= row < len(self._rows) else None

    def row_of(self, memory_id: str) -> int:
        """The row showing a memory, or -1."""
        for i, r in enumerate(self._rows):
            if isinstance(r.item, MemoryRecord) and r.item.id == memory_id:
                return i
        return -1

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        stream = self._stream
        return (
            not parent.isValid()
            and stream is not None
            and not self._loading
            and not stream.exhausted()
        )

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if not self.canFetchMore(parent):
            return
        stream = self._stream
        assert stream is not None
        self._loading = True
        generation = self._generation
        self._tasks.run(
            lambda: stream.next_page(PAGE),
            lambda items: self._append(generation, items),
            lambda _exc: self._failed(generation),
        )

    def _failed(self, generation: int) -> None:
        if generation == self._generation:
            self._loading = False

    def _append(self, generation: int, items: list[Item]) -> None:
        if generation != self._generation:
            return
        self._loading = False
        new: list[Row] = []
        last_day = self._last_day()
        grouped = self._stream is not None and not self._stream.ranked
        for item in items:
            day = day_of(item_time(item))
            if grouped and day != last_day:
                new.append(Row(day))
                last_day = day
            new.append(Row(day, item))
        if not new:
            return
        start = len(self._rows)
        self.beginInsertRows(QModelIndex(), start, start + len(new) - 1)
        self._rows.extend(new)
        self.item_count += len(items)
        self.endInsertRows()

    def _last_day(self) -> dt.date | None:
        return self._rows[-1].day if self._rows else None

    # --- Qt model ------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._headers)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self._headers[section]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        if self._rows[index.row()].item is None:
            return Qt.ItemFlag.ItemIsEnabled
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        if role == ItemRole:
            return row.item
        if role == IsDayRole:
            return row.item is None
        if row.item is None:
            return self._day_data(row.day, index.column(), role)
        if isinstance(row.item, MemoryRecord):
            return self._memory_data(row.item, index.column(), role)
        return self._event_data(row.item, index.column(), role)

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
            if column == COL_CONTENT and "conflict" in r.flags:
                return icon("conflict")
            if column == COL_SOURCE and r.sensitivity.value == "redacted":
                return icon("redacted")
        if role == Qt.ItemDataRole.ToolTipRole and column == COL_CONTENT:
            return r.content[:2000]
        if role == Qt.ItemDataRole.ToolTipRole and column == COL_SCOPE:
            return str(r.scope)
        if role == Qt.ItemDataRole.TextAlignmentRole and column == COL_CONF:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _memory_text(self, r: MemoryRecord, column: int) -> str:
        if column == COL_STATUS:
            return status_text(r.effective_status(self._now()))
        if column == COL_KIND:
            return kind_text(r.kind.value)
        if column == COL_CONTENT:
            text = r.content.replace("\n", " ")[:300]
            return text if text else QCoreApplication.translate("Timeline", "(purged)")
        if column == COL_SCOPE:
            return str(r.scope)
        if column == COL_CONF:
            return confidence_text(r.confidence)
        if column == COL_SOURCE:
            return trust_text(r.source_trust.value)
        return local_time(r.updated_at, "%H:%M")

    def _event_data(self, e: Event, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DecorationRole and column == COL_STATUS:
            return icon("event")
        if role == Qt.ItemDataRole.ToolTipRole and column == COL_CONTENT:
            return e.text[:2000]
        if role == Qt.ItemDataRole.ForegroundRole:
            return None
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return None
        values = {
            COL_STATUS: QCoreApplication.translate("Timeline", "event"),
            COL_KIND: e.kind.value.replace("_", " "),
            COL_CONTENT: f"{e.actor.value}: " + e.text.replace("\n", " ")[:300],
            COL_SCOPE: str(e.scope),
            COL_CONF: "",
            COL_SOURCE: trust_text(e.trust.value) + (f" · {e.source.value}" if e.source else ""),
            COL_TIME: local_time(e.ts, "%H:%M"),
        }
        return values[column]
