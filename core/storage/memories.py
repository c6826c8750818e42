"""Persistence of curated memory: records, their encrypted revisions, sources and decisions.

Nothing is overwritten in place: an edit or a scope change adds a revision (the old content
stays, encrypted, until a purge); every status transition adds a decision row and a
`memory_decision` event to the log (R5). Decision events carry ids and statuses, never
content, so purging a memory never has to touch the hash-chained log.

This module writes records and reads them by id (with the binding check every read passes);
lists by filter are in `memory_queries`, a record's decisions and revisions and the store
as of a past revision in `memory_history`.
"""

from __future__ import annotations

import datetime as dt
import enum
import functools
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Update, and_, bindparam, delete, func, select, update

from core.crypto.codec import Aad, Codec, read_header
from core.errors import DamagedRowError, NotFoundError
from core.model.clock import from_iso, to_iso
from core.model.enums import (
    Actor,
    ChangeKind,
    EventKind,
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
from core.storage.damage import Damage, Records, guarded, split
from core.storage.engine import chunks
from core.storage.store import WriteTx, new_id

PURGED_TEXT = ""
NO_FLAGS: frozenset[str] = frozenset()


def content_aad(memory_id: str, revision: int) -> Aad:
    """Where one revision's content ciphertext belongs."""
    return Aad("memory_revisions", f"{memory_id}/{revision}", "content")


def speaker_aad(memory_id: str, revision: int) -> Aad:
    """Where one revision's speaker ciphertext belongs."""
    return Aad("memory_revisions", f"{memory_id}/{revision}", "speaker")


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
    return _from_row(row, draft.content, sources, draft.speaker)


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


# --- reading ------------------------------------------------------------------------


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


def checked(
    row: Mapping[Any, Any], codec: Codec, sources: tuple[str, ...]
) -> MemoryRecord | Damage:
    """Decode a row only if its binding verifies; any failure is damage of that row."""

    def decode() -> MemoryRecord:
        wrong = binding.problem(codec, row)
        if wrong is not None:
            raise DamagedRowError("binding", wrong)
        if codec.shared:
            forged = provenance_problem(row, codec)
            if forged is not None:
                raise DamagedRowError(*forged)
        return _to_record(row, codec, sources)

    return guarded("memories", str(row["id"]), "content", decode)


def provenance_problem(row: Mapping[Any, Any], codec: Codec) -> tuple[str, str] | None:
    """On a team store, why a row was not written by someone entitled to write it, as
    (field, problem); None when its provenance holds (#41).

    A teammate holds the team key and can write any row by hand. What they cannot do is
    record a decision through Memory Center for another member's private scope, nor seal
    with that member's personal key. So a row is served only when a decision about it is
    recorded, and a `user=X` row only when, for a device of X (which holds X's key), its
    content is sealed with X's personal key.
    """
    if "decided" in row and not row["decided"]:
        return "status", "no decision about this memory is recorded in the log"
    user = _scope(row["scope_json"]).get("user")
    own = codec.key_for(user)
    blob = row["content"]
    if own is not None and blob and read_header(bytes(blob)).key_id != own:
        return "content", (
            f"a memory of the private scope user={user} not sealed with {user}'s personal "
            "key: written by someone who does not hold it"
        )
    return None


@functools.lru_cache(maxsize=4096)
def _scope(scope_json: str) -> Scope:
    # Scopes are few and immutable: parsing and validating each row's JSON again was a
    # third of the cost of reading a record (#13).
    return Scope.from_json(scope_json)


MISSING_CONTENT = (
    "the content of the current revision is missing (NULL) although the memory was not "
    "purged: removed outside Memory Center"
)


def _to_record(row: Mapping[Any, Any], codec: Codec, sources: tuple[str, ...]) -> MemoryRecord:
    blob = row["content"]
    if blob is None and row["status"] != MemoryStatus.DELETED.value:
        # Only a purge (of a deleted memory) empties content: anything else is damage,
        # never a blank memory served as if it were one (#38).
        raise DamagedRowError("content", MISSING_CONTENT)
    content = (
        codec.open_text(blob, content_aad(row["id"], row["revision"])) if blob else PURGED_TEXT
    )
    sealed = row["speaker"]
    speaker = codec.open_text(sealed, speaker_aad(row["id"], row["revision"])) if sealed else None
    return _from_row(row, content, sources, speaker)


def _flags(flags_json: str) -> frozenset[str]:
    # Most records have none: one shared empty set instead of ~200 bytes each (#13).
    flags = json.loads(flags_json)
    return frozenset(flags) if flags else NO_FLAGS


def _from_row(
    row: Mapping[Any, Any], content: str, sources: tuple[str, ...], speaker: str | None = None
) -> MemoryRecord:
    expires = row["expires_at"]
    # A record's three times are often the same instant: one object for equal strings.
    times: dict[str, dt.datetime] = {}
    created, updated, valid = (
        times.get(t) or times.setdefault(t, from_iso(t))
        for t in (row["created_at"], row["updated_at"], row["valid_from"])
    )
    return MemoryRecord(
        id=row["id"],
        kind=MemoryKind(row["kind"]),
        content=content,
        scope=_scope(row["scope_json"]),
        source_event_ids=sources,
        confidence=float(row["confidence"]),
        status=MemoryStatus(row["status"]),
        created_at=created,
        updated_at=updated,
        valid_from=valid,
        expires_at=from_iso(expires) if expires else None,
        supersedes=row["supersedes"],
        sensitivity=Sensitivity(row["sensitivity"]),
        owner=sys.intern(row["owner"]),
        revision=int(row["revision"]),
        source_trust=TrustLevel(row["source_trust"]),
        flags=_flags(row["flags_json"]),
        conflict_set=row["conflict_set"],
        index_refs=tuple(json.loads(row["index_refs_json"])),
        superseded_by=row["superseded_by"],
        speaker=speaker,
    )
