"""The list of sessions: name, events, last activity and whether memory is off for it."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)

from core import SessionInfo

from ui.presentation import icon, local_time

Index = QModelIndex | QPersistentModelIndex
GOVERNANCE_PREFIX = "memory-center:"


class SessionListModel(QAbstractTableModel):
    """Sessions, most recently active first (the store's own governance log is left out)."""

    def __init__(self) -> None:
        super().__init__()
        self._rows: list[SessionInfo] = []
        self._columns = (
            QCoreApplication.translate("Sessions", "Session"),
            QCoreApplication.translate("Sessions", "Events"),
            QCoreApplication.translate("Sessions", "Last activity"),
            QCoreApplication.translate("Sessions", "Memory"),
        )

    def set_sessions(self, sessions: list[SessionInfo]) -> None:
        """Replace the list."""
        self.beginResetModel()
        self._rows = [s for s in sessions if not s.id.startswith(GOVERNANCE_PREFIX)]
        self.endResetModel()

    def session_at(self, row: int) -> SessionInfo | None:
        """The session of a row."""
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, session: str) -> int:
        """The row of a session, or -1."""
        return next((i for i, s in enumerate(self._rows) if s.id == session), -1)

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
        s = self._rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            values = (
                s.id,
                str(s.event_count),
                local_time(s.last_event_at),
                QCoreApplication.translate("Sessions", "opted out")
                if s.opted_out
                else QCoreApplication.translate("Sessions", "on"),
            )
            return values[col]
        if role == Qt.ItemDataRole.DecorationRole and col == 3:
            return icon("status-disabled") if s.opted_out else icon("status-active")
        return None
