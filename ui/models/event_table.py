"""A lazily paged table of the event log, newest first."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from core import Event

COLUMNS = ("Time", "Session", "Actor", "Trust", "Kind", "Text")
Index = QModelIndex | QPersistentModelIndex


class EventTableModel(QAbstractTableModel):
    """Rows are events; the view asks for more as the user scrolls (`fetchMore`)."""

    def __init__(self, page_loader: Any, page_size: int = 200) -> None:
        super().__init__()
        self._load_page = page_loader  # callable(before_position | None, limit) -> list[Event]
        self._page_size = page_size
        self._rows: list[Event] = []
        self._exhausted = False

    def reset(self, first_page: list[Event]) -> None:
        """Replace the contents with a freshly loaded first page."""
        self.beginResetModel()
        self._rows = list(first_page)
        self._exhausted = len(first_page) < self._page_size
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        event = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(event, index.column())
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == len(COLUMNS) - 1:
            return event.text[:2000]
        return None

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and not self._exhausted and bool(self._rows)

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if parent.isValid() or self._exhausted or not self._rows:
            return
        more = self._load_page(self._rows[-1].position, self._page_size)
        self._exhausted = len(more) < self._page_size
        if more:
            start = len(self._rows)
            self.beginInsertRows(QModelIndex(), start, start + len(more) - 1)
            self._rows.extend(more)
            self.endInsertRows()

    @staticmethod
    def _display(event: Event, column: int) -> str:
        if column == 0:
            return event.ts.astimezone().strftime("%Y-%m-%d %H:%M")
        if column == 1:
            return event.session_id
        if column == 2:
            return event.actor.value
        if column == 3:
            return event.trust.value.replace("_", " ")
        if column == 4:
            return event.kind.value.replace("_", " ")
        return event.text.replace("\n", " ")[:300]
