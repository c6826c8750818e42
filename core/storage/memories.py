"""Persistence of curated memory: records, their encrypted revisions, sources and decisions.

Nothing is overwritten in place: an edit or a scope change adds a revision (the old content
stays, encrypted, until a purge); every status transition adds a decision row and a
`memory_decision` event to the log (R5). Decision events carry ids and statuses, never
content, so purging a memory never has to touch the hash-chained log.

This module writes records; reading them by id is in `memory_reads` (with the binding check
every read passes, `memory_rows`), lists by filter in `memory_queries`, a record's decisions
and revisions and the store as of a past revision in `memory_history`. Callers read all of
them through this module.
"""

from __future__ import annotations

import datetime as dt
import enum
import functools
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import Connection, Update, bindparam, delete, select, update

from core.crypto.codec import Aad, Codec
from core.errors import DamagedRowError, NotFoundError
from core.model.clock import to_iso
from core.model.enums import (
    Actor,
    ChangeKind,
    EventKind,
    MemoryFlag,
    MemoryKind,
    MemoryStatus,
    Sensitivity,
    TrustLevel,
)
from core.model.records import Decision, MemoryRecord
from core.model.scope import Scope
from core.model.sessions import GOVERNANCE_SESSION as GOVERNANCE_SESSION
from core.model.validate import ValidEvent
from core.storage import binding, event_log, governed, journal
from core.storage import schema as s
from core.storage.memory_reads import (
    active_rows,
    by_source_events,
    excluded_sessions,
    get,
    load,
    record_query,
    resolve_ref,
    session_state,
    source_ids,
)
from core.storage.memory_rows import (
    MISSING_CONTENT,
    PURGED_TEXT,
    checked,
    content_aad,
    from_row,
    provenance_problem,
    speaker_aad,
)
from core.storage.store import WriteTx, new_id


def reason_aad(decision_id: str) -> Aad:
    """Where a decision's reason ciphertext belongs."""
    return Aad("decisions", decision_id, "reason")


@dataclass(frozen=True)
class Draft:
    """A new record, as the policy decided it."""

    kind: MemoryKind
    content: str
    scope: Scope
    source_event_ids: tuple[str, ...]
    confidence: float
    status: MemoryStatus
    owner: str
    source_trust: TrustLevel
    fingerprint: str
    valid_from: dt.datetime
    expires_at: dt.datetime | None = None
    supersedes: str | None = None
    sensitivity: Sensitivity = Sensitivity.NONE
    flags: frozenset[str] = field(default_factory=frozenset)
    conflict_set: str | None = None
    speaker: str | None = None


def insert(tx: WriteTx, draft: Draft) -> MemoryRecord:
    """Insert a record with its first revision and sources; return it as stored.

    Nothing is read back: the binding is computed from the row as written, the record is
    built from it, and the rows are queued writes (`WriteTx.later`).
    """
    memory_id = new_id("mem", tx.now)
    row: dict[str, Any] = {
        "id": memory_id,
        "kind": draft.kind.value,
        "scope_json": draft.scope.to_json(),
        "status": draft.status.value,
        "confidence": float(draft.confidence),
        "created_at": tx.now_iso,
        "updated_at": tx.now_iso,
        "valid_from": to_iso(draft.valid_from),
        "expires_at": to_iso(draft.expires_at) if draft.expires_at else None,
        "supersedes": draft.supersedes,
        "superseded_by": None,
        "sensitivity": draft.sensitivity.value,
        "owner": draft.owner,
        "revision": 1,
        "source_trust": draft.source_trust.value,
        "flags_json": json.dumps(sorted(draft.flags)),
        "conflict_set": draft.conflict_set,
        "index_refs_json": "[]",
        "fingerprint": draft.fingerprint,
    }
    row[binding.BINDING_COLUMN] = binding.compute(tx.codec, row)
    tx.later_rows(s.memories, [row])
    tx.queued_memories[memory_id] = row
    journal.created(tx, memory_id)
    _insert_revision(tx, memory_id, 1, draft.content, draft.owner, draft.scope, draft.speaker)
    _index_scope(tx, memory_id, draft.scope)
    sources = tuple(sorted(dict.fromkeys(draft.source_event_ids)))
    if sources:
        tx.later_rows(s.memory_sources, [{"memory_id": memory_id, "event_id": e} for e in sources])
    tx.queued_sources[memory_id] = set(sources)
    tx.source_links[memory_id] = (True, set(sources))
    tx.touch(_change_kind(draft.status), memory_ids=(memory_id,))
    return from_row(row, draft.content, sources, draft.speaker)


def _insert_revision(
    tx: WriteTx,
    memory_id: str,
    revision: int,
    content: str,
    actor: str,
    scope: Scope,
    speaker: str | None,
) -> None:
    key_id = tx.key_for(scope.get("user"))
    row = {
        "memory_id": memory_id,
        "revision": revision,
        "ts": tx.now_iso,
        "actor": actor,
        "scope_json": scope.to_json(),
        "content": tx.codec.seal_text(content, content_aad(memory_id, revision), key_id=key_id),
        "store_revision": _pending_revision(tx),
        # Every column, always: a queued insert of several rows must name the same ones.
        "speaker": (
            tx.codec.seal_text(speaker, speaker_aad(memory_id, revision), key_id=key_id)
            if speaker
            else None
        ),
    }
    tx.later_rows(s.memory_revisions, [row])
    tx.revision_rows.setdefault(memory_id, []).append({name: row[name] for name in REVISION_FIELDS})


def add_revision(
    tx: WriteTx,
    record: MemoryRecord,
    *,
    actor: str,
    content: str | None = None,
    scope: Scope | None = None,
    fingerprint: str | None = None,
) -> int:
    """Store a new revision (edited content and/or scope); return its number."""
    journal.captured(tx, record.id)
    revision = record.revision + 1
    new_scope = scope or record.scope
    _insert_revision(
        tx, record.id, revision, content or record.content, actor, new_scope, record.speaker
    )
    values: dict[str, Any] = {
        "revision": revision,
        "scope_json": new_scope.to_json(),
        "updated_at": tx.now_iso,
    }
    if fingerprint:
        values["fingerprint"] = fingerprint
    tx.conn.execute(update(s.memories).where(s.memories.c.id == record.id).values(values))
    binding.rebind(tx.conn, tx.codec, record.id)
    if scope is not None and scope != record.scope:
        tx.conn.execute(delete(s.memory_scopes).where(s.memory_scopes.c.memory_id == record.id))
        _index_scope(tx, record.id, scope)
    tx.touch(ChangeKind.MEMORIES, memory_ids=(record.id,))
    return revision


def _index_scope(tx: WriteTx, memory_id: str, scope: Scope) -> None:
    tx.later_rows(
        s.memory_scopes, [{"memory_id": memory_id, "key": k, "value": v} for k, v in scope.items()]
    )


def add_sources(tx: WriteTx, memory_id: str, event_ids: Iterable[str]) -> None:
    """Link source events (merges add evidence this way).

    The links are queued, never sent at once (the source events themselves are usually
    still queued, and sending the queue early split a batch's inserts into small
    executemanys, #13). The record's links as they will be are kept in the transaction
    (`WriteTx.queued_sources`) until the queue is sent, so the next merge into the same
    record sees them without reading: the store holds every other link of a record this
    transaction has not inserted or linked yet.
    """
    have = tx.queued_sources.get(memory_id)
    if have is None:
        have = tx.queued_sources[memory_id] = set(
            tx.connection.execute(
                select(s.memory_sources.c.event_id).where(s.memory_sources.c.memory_id == memory_id)
            ).scalars()
        )
    fresh = [e for e in dict.fromkeys(event_ids) if e not in have]
    if fresh:
        tx.later_rows(s.memory_sources, [{"memory_id": memory_id, "event_id": e} for e in fresh])
        have.update(fresh)
        _created, linked = tx.source_links.setdefault(memory_id, (False, set()))
        linked.update(fresh)


def mark_superseded(tx: WriteTx, old: MemoryRecord, by: str) -> MemoryRecord:
    """`old` is superseded by memory `by`: status, link, and out of any conflict it was in.
    Returns the record as it now stands; the decision that says why is the caller's to
    record."""
    now = replace(
        old,
        status=MemoryStatus.SUPERSEDED,
        superseded_by=by,
        flags=old.flags - {MemoryFlag.CONFLICT},
        updated_at=tx.now,
    )
    update_fields(tx, old.id, status=now.status, superseded_by=by, flags=now.flags)
    return now


def update_fields(tx: WriteTx, memory_id: str, **values: Any) -> None:
    """Change metadata columns (status, flags, links, expiry) of a record."""
    journal.captured(tx, memory_id)
    if "flags" in values:
        values["flags_json"] = json.dumps(sorted(values.pop("flags")))
    for key in ("expires_at", "valid_from"):
        if isinstance(values.get(key), dt.datetime):
            values[key] = to_iso(values[key])
    # Every value as the column returns it: the binding is computed from these.
    values = {k: v.value if isinstance(v, enum.Enum) else v for k, v in values.items()}
    if "confidence" in values:
        values["confidence"] = float(values["confidence"])
    values["updated_at"] = tx.now_iso
    queued = tx.queued_memories.get(memory_id)
    if queued is not None and values.keys() <= queued.keys():
        # Inserted by this transaction and not sent yet: change the row in the queue. Sending
        # the queue first, to read and update the row, split a batch's inserts into small
        # executemanys: a third of this function's time in a big scope (#13).
        queued.update(values)
        queued[binding.BINDING_COLUMN] = binding.compute(tx.codec, queued)
        tx.touch(ChangeKind.MEMORIES, memory_ids=(memory_id,))
        return
    # The binding of the row as it will be, from its bound fields now and the new values:
    # one read and one write (an update, then a rebind that reads it back, was three, #13).
    # A row whose stored binding no longer verifies (changed by SQL) is refused, not
    # bound again.
    conn = tx.conn_for_memory(memory_id)
    bound = conn.execute(_BOUND_ROW, {"memory_id": memory_id}).mappings().first()
    if bound is not None:
        wrong = binding.problem(tx.codec, bound)
        if wrong is not None:
            raise DamagedRowError("binding", f"memory {memory_id} is damaged: {wrong}")
        values[binding.BINDING_COLUMN] = binding.compute(tx.codec, {**bound, **values})
    conn.execute(_update_of(frozenset(values)), {**values, "_memory_id": memory_id})
    tx.touch(ChangeKind.MEMORIES, memory_ids=(memory_id,))


@functools.lru_cache(maxsize=64)
def _update_of(columns: frozenset[str]) -> Update:
    """One prepared UPDATE per set of columns: building the statement and its cache key
    again at every superseded record was a tenth of `remember_many` into a big scope (#13)."""
    return (
        update(s.memories)
        .where(s.memories.c.id == bindparam("_memory_id"))
        .values({name: bindparam(name) for name in sorted(columns)})
    )


_BOUND_ROW = select(
    *(s.memories.c[name] for name in (*binding.BOUND_FIELDS, binding.BINDING_COLUMN))
).where(s.memories.c.id == bindparam("memory_id"))


def _announced_sources(tx: WriteTx, memory_id: str) -> dict[str, Any]:
    """The source links and revision rows this transaction wrote for a memory, for its
    decision event: `sources` (all of them: the memory was created here) or
    `sources_added` (a merge), and `revisions` (their clear fields)."""
    out: dict[str, Any] = {}
    revisions = tx.revision_rows.pop(memory_id, None)
    if revisions:
        out[REVISIONS_KEY] = revisions
    links = tx.source_links.pop(memory_id, None)
    if links is not None:
        created, ids = links
        out[SOURCES_KEY if created else SOURCES_ADDED_KEY] = sorted(ids)
    return out


SOURCES_KEY = "sources"
SOURCES_ADDED_KEY = "sources_added"
REVISIONS_KEY = "revisions"
REVISION_FIELDS = ("revision", "ts", "actor", "scope_json")


def announced_revisions(decisions: Iterable[Mapping[str, Any]]) -> dict[str, dict[int, Any]]:
    """Memory id -> revision -> its clear fields, as decision events announced them; only
    memories whose first revision was announced (made since #38)."""
    out: dict[str, dict[int, Any]] = {}
    for data in decisions:
        memory_id = str(data.get("memory_id"))
        for item in data.get(REVISIONS_KEY) or ():
            if not isinstance(item, dict) or not isinstance(item.get("revision"), int):
                continue
            if item["revision"] == 1:
                out[memory_id] = {}
            if memory_id in out:
                out[memory_id][item["revision"]] = item
    return out


def announced_links(decisions: Iterable[Mapping[str, Any]]) -> dict[str, set[str]]:
    """Memory id -> source event ids, as `memory_decision` event data announced them in
    log order; only memories whose creation announced its sources (made since #38)."""
    out: dict[str, set[str]] = {}
    for data in decisions:
        memory_id = str(data.get("memory_id"))
        full, added = data.get(SOURCES_KEY), data.get(SOURCES_ADDED_KEY)
        if isinstance(full, list):
            out[memory_id] = {str(e) for e in full}
        elif isinstance(added, list) and memory_id in out:
            out[memory_id].update(str(e) for e in added)
    return out


def announced_sources(conn: Connection, codec: Codec, memory_id: str) -> set[str] | None:
    """A memory's source events as its hash-chained decision events announced them (None:
    a memory made before they did, whose table rows are all there is)."""
    event_ids: list[Any] = list(
        conn.execute(
            select(s.decisions.c.event_id).where(s.decisions.c.memory_id == memory_id)
        ).scalars()
    )
    events = event_log.list_by_ids(conn, codec, [str(e) for e in event_ids if e])
    found = announced_links(e.data for e in events if e.kind == EventKind.MEMORY_DECISION)
    return found.get(memory_id)


def record_decision(
    tx: WriteTx,
    record: MemoryRecord,
    *,
    action: str,
    to_status: MemoryStatus,
    actor: str,
    reason: str,
    policy_version: str,
    from_status: MemoryStatus | None = None,
    user_action: bool = False,
) -> Decision:
    """Write a decision row and its `memory_decision` event (R5)."""
    decision_id = new_id("dec", tx.now)
    journal.decided(tx, record.id, action, actor)
    (event,) = event_log.append(
        tx,
        [
            ValidEvent(
                session=GOVERNANCE_SESSION,
                actor=Actor.USER if user_action else Actor.SYSTEM,
                trust=TrustLevel.USER if user_action else TrustLevel.TOOL_VERIFIED,
                scope=record.scope,
                text=f"memory {record.id}: {action} -> {to_status.value}",
                kind=EventKind.MEMORY_DECISION,
                source=None,
                data={
                    **_announced_sources(tx, record.id),
                    "memory_id": record.id,
                    "decision_id": decision_id,
                    "action": action,
                    "from": from_status.value if from_status else None,
                    "to": to_status.value,
                    "actor": actor,
                    "policy_version": policy_version,
                },
                refs=(),
                by=actor if user_action else None,
            )
        ],
    )
    revision_now = _pending_revision(tx)
    row = {
        "id": decision_id,
        "memory_id": record.id,
        "ts": tx.now_iso,
        "action": action,
        "from_status": from_status.value if from_status else None,
        "to_status": to_status.value,
        "actor": actor,
        "reason": tx.codec.seal_text(
            reason, reason_aad(decision_id), key_id=tx.key_for(record.scope.get("user"))
        ),
        "policy_version": policy_version,
        "store_revision": revision_now,
        "event_id": event.id,
    }
    tx.later_rows(s.decisions, [row])
    tx.touch(ChangeKind.MEMORIES, memory_ids=(record.id,))
    return Decision(
        id=decision_id,
        memory_id=record.id,
        ts=tx.now,
        action=action,
        from_status=from_status,
        to_status=to_status,
        actor=actor,
        reason=reason,
        policy_version=policy_version,
        store_revision=revision_now,
        event_id=event.id,
    )


def _pending_revision(tx: WriteTx) -> int:
    """The revision this transaction will commit as."""
    if tx.pending_revision is None:
        current: int = tx.conn.execute(select(s.store_revision.c.revision)).scalar_one()
        tx.pending_revision = int(current) + 1
    return tx.pending_revision


def _change_kind(status: MemoryStatus) -> ChangeKind:
    if status in (MemoryStatus.CANDIDATE, MemoryStatus.QUARANTINED):
        return ChangeKind.CANDIDATES
    return ChangeKind.MEMORIES


def lift_fence(tx: WriteTx, memory_id: str) -> int:
    """Lift the deletion fence of a memory; return how many fingerprints were lifted."""
    tx.fences_changed()
    # The standing fences as the MAC'd record says: a fence lifted outside Memory Center
    # still stands there, and is lifted here for real (`governed.py`).
    standing = [
        fp
        for fp, row in governed.recorded_or_table(tx.conn, tx.codec, governed.FENCES).items()
        if row.get("memory_id") == memory_id and row.get("lifted_at") is None
    ]
    if not standing:
        raise NotFoundError("deletion fence of memory", memory_id)
    for fp in standing:
        governed.note(tx, governed.FENCES, fp)
    tx.conn.execute(
        update(s.deletion_fences)
        .where(s.deletion_fences.c.fingerprint.in_(standing))
        .values(lifted_at=tx.now_iso)
    )
    lifted = len(standing)
    tx.touch(ChangeKind.POLICY, memory_ids=(memory_id,))
    return int(lifted)


# Read from here by callers: reading records (memory_reads.py) and opening rows
# (memory_rows.py).
__all__ = [
    "GOVERNANCE_SESSION",
    "MISSING_CONTENT",
    "PURGED_TEXT",
    "active_rows",
    "by_source_events",
    "checked",
    "content_aad",
    "excluded_sessions",
    "get",
    "load",
    "provenance_problem",
    "record_query",
    "resolve_ref",
    "session_state",
    "source_ids",
    "speaker_aad",
]
