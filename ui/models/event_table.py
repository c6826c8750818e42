"""A lazily paged table of log events, newest first; pages load on the reader pool."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QModelIndex, Qt

from core import Event, TrustLevel

from ui.models.row_table import Index, PageFeed, RowTableModel
from ui.presentation import (
    actor_text,
    event_kind_text,
    event_text,
    icon,
    local_time,
    source_text,
    trust_text,
)
from ui.tasks import TaskRunner

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


class EventTableModel(RowTableModel[Event]):
    """Rows are events; the view asks for more as the user scrolls (`fetchMore`)."""

    def __init__(self, tasks: TaskRunner, page_size: int = 200) -> None:
        super().__init__(_columns())
        self._feed: PageFeed[list[Event]] = PageFeed(tasks)
        self._load_page: PageLoader | None = None
        self._page_size = page_size
        self._exhausted = True

    def load(self, loader: PageLoader) -> None:
        """Show the events `loader` returns, from the newest page."""
        self._feed.restart()
        self._load_page = loader
        self._exhausted = False
        self.reset_rows()
        self._fetch(None)

    def clear(self) -> None:
        """Show nothing."""
        self._feed.restart()
        self._load_page = None
        self._exhausted = True
        self.reset_rows()

    def event_at(self, row: int) -> Event | None:
        """The event of a row."""
        return self.row_at(row)

    def row_of(self, event_id: str) -> int:
        """The row of an event, or -1 when not loaded (yet)."""
        return self.find_row(lambda e: e.id == event_id)

    def cell(self, event: Event, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(event, column)
        if role == Qt.ItemDataRole.ToolTipRole and column == len(self._columns) - 1:
            return event.text[:2000]
        if role == Qt.ItemDataRole.DecorationRole and column == 3:
            return icon("status-quarantined") if event.trust == TrustLevel.UNTRUSTED else None
        if role == EventRole:
            return event
        return None

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and not self._exhausted and not self._feed.loading

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if self.canFetchMore(parent) and self._rows:
            self._fetch(self._rows[-1].position)

    def _fetch(self, before: int | None) -> None:
        loader = self._load_page
        if loader is None:
            return
        size = self._page_size
        self._feed.load(lambda: loader(before, size), self._append, self._stop)

    def _stop(self) -> None:
        self._exhausted = True

    def _append(self, more: list[Event]) -> None:
        self._exhausted = len(more) < self._page_size
        self.append_rows(more)

    @staticmethod
    def _display(event: Event, column: int) -> str:
        if column == 0:
            return local_time(event.ts)
        if column == 1:
            return event.session_id
        if column == 2:
            return actor_text(event.actor.value)
        if column == 3:
            return trust_text(event.trust.value) + (
                f" · {source_text(event.source.value)}" if event.source else ""
            )
        if column == 4:
            return event_kind_text(event.kind.value)
        if event.redacted:
            return QCoreApplication.translate("Events", "(redacted)")
        return event_text(event.text).replace("\n", " ")[:300]
