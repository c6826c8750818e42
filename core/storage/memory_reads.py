"""Reading curated memory by id, by session and by source: every record read passes the
binding check (memory_rows.py). Lists by filter are in memory_queries.py."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, and_, func, select

from core.crypto.codec import Codec
from core.errors import DamagedRowError, NotFoundError
from core.model.enums import (
    MemoryStatus,
)
from core.model.records import MemoryRecord
from core.storage import governed
from core.storage import schema as s
from core.storage.damage import Records, split
from core.storage.engine import chunks
from core.storage.memory_rows import checked


def get(conn: Connection, codec: Codec, memory_id: str) -> MemoryRecord:
    """One record.

    Raises:
        NotFoundError: no such record.
        DamagedRowError: the record is damaged (ciphertext, binding or clear metadata).
    """
    found = load(conn, codec, [memory_id])
    if found.damaged:
        bad = found.damaged[0]
        raise DamagedRowError(bad.field, f"memory {memory_id} is damaged: {bad.line()}")
    if not found:
        raise NotFoundError("memory", memory_id)
    return found[0]


def resolve_ref(conn: Connection, ref: str) -> str:
    """The full id behind a short `m:xxxxxxxx` reference.

    Raises:
        NotFoundError: no memory, or more than one, ends with those characters.
    """
    suffix = ref.removeprefix("m:")
    if not suffix.isalnum():
        raise NotFoundError("memory", ref)
    found: list[Any] = list(
        conn.execute(select(s.memories.c.id).where(s.memories.c.id.like(f"%{suffix}"))).scalars()
    )
    if len(found) != 1:
        raise NotFoundError("memory", ref)
    return str(found[0])


def load(conn: Connection, codec: Codec, ids: Sequence[str]) -> Records[MemoryRecord]:
    """Records by id (unknown ids are skipped), in the order given; damaged ones on the side."""
    if not ids:
        return Records()
    # One statement: the hot path reads the ranked hits this way, and on a server every
    # statement is a round trip (the sources came in a second query before, #12).
    query = record_query().add_columns(_SOURCE_LIST).where(s.memories.c.id.in_(list(ids)))
    records = {r["id"]: r for r in conn.execute(query).mappings()}
    return split(checked(records[i], codec, _sources_of(records[i])) for i in ids if i in records)


# A memory's source event ids in one column ("evt_a evt_b"; ids hold no spaces).
_SOURCE_LIST = (
    select(func.aggregate_strings(s.memory_sources.c.event_id, " "))
    .where(s.memory_sources.c.memory_id == s.memories.c.id)
    .scalar_subquery()
    .label("source_list")
)


def _sources_of(row: Mapping[Any, Any]) -> tuple[str, ...]:
    """The sources in id order (event ids sort by time), as `source_ids` gives them."""
    listed = row["source_list"]
    return tuple(sorted(listed.split(" "))) if listed else ()


def active_rows(conn: Connection) -> list[tuple[str, str, int, str | None]]:
    """(id, scope_json, revision, conflict_set) of every active record, from clear columns.

    What the catalog needs at open to file ids under their scopes and conflict sets and to
    tell which keyword entries are stale, without decrypting anything. The clear values are
    not verified here: every record retrieval returns is read again through the binding
    check (`load`).
    """
    rows: Any = conn.execute(
        select(
            s.memories.c.id,
            s.memories.c.scope_json,
            s.memories.c.revision,
            s.memories.c.conflict_set,
        ).where(s.memories.c.status == MemoryStatus.ACTIVE.value)
    ).all()
    return list(rows)


def excluded_sessions(
    conn: Connection, codec: Codec, memory_ids: Sequence[str], session: str
) -> set[str]:
    """Which of these memories the user excluded from this session."""
    if not memory_ids:
        return set()
    recorded = governed.excluded(conn, codec, session)
    if recorded is not None:
        return set(recorded & set(memory_ids))
    rows: Iterable[str] = conn.execute(
        select(s.memory_exclusions.c.memory_id).where(
            and_(
                s.memory_exclusions.c.session_id == session,
                s.memory_exclusions.c.memory_id.in_(list(memory_ids)),
            )
        )
    ).scalars()
    return set(rows)


def session_state(conn: Connection, codec: Codec, session: str) -> tuple[bool, frozenset[str]]:
    """(opted out?, ids of memories excluded from it) for one session, as the MAC'd record
    of governing rows says (`governed.py`): an edited table changes nothing."""
    opted = conn.execute(
        select(s.sessions.c.opted_out).where(s.sessions.c.id == session)
    ).scalar_one_or_none()
    recorded = governed.excluded(conn, codec, session)
    if recorded is not None:
        return governed.opted_out(conn, codec, session, bool(opted)), recorded
    excluded: list[Any] = list(
        conn.execute(
            select(s.memory_exclusions.c.memory_id).where(
                s.memory_exclusions.c.session_id == session
            )
        ).scalars()
    )
    return bool(opted), frozenset(str(m) for m in excluded)


def by_source_events(conn: Connection, event_ids: Sequence[str]) -> list[str]:
    """Ids of memories that cite any of these events."""
    if not event_ids:
        return []
    return list(
        conn.execute(
            select(s.memory_sources.c.memory_id)
            .where(s.memory_sources.c.event_id.in_(list(event_ids)))
            .distinct()
        ).scalars()
    )


# Whether a memory's creating decision is recorded: a row without one was not written by
# Memory Center (#41). One index probe per row (ix_decisions_memory).
_DECIDED = (
    select(s.decisions.c.id)
    .where(s.decisions.c.memory_id == s.memories.c.id)
    .exists()
    .label("decided")
)


def record_query() -> Any:
    """Memory rows joined with the ciphertext of their current revision, and whether a
    decision about each is recorded."""
    return select(
        s.memories, s.memory_revisions.c.content, s.memory_revisions.c.speaker, _DECIDED
    ).join(
        s.memory_revisions,
        and_(
            s.memory_revisions.c.memory_id == s.memories.c.id,
            s.memory_revisions.c.revision == s.memories.c.revision,
        ),
    )


def source_ids(conn: Connection, ids: list[str]) -> dict[str, tuple[str, ...]]:
    """The source event ids of each memory, in id order (asked in chunks: SQLite caps the
    number of bound parameters)."""
    out: dict[str, list[str]] = {}
    for chunk in chunks(ids):
        rows = conn.execute(
            select(s.memory_sources.c.memory_id, s.memory_sources.c.event_id)
            .where(s.memory_sources.c.memory_id.in_(chunk))
            .order_by(s.memory_sources.c.event_id)
        ).all()
        for mid, eid in rows:
            out.setdefault(str(mid), []).append(str(eid))
    return {k: tuple(v) for k, v in out.items()}
