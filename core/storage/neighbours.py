"""Where a memory sits in the conversation it came from: the memories said just before and after.

A chat turn's meaning often lives in its neighbours ("Yes, last Tuesday!" answers the turn
before it). The log already holds the order: every memory cites the event it came from, and
events are numbered within their session. Two indexed look-ups find, for a few memories, the
memories whose source events sit next to theirs in the same session.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping

from sqlalchemy import Connection, and_, or_, select

from core.model.enums import EventKind
from core.storage import schema as s

# How many events either side to look through: other events (tool calls, decisions) may sit
# between two turns of the same conversation.
REACH = 4


# Memories asked about at once: one statement each for their places and their surroundings.
BATCH = 200
_LAST = "\uffff"  # sorts after every memory id


def adjacent(
    conn: Connection, sources: Mapping[str, str], reach: int = REACH, batch: int = BATCH
) -> dict[str, tuple[str, ...]]:
    """For each memory (id -> its first source event id), the nearest memory before and after
    as a pair `(before, after)`, "" for a side with none.

    Only message events of the same session count as the conversation; a memory whose
    source is not in the log (or is alone in its session) has no neighbours. Two statements
    per `BATCH` memories, not one per memory: a ranking asks about a hundred at once.
    """
    out: dict[str, tuple[str, ...]] = {}
    items = list(sources.items())
    for start in range(0, len(items), batch):
        out.update(_adjacent(conn, dict(items[start : start + batch]), reach))
    return out


def _adjacent(
    conn: Connection, sources: Mapping[str, str], reach: int
) -> dict[str, tuple[str, ...]]:
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
    places: dict[tuple[str, int], list[str]] = {}
    for memory_id, event_id in sources.items():
        if event_id in where:
            places.setdefault(where[event_id], []).append(memory_id)
    if not places:
        return {}
    windows = or_(
        *(
            and_(s.events.c.session_id == session, s.events.c.seq.between(seq - reach, seq + reach))
            for session, seq in places
        )
    )
    around: dict[str, list[tuple[int, str]]] = {}
    for row in conn.execute(
        select(s.memory_sources.c.memory_id, s.events.c.session_id, s.events.c.seq)
        .join(s.events, s.events.c.id == s.memory_sources.c.event_id)
        .where(and_(windows, s.events.c.kind == EventKind.MESSAGE.value))
    ):
        around.setdefault(row.session_id, []).append((row.seq, row.memory_id))
    for rows in around.values():
        rows.sort()
    out: dict[str, tuple[str, ...]] = {}
    for (session, seq), memory_ids in places.items():
        for memory_id in memory_ids:
            out[memory_id] = _nearest(around.get(session, []), memory_id, seq, reach)
    return out


def _nearest(rows: list[tuple[int, str]], memory_id: str, seq: int, reach: int) -> tuple[str, ...]:
    """The memory said just before `seq` and the one just after ("" where there is none),
    from rows sorted by seq (other memories of the same event are not neighbours)."""
    lo = bisect.bisect_left(rows, (seq - reach, ""))
    mid = bisect.bisect_left(rows, (seq, ""))
    past = bisect.bisect_right(rows, (seq, _LAST))
    hi = bisect.bisect_right(rows, (seq + reach, _LAST))
    before = [row for row in rows[lo:mid] if row[1] != memory_id]
    after = [row for row in rows[past:hi] if row[1] != memory_id]
    return (max(before)[1] if before else "", min(after)[1] if after else "")
