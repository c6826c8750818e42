"""Capture cursors: where live capture (agent hooks, transcript watchers) stopped reading.

A cursor belongs to one followed source (a transcript file, a session's extraction mark)
and holds a position (a byte offset, or an event position) and a little JSON state. It is
advanced in the same write transaction that appends what was read, and only if nobody
moved it meanwhile (compare and set), so two watchers of one file never record a line twice.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, select, update

from core.errors import ConflictError
from core.model.capture import CaptureCursor as Cursor
from core.model.enums import ChangeKind
from core.storage import schema as s
from core.storage.store import WriteTx


def read(conn: Connection, key: str, agent: str) -> Cursor:
    """The cursor of `key` (a fresh one when the source was never read)."""
    row = conn.execute(select(s.capture_cursors).where(s.capture_cursors.c.key == key)).first()
    if row is None:
        return Cursor(key, agent)
    return Cursor(key, row.agent, int(row.position), json.loads(row.state_json), int(row.events))


def advance(
    tx: WriteTx, cursor: Cursor, position: int, state: dict[str, Any] | None, added: int
) -> Cursor:
    """Move `cursor` to `position` if it is still where the caller read it.

    Raises:
        ConflictError: another writer advanced the cursor first (nothing is changed; the
            caller's transaction must be rolled back with it).
    """
    encoded = json.dumps(state or {}, sort_keys=True)
    table = s.capture_cursors
    if cursor.state is None and cursor.position == 0 and cursor.events == 0:
        exists = tx.conn.execute(select(table.c.key).where(table.c.key == cursor.key)).first()
        if exists is None:
            tx.conn.execute(
                table.insert().values(
                    key=cursor.key,
                    agent=cursor.agent,
                    position=position,
                    state_json=encoded,
                    events=added,
                    updated_at=tx.now_iso,
                )
            )
            tx.touch(ChangeKind.SETTINGS)
            return Cursor(cursor.key, cursor.agent, position, state or {}, added)
    moved = tx.conn.execute(
        update(table)
        .where(table.c.key == cursor.key, table.c.position == cursor.position)
        .values(
            position=position,
            state_json=encoded,
            events=table.c.events + added,
            updated_at=tx.now_iso,
        )
    ).rowcount
    if moved != 1:
        raise ConflictError(
            f"capture cursor {cursor.key} moved since it was read (another capture got there first)"
        )
    tx.touch(ChangeKind.SETTINGS)
    return Cursor(cursor.key, cursor.agent, position, state or {}, cursor.events + added)


def totals(conn: Connection) -> dict[str, tuple[int, int]]:
    """Per agent: (files followed, events captured from them)."""
    table = s.capture_cursors
    rows = conn.execute(
        select(table.c.agent, table.c.events).where(table.c.key.like("%:file:%"))
    ).all()
    out: dict[str, tuple[int, int]] = {}
    for row in rows:
        agent, events = str(row.agent), int(row.events)
        sources, count = out.get(agent, (0, 0))
        out[agent] = (sources + 1, count + events)
    return out
