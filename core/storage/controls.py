"""Rows behind the user's controls (R9, R22, R26): session exclusions and the members of a
conflict set, and records whose validity ran out. The decisions themselves are written by
`core.storage.memories`; the rules live in `core.governance.controls`."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, delete, select

from core.model.enums import MemoryStatus
from core.storage import governed, journal
from core.storage import schema as s
from core.storage.store import WriteTx


def add_exclusion(tx: WriteTx, memory_id: str, session: str, actor: str) -> None:
    """Keep a memory out of one session (a second exclusion of the same pair is a no-op)."""
    journal.captured(tx, memory_id)
    table = s.memory_exclusions
    governed.note(tx, governed.EXCLUSIONS, f"{memory_id}{governed.SEP}{session}")
    have = tx.conn.execute(
        select(table.c.memory_id).where(
            (table.c.memory_id == memory_id) & (table.c.session_id == session)
        )
    ).first()
    if have is None:
        tx.conn.execute(
            table.insert().values(
                memory_id=memory_id, session_id=session, created_at=tx.now_iso, actor=actor
            )
        )


def remove_exclusion(tx: WriteTx, memory_id: str, session: str) -> bool:
    """Lift an exclusion; False when there was none."""
    journal.captured(tx, memory_id)
    table = s.memory_exclusions
    governed.note(tx, governed.EXCLUSIONS, f"{memory_id}{governed.SEP}{session}")
    removed = tx.conn.execute(
        delete(table).where((table.c.memory_id == memory_id) & (table.c.session_id == session))
    ).rowcount
    return bool(removed)


def conflict_members(
    conn: Connection, conflict_set: str, *, active_only: bool = False
) -> list[str]:
    """The ids of a conflict set's members (only the active ones when asked)."""
    cond = s.memories.c.conflict_set == conflict_set
    if active_only:
        cond = cond & (s.memories.c.status == MemoryStatus.ACTIVE.value)
    found: list[Any] = list(conn.execute(select(s.memories.c.id).where(cond)).scalars())
    return [str(m) for m in found]


def expired_ids(conn: Connection, now_iso: str) -> list[str]:
    """Active or suggested records whose expiry is at or before `now_iso`."""
    live = [MemoryStatus.ACTIVE.value, MemoryStatus.CANDIDATE.value]
    found: list[Any] = list(
        conn.execute(
            select(s.memories.c.id).where(
                s.memories.c.status.in_(live)
                & s.memories.c.expires_at.is_not(None)
                & (s.memories.c.expires_at <= now_iso)
            )
        ).scalars()
    )
    return [str(r) for r in found]
