"""The list of sessions: name, events, last activity and whether memory is off for it."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, Qt

from core import SessionInfo, is_internal_session

from ui.models.row_table import RowTableModel
from ui.presentation import icon, local_time


class SessionListModel(RowTableModel[SessionInfo]):
    """Sessions, most recently active first (Memory Center's own sessions are left out)."""

    def __init__(self) -> None:
        super().__init__(
            (
                QCoreApplication.translate("Sessions", "Session"),
                QCoreApplication.translate("Sessions", "Events"),
                QCoreApplication.translate("Sessions", "Last activity"),
                QCoreApplication.translate("Sessions", "Memory"),
            )
        )

    def set_sessions(self, sessions: list[SessionInfo]) -> None:
        """Replace the list."""
        self.reset_rows(s for s in sessions if not is_internal_session(s.id))

    def session_at(self, row: int) -> SessionInfo | None:
        """The session of a row."""
        return self.row_at(row)

    def row_of(self, session: str) -> int:
        """The row of a session, or -1."""
        return self.find_row(lambda s: s.id == session)

    def cell(self, s: SessionInfo, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            values = (
                s.id,
                str(s.event_count),
                local_time(s.last_event_at),
                QCoreApplication.translate("Sessions", "opted out")
                if s.opted_out
                else QCoreApplication.translate("Sessions", "on"),
            )
            return values[column]
        if role == Qt.ItemDataRole.DecorationRole and column == 3:
            return icon("status-disabled") if s.opted_out else icon("status-active")
        return None
