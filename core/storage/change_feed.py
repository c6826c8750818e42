"""Reading the change feed: which memories changed between two revisions (R21).

Every write that changed something appends a row to `changes` (store.py); its id lists are
capped, and a capped list says "everything" instead.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlalchemy import Connection, select

from core.model.clock import from_iso
from core.model.enums import ChangeKind
from core.model.records import ChangeEntry
from core.storage import schema as s

FEED_ID_LIMIT = 500


EVERYTHING = "*"


def capped(ids: list[str]) -> list[str]:
    """The ids a feed row lists; past the limit it says "*" (everything may have changed)."""
    return ids if len(ids) <= FEED_ID_LIMIT else [EVERYTHING]


def changed_memory_ids(conn: Connection, after: int, upto: int, most: int) -> set[str] | None:
    """Memory ids changed in revisions (after, upto]; None when more than `most` changes
    (or a change of everything) happened, so a follower reloads instead."""
    if after < 0:
        return None
    rows = conn.execute(
        select(s.changes.c.memory_ids)
        .where((s.changes.c.revision > after) & (s.changes.c.revision <= upto))
        .limit(most + 1)
    ).all()
    if len(rows) > most:
        return None
    out: set[str] = set()
    for (raw,) in rows:
        ids: Sequence[str] = json.loads(str(raw))
        if EVERYTHING in ids:
            return None
        out.update(ids)
    return out


def entries_since(conn: Connection, revision: int, limit: int) -> list[ChangeEntry]:
    """Change-feed rows after `revision`, oldest first."""
    query = (
        select(s.changes)
        .where(s.changes.c.revision > revision)
        .order_by(s.changes.c.revision)
        .limit(limit)
    )
    rows = conn.execute(query).mappings().all()
    return [
        ChangeEntry(
            revision=r["revision"],
            ts=from_iso(r["ts"]),
            kinds=frozenset(ChangeKind(k) for k in json.loads(r["kinds"])),
            event_ids=tuple(json.loads(r["event_ids"])),
            memory_ids=tuple(json.loads(r["memory_ids"])),
        )
        for r in rows
    ]
