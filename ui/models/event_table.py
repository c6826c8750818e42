"""A lazily paged table of log events, newest first; pages load on the reader pool."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)

from core import Event

from ui.presentation import icon, local_time, trust_text
from ui.tasks import TaskRunner

Index = QModelIndex | QPersistentModelIndex
PageLoader = Callable[[int | None, int], list[Event]]
"""(before_position or None for the newest, limit) -> events, newest first."""
EventRole = Qt.ItemDataRole.UserRole + 1


def _columns() -> tuple[str, ...]:
    return (
        QCoreApplication.translate("Events", "Time"),
        QCoreApplication.translate("Events", "Session"),
        QCoreApplication.translate("Events", "Actor"),
        QCoreApplication.translate("Events", "Trust"),
        QCoreApplication.translate("Events", "Kind"),
        QCoreApplication.translate("Events", "Text"),
    )


class EventTableModel(QAbstractTableModel):
    """Rows are events; the view asks for more as the user scrolls (`fetchMore`)."""

    def __init__(self, tasks: TaskRunner, page_size: int = 200) -> None:
        super().__init__()
        self._tasks = tasks
        self._load_page: PageLoader | None = None
        self._page_size = page_size
        self._rows: list[Event] = []
        self._exhausted = True
        self._loading = False
        self._generation = 0
        self._columns = _columns()

    def load(self, loader: PageLoader) -> None:
        """Show the events `loader` returns, from the newest page."""
        self._generation += 1
        self.beginResetModel()
        self._load_page = loader
        self._rows = []
        self._exhausted = False
        self._loading = False
        self.endResetModel()
        self._fetch(None)

    def clear(self) -> None:
        """Show nothing."""
        self._generation += 1
        self.beginResetModel()
        self._load_page = None
        self._rows = []
        self._exhausted = True
        self.endResetModel()

    def event_at(self, row: int) -> Event | None:
        """The event of a row."""
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, event_id: str) -> int:
        """The row of an event, or -1 when not loaded (yet)."""
        return next((i for i, e in enumerate(self._rows) if e.id == event_id), -1)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._columns)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self._columns[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        event = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(event, index.column())
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == len(self._columns) - 1:
            return event.text[:2000]
        if role == Qt.ItemDataRole.DecorationRole and index.column() == 3:
            return icon("status-quarantined") if event.trust.value == "untrusted" else None
        if role == EventRole:
            return event
        return None

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and not self._exhausted and not self._loading

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if self.canFetchMore(parent) and self._rows:
            self._fetch(self._rows[-1].position)

    def _fetch(self, before: int | None) -> None:
        loader = self._load_page
        if loader is None:
            return
        self._loading = True
        generation = self._generation
        size = self._page_size
        self._tasks.run(
            lambda: loader(before, size),
            lambda page: self._append(generation, page),
            lambda _exc: self._stop(generation),
        )

    def _stop(self, generation: int) -> None:
        if generation == self._generation:
            self._loading = False
            self._exhausted = True

    def _append(self, generation: int, more: list[Event]) -> None:
        if generation != self._generation:
            return
        self._loading = False
        self._exhausted = len(more) < self._page_size
        if more:
            start = len(self._rows)
            self.beginInsertRows(QModelIndex(), start, start + len(more) - 1)
            self._rows.extend(more)
            self.endInsertRows()

    @staticmethod
    def _display(event: Event, column: int) -> str:
        if column == 0:
            return local_time(event.ts)
        if column == 1:
            return event.session_id
        if column == 2:
            return event.actor.value
        if column == 3:
            return trust_text(event.trust.value) + (
                f" · {event.source.value}" if event.source else ""
            )
        if column == 4:
            return event.kind.value.replace("_", " ")
        if event.redacted:
            return QCoreApplication.translate("Events", "(redacted)")
        return event.text.replace("\n", " ")[:300]
