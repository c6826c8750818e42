"""Counts for `status` and the per-session opt-out switch (R24, R26)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, func, select, update

from core.model.enums import ChangeKind
from core.storage import governed
from core.storage import schema as s
from core.storage.store import WriteTx


def memory_counts(conn: Connection) -> dict[str, int]:
    """How many memories are in each status."""
    rows: list[Any] = list(
        conn.execute(select(s.memories.c.status, func.count()).group_by(s.memories.c.status)).all()
    )
    return {str(status): int(n) for status, n in rows}


def session_count(conn: Connection) -> int:
    """How many sessions the log holds."""
    return int(conn.execute(select(func.count()).select_from(s.sessions)).scalar_one())


def set_opt_out(tx: WriteTx, session: str, opted_out: bool) -> None:
    """Switch a session's memory opt-out; a session named before its first event is created."""
    governed.note(tx, governed.SESSIONS, session)
    found = tx.conn.execute(
        update(s.sessions).where(s.sessions.c.id == session).values(opted_out=opted_out)
    )
    if found.rowcount == 0:
        tx.conn.execute(
            s.sessions.insert().values(
                id=session, created_at=tx.now_iso, opted_out=opted_out, event_count=0
            )
        )
    tx.touch(ChangeKind.SESSIONS)
