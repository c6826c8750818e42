"""Where a memory sits in the conversation it came from: the memories said just before and after.

A chat turn's meaning often lives in its neighbours ("Yes, last Tuesday!" answers the turn
before it). The log already holds the order: every memory cites the event it came from, and
events are numbered within their session. Two indexed look-ups find, for a few memories, the
memories whose source events sit next to theirs in the same session.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import Connection, and_, select

from core.model.enums import EventKind
from core.storage import schema as s

# How many events either side to look through: other events (tool calls, decisions) may sit
# between two turns of the same conversation.
REACH = 4


def adjacent(
    conn: Connection, sources: Mapping[str, str], reach: int = REACH
) -> dict[str, tuple[str, ...]]:
    """For each memory (id -> its first source event id), the nearest memory before and after.

    Only message events of the same session count as the conversation; a memory whose
    source is not in the log (or is alone in its session) has no neighbours.
    """
    if not sources:
        return {}
    where = {
        row.id: (row.session_id, row.seq)
        for row in conn.execute(
            select(s.events.c.id, s.events.c.session_id, s.events.c.seq).where(
                s.events.c.id.in_(list(set(sources.values())))
            )
        )
    }
    out: dict[str, tuple[str, ...]] = {}
    for memory_id, event_id in sources.items():
        if event_id in where:
            session, seq = where[event_id]
            out[memory_id] = _around(conn, memory_id, session, seq, reach)
    return out


def _around(
    conn: Connection, memory_id: str, session: str, seq: int, reach: int
) -> tuple[str, ...]:
    rows = conn.execute(
        select(s.memory_sources.c.memory_id, s.events.c.seq)
        .join(s.events, s.events.c.id == s.memory_sources.c.event_id)
        .where(
            and_(
                s.events.c.session_id == session,
                s.events.c.seq.between(seq - reach, seq + reach),
                s.events.c.seq != seq,
                s.events.c.kind == EventKind.MESSAGE.value,
            )
        )
    ).all()
    before = [(r.seq, r.memory_id) for r in rows if r.seq < seq and r.memory_id != memory_id]
    after = [(r.seq, r.memory_id) for r in rows if r.seq > seq and r.memory_id != memory_id]
    picked: list[str] = []
    if before:
        picked.append(max(before)[1])
    if after:
        picked.append(min(after)[1])
    return tuple(picked)
