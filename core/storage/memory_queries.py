"""Memory records by filter: the lists, counts and scope queries the views and checks ask for.

Filters on clear metadata run in SQL; the scope rules and the text filter run on records
that passed the binding check (`memories.checked`), never on an unchecked clear column.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, func, or_, select

from core.crypto.codec import Codec
from core.model.clock import to_iso
from core.model.enums import MemoryStatus
from core.model.memory import MemoryFilter
from core.model.records import MemoryRecord
from core.model.scope import Scope
from core.storage import schema as s
from core.storage.damage import Records, split
from core.storage.engine import chunks
from core.storage.memories import checked, record_query, source_ids
from core.storage.text_index import TextIndex

DECODE_CHUNK = 2000


def query(
    conn: Connection, codec: Codec, flt: MemoryFilter, texts: TextIndex | None = None
) -> Records[MemoryRecord]:
    """Records matching a filter, newest first.

    Filters on clear metadata run in SQL, the scope rule's first cut included, and so do
    LIMIT/OFFSET when no filter needs the decrypted content: then only the requested page is
    decrypted. With a `TextIndex`, a text filter decrypts only rows changed since the index
    last caught up and the rows whose cached text matches.
    """
    if flt.text and texts is not None:
        return _text_query(conn, codec, flt, texts)
    q = _filtered(record_query(), flt)
    q = q.order_by(s.memories.c.updated_at.desc(), s.memories.c.id.desc())
    in_python = bool(flt.text)
    if not in_python:
        q = q.limit(flt.limit).offset(flt.offset)
    # Decoded a chunk at a time: rows of the whole store at once (the memory center reads
    # every record) were a transient peak of ~120 MB at 100k that, interleaved with the
    # records kept, stayed resident afterwards (#13).
    found: Records[MemoryRecord] = Records()
    for part in conn.execute(q).mappings().partitions(DECODE_CHUNK):
        decoded = _decode(conn, codec, part, flt)
        found.extend(decoded)
        found.damaged += decoded.damaged
        found.unavailable += decoded.unavailable
    return _finish(found, flt, paged_in_sql=not in_python)


def _text_query(
    conn: Connection, codec: Codec, flt: MemoryFilter, texts: TextIndex
) -> Records[MemoryRecord]:
    """A text filter answered from the sealed text index (see core/storage/text_index.py).

    The rows whose cached text matches are read newest first, through the metadata filter,
    in chunks, until the page is full: a later chunk only holds older rows. The opaque rows
    (private, damaged) are read every time.
    """
    damaged = {d.row_id: d for d in texts.catch_up(conn, codec)}
    texts.save_if_due(codec)
    needle = (flt.text or "").casefold()
    hits, opaque = texts.candidates(needle)
    wanted = flt.offset + flt.limit
    matched: list[MemoryRecord] = []
    unavailable = 0
    batches = list(chunks(opaque))
    from_hits = len(batches)
    batches += chunks(hits)
    for number, chunk in enumerate(batches):
        if number >= from_hits and len(matched) >= wanted:
            break
        q = _filtered(record_query(), flt).where(s.memories.c.id.in_(chunk))
        found = _decode(conn, codec, conn.execute(q).mappings().all(), flt)
        damaged.update((d.row_id, d) for d in found.damaged)
        unavailable += found.unavailable
        # Matched on the verified record, so that the count that stops the loop is exact.
        matched += [r for r in found if _scope_matches(r, flt) and needle in r.spoken().casefold()]
    matched.sort(key=lambda r: (r.updated_at, r.id), reverse=True)
    page = matched[flt.offset : flt.offset + flt.limit]
    return Records(page, damaged.values(), unavailable)


def _decode(
    conn: Connection, codec: Codec, rows: Sequence[Any], flt: MemoryFilter
) -> Records[MemoryRecord]:
    """Checked records of raw rows."""
    sources = source_ids(conn, [r["id"] for r in rows])
    return split(checked(r, codec, sources.get(r["id"], ())) for r in rows)


def _finish(
    found: Records[MemoryRecord], flt: MemoryFilter, *, paged_in_sql: bool
) -> Records[MemoryRecord]:
    # Scope rules and the text match run on the verified record, never on a clear column.
    records = [r for r in found if _scope_matches(r, flt)]
    if flt.text:
        needle = flt.text.casefold()
        records = [r for r in records if needle in r.spoken().casefold()]
    page = records if paged_in_sql else records[flt.offset : flt.offset + flt.limit]
    return Records(page, found.damaged, found.unavailable)


def visible_scopes(request: Scope) -> list[str]:
    """The stored form (canonical JSON) of every scope visible to `request`.

    By the containment rule these are the request's subsets (`Scope.subsets`). A listing
    then cuts on the clear column with the `(scope_json, status)` index and pages in SQL,
    instead of parsing every row's scope (#13: `list_recent` with a limit of one read and
    decrypted every visible memory of a 10k store, 130 ms). The binding check of the rows
    read makes the cut exact: a clear scope changed by hand is damage.
    """
    return [subset.to_json() for subset in request.subsets()]


def _scope_matches(record: MemoryRecord, flt: MemoryFilter) -> bool:
    if flt.visible_to is not None and not record.scope.visible_to(flt.visible_to):
        return False
    return all(record.scope.get(k) == v for k, v in (flt.scope_contains or {}).items())


def count(conn: Connection, flt: MemoryFilter) -> int:
    """How many records match the metadata part of a filter (no text rule; visibility by the
    clear scope column, unchecked)."""
    q = _filtered(select(func.count()).select_from(s.memories), flt)
    return int(conn.execute(q).scalar_one())


def _effective(status: str, now: dt.datetime | None) -> Any:
    """SQL for one effective status: `expired` is active or pending with its time up."""
    moment = to_iso(now or dt.datetime.now(dt.UTC))
    expiring = (MemoryStatus.ACTIVE.value, MemoryStatus.CANDIDATE.value)
    lapsed = s.memories.c.expires_at.is_not(None) & (s.memories.c.expires_at <= moment)
    if status == "expired":
        return s.memories.c.status.in_(expiring) & lapsed
    if status in expiring:
        return (s.memories.c.status == status) & ~lapsed
    return s.memories.c.status == status


def _filtered(q: Any, flt: MemoryFilter) -> Any:
    """Apply every metadata condition of a filter (all in SQL)."""
    for condition in (*_attribute_conditions(flt), *_range_conditions(flt)):
        q = q.where(condition)
    return q


def _attribute_conditions(flt: MemoryFilter) -> list[Any]:
    out: list[Any] = []
    if flt.statuses:
        out.append(s.memories.c.status.in_(list(flt.statuses)))
    if flt.kinds:
        out.append(s.memories.c.kind.in_(list(flt.kinds)))
    if flt.source_trust:
        out.append(s.memories.c.source_trust.in_(list(flt.source_trust)))
    if flt.scope is not None:
        out.append(s.memories.c.scope_json == flt.scope.to_json())
    if flt.visible_to is not None:
        out.append(s.memories.c.scope_json.in_(visible_scopes(flt.visible_to)))
    if flt.effective_statuses:
        out.append(or_(*(_effective(st, flt.now) for st in flt.effective_statuses)))
    if flt.in_conflict_set:
        out.append(s.memories.c.conflict_set.is_not(None))
    for key, value in (flt.scope_contains or {}).items():
        having = select(s.memory_scopes.c.memory_id).where(
            (s.memory_scopes.c.key == key) & (s.memory_scopes.c.value == value)
        )
        out.append(s.memories.c.id.in_(having))
    return out


def _range_conditions(flt: MemoryFilter) -> list[Any]:
    out: list[Any] = []
    if flt.after is not None:
        moment, last_id = to_iso(flt.after[0]), flt.after[1]
        out.append(
            (s.memories.c.updated_at < moment)
            | ((s.memories.c.updated_at == moment) & (s.memories.c.id < last_id))
        )
    if flt.updated_from is not None:
        out.append(s.memories.c.updated_at >= to_iso(flt.updated_from))
    if flt.updated_to is not None:
        out.append(s.memories.c.updated_at < to_iso(flt.updated_to))
    return out


def in_scope(
    conn: Connection, codec: Codec, scope: Scope, statuses: Sequence[MemoryStatus]
) -> list[MemoryRecord]:
    """Records with exactly this scope in these statuses (duplicate and conflict checks)."""
    return query(
        conn,
        codec,
        MemoryFilter(statuses=tuple(x.value for x in statuses), scope=scope, limit=10_000),
    )


def visible(
    conn: Connection, codec: Codec, request: Scope, statuses: Sequence[MemoryStatus]
) -> list[MemoryRecord]:
    """Records whose scope the request may see (containment rule), in these statuses."""
    return query(
        conn,
        codec,
        MemoryFilter(
            statuses=tuple(x.value for x in statuses), visible_to=request, limit=1_000_000
        ),
    )
