"""Persistence of curated memory: records, their encrypted revisions, sources and decisions.

Nothing is overwritten in place: an edit or a scope change adds a revision (the old content
stays, encrypted, until a purge); every status transition adds a decision row and a
`memory_decision` event to the log (R5). Decision events carry ids and statuses, never
content, so purging a memory never has to touch the hash-chained log.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import Connection, and_, delete, func, or_, select, update

from core.crypto.codec import Aad, Codec
from core.errors import DamagedRowError, InvalidInputError, NotFoundError
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
from core.model.memory import MemoryFilter
from core.model.records import Decision, MemoryRecord
from core.model.scope import Scope
from core.model.sessions import GOVERNANCE_SESSION as GOVERNANCE_SESSION
from core.model.validate import ValidEvent
from core.storage import binding, event_log
from core.storage import schema as s
from core.storage.damage import Damage, Records, guarded, split
from core.storage.store import WriteTx, new_id

PURGED_TEXT = ""


def content_aad(memory_id: str, revision: int) -> Aad:
    """Where one revision's content ciphertext belongs."""
    return Aad("memory_revisions", f"{memory_id}/{revision}", "content")


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


def insert(tx: WriteTx, draft: Draft) -> str:
    """Insert a record with its first revision and sources; return its id."""
    memory_id = new_id("mem", tx.now)
    tx.conn.execute(
        s.memories.insert().values(
            id=memory_id,
            kind=draft.kind.value,
            scope_json=draft.scope.to_json(),
            status=draft.status.value,
            confidence=draft.confidence,
            created_at=tx.now_iso,
            updated_at=tx.now_iso,
            valid_from=to_iso(draft.valid_from),
            expires_at=to_iso(draft.expires_at) if draft.expires_at else None,
            supersedes=draft.supersedes,
            sensitivity=draft.sensitivity.value,
            owner=draft.owner,
            revision=1,
            source_trust=draft.source_trust.value,
            flags_json=json.dumps(sorted(draft.flags)),
            conflict_set=draft.conflict_set,
            index_refs_json="[]",
            fingerprint=draft.fingerprint,
        )
    )
    _insert_revision(tx, memory_id, 1, draft.content, draft.owner, draft.scope)
    binding.rebind(tx.conn, tx.codec, memory_id)
    _index_scope(tx, memory_id, draft.scope)
    add_sources(tx, memory_id, draft.source_event_ids)
    tx.touch(_change_kind(draft.status), memory_ids=(memory_id,))
    return memory_id


def _insert_revision(
    tx: WriteTx, memory_id: str, revision: int, content: str, actor: str, scope: Scope
) -> None:
    tx.conn.execute(
        s.memory_revisions.insert().values(
            memory_id=memory_id,
            revision=revision,
            ts=tx.now_iso,
            actor=actor,
            scope_json=scope.to_json(),
            content=tx.codec.seal_text(
                content,
                content_aad(memory_id, revision),
                key_id=tx.key_for(scope.get("user")),
            ),
            store_revision=_pending_revision(tx),
        )
    )


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
    revision = record.revision + 1
    new_scope = scope or record.scope
    _insert_revision(tx, record.id, revision, content or record.content, actor, new_scope)
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
    tx.conn.execute(
        s.memory_scopes.insert(),
        [{"memory_id": memory_id, "key": k, "value": v} for k, v in scope.items()],
    )


def add_sources(tx: WriteTx, memory_id: str, event_ids: Iterable[str]) -> None:
    """Link source events (merges add evidence this way)."""
    have: set[str] = set(
        tx.conn.execute(
            select(s.memory_sources.c.event_id).where(s.memory_sources.c.memory_id == memory_id)
        ).scalars()
    )
    rows = [
        {"memory_id": memory_id, "event_id": e} for e in dict.fromkeys(event_ids) if e not in have
    ]
    if rows:
        tx.conn.execute(s.memory_sources.insert(), rows)


def update_fields(tx: WriteTx, memory_id: str, **values: Any) -> None:
    """Change metadata columns (status, flags, links, expiry) of a record."""
    if "flags" in values:
        values["flags_json"] = json.dumps(sorted(values.pop("flags")))
    for key in ("expires_at", "valid_from"):
        if isinstance(values.get(key), dt.datetime):
            values[key] = to_iso(values[key])
    if isinstance(values.get("status"), MemoryStatus):
        values["status"] = values["status"].value
    values["updated_at"] = tx.now_iso
    tx.conn.execute(update(s.memories).where(s.memories.c.id == memory_id).values(values))
    binding.rebind(tx.conn, tx.codec, memory_id)
    tx.touch(ChangeKind.MEMORIES, memory_ids=(memory_id,))


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
    tx.conn.execute(
        s.decisions.insert().values(
            id=decision_id,
            memory_id=record.id,
            ts=tx.now_iso,
            action=action,
            from_status=from_status.value if from_status else None,
            to_status=to_status.value,
            actor=actor,
            reason=tx.codec.seal_text(
                reason, reason_aad(decision_id), key_id=tx.key_for(record.scope.get("user"))
            ),
            policy_version=policy_version,
            store_revision=revision_now,
            event_id=event.id,
        )
    )
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
    rows = conn.execute(_record_query().where(s.memories.c.id.in_(list(ids)))).mappings().all()
    records = {r["id"]: r for r in rows}
    sources = _sources(conn, list(records))
    return split(_checked(records[i], codec, sources.get(i, ())) for i in ids if i in records)


def active_rows(conn: Connection) -> list[tuple[str, str, int]]:
    """(id, scope_json, revision) of every active record, from clear columns only.

    What the catalog needs at open to file ids under their scopes and to tell which keyword
    entries are stale, without decrypting anything. The clear values are not verified here:
    every record retrieval returns is read again through the binding check (`load`).
    """
    rows: Any = conn.execute(
        select(s.memories.c.id, s.memories.c.scope_json, s.memories.c.revision).where(
            s.memories.c.status == MemoryStatus.ACTIVE.value
        )
    ).all()
    return list(rows)


def query(conn: Connection, codec: Codec, flt: MemoryFilter) -> Records[MemoryRecord]:
    """Records matching a filter, newest first.

    Filters on clear metadata run in SQL, and so do LIMIT/OFFSET when no filter needs the
    decrypted content or the scope rule: then only the requested page is decrypted.
    """
    q = _filtered(_record_query(), flt)
    q = q.order_by(s.memories.c.updated_at.desc(), s.memories.c.id.desc())
    in_python = flt.visible_to is not None or bool(flt.text)
    if not in_python:
        q = q.limit(flt.limit).offset(flt.offset)
    rows = conn.execute(q).mappings().all()
    if flt.visible_to is not None:
        # A cheap first cut on the clear column; the binding check below makes it exact.
        rows = [r for r in rows if _maybe_visible(r["scope_json"], flt.visible_to)]
    sources = _sources(conn, [r["id"] for r in rows])
    found = split(_checked(r, codec, sources.get(r["id"], ())) for r in rows)
    # Scope rules run on the verified record, never on an unchecked clear column.
    records = [r for r in found if _scope_matches(r, flt)]
    if flt.text:
        needle = flt.text.casefold()
        records = [r for r in records if needle in r.content.casefold()]
    page = records[flt.offset : flt.offset + flt.limit] if in_python else records
    return Records(page, found.damaged)


def _maybe_visible(scope_json: str, request: Scope) -> bool:
    try:
        return Scope.from_json(scope_json).visible_to(request)
    except (ValueError, TypeError, InvalidInputError):
        return True  # unreadable: let the checked decode report it as damage


def _scope_matches(record: MemoryRecord, flt: MemoryFilter) -> bool:
    if flt.visible_to is not None and not record.scope.visible_to(flt.visible_to):
        return False
    return all(record.scope.get(k) == v for k, v in (flt.scope_contains or {}).items())


def count(conn: Connection, flt: MemoryFilter) -> int:
    """How many records match the metadata part of a filter (no text or visibility rule)."""
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
    if flt.effective_statuses:
        out.append(or_(*(_effective(st, flt.now) for st in flt.effective_statuses)))
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


def fenced(conn: Connection, fingerprint: str) -> str | None:
    """The deleted memory whose content this fingerprint matches, if the fence stands."""
    return conn.execute(
        select(s.deletion_fences.c.memory_id).where(
            and_(
                s.deletion_fences.c.fingerprint == fingerprint,
                s.deletion_fences.c.lifted_at.is_(None),
            )
        )
    ).scalar_one_or_none()


def lift_fence(tx: WriteTx, memory_id: str) -> int:
    """Lift the deletion fence of a memory; return how many fingerprints were lifted."""
    lifted = tx.conn.execute(
        update(s.deletion_fences)
        .where(
            (s.deletion_fences.c.memory_id == memory_id) & s.deletion_fences.c.lifted_at.is_(None)
        )
        .values(lifted_at=tx.now_iso)
    ).rowcount
    if not lifted:
        raise NotFoundError("deletion fence of memory", memory_id)
    tx.touch(ChangeKind.POLICY, memory_ids=(memory_id,))
    return int(lifted)


def history(conn: Connection, codec: Codec, memory_id: str) -> list[Decision]:
    """Every decision about a record, oldest first."""
    # Store revision, then log position: decisions of one transaction keep their order
    # even when they share a timestamp.
    rows = conn.execute(
        select(s.decisions)
        .outerjoin(s.events, s.events.c.id == s.decisions.c.event_id)
        .where(s.decisions.c.memory_id == memory_id)
        .order_by(s.decisions.c.store_revision, s.events.c.position, s.decisions.c.id)
    ).mappings()
    return [
        Decision(
            id=r["id"],
            memory_id=r["memory_id"],
            ts=from_iso(r["ts"]),
            action=r["action"],
            from_status=MemoryStatus(r["from_status"]) if r["from_status"] else None,
            to_status=MemoryStatus(r["to_status"]),
            actor=r["actor"],
            reason=codec.open_text(r["reason"], reason_aad(r["id"])),
            policy_version=r["policy_version"],
            store_revision=r["store_revision"],
            event_id=r["event_id"],
        )
        for r in rows
    ]


def revisions(
    conn: Connection, codec: Codec, memory_id: str
) -> list[tuple[int, dt.datetime, str, Scope, str]]:
    """(revision, ts, actor, scope, content) of every stored revision, oldest first."""
    rows = conn.execute(
        select(s.memory_revisions)
        .where(s.memory_revisions.c.memory_id == memory_id)
        .order_by(s.memory_revisions.c.revision)
    ).mappings()
    out = []
    for r in rows:
        blob = r["content"]
        text = codec.open_text(blob, content_aad(memory_id, r["revision"])) if blob else PURGED_TEXT
        out.append(
            (r["revision"], from_iso(r["ts"]), r["actor"], Scope.from_json(r["scope_json"]), text)
        )
    return out


def excluded_sessions(conn: Connection, memory_ids: Sequence[str], session: str) -> set[str]:
    """Which of these memories the user excluded from this session."""
    if not memory_ids:
        return set()
    rows: Iterable[str] = conn.execute(
        select(s.memory_exclusions.c.memory_id).where(
            and_(
                s.memory_exclusions.c.session_id == session,
                s.memory_exclusions.c.memory_id.in_(list(memory_ids)),
            )
        )
    ).scalars()
    return set(rows)


def session_state(conn: Connection, session: str) -> tuple[bool, frozenset[str]]:
    """(opted out?, ids of memories excluded from it) for one session."""
    opted = conn.execute(
        select(s.sessions.c.opted_out).where(s.sessions.c.id == session)
    ).scalar_one_or_none()
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


def _record_query() -> Any:
    return select(s.memories, s.memory_revisions.c.content).join(
        s.memory_revisions,
        and_(
            s.memory_revisions.c.memory_id == s.memories.c.id,
            s.memory_revisions.c.revision == s.memories.c.revision,
        ),
    )


def _sources(conn: Connection, ids: list[str]) -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for chunk_start in range(0, len(ids), 900):
        chunk = ids[chunk_start : chunk_start + 900]
        rows = conn.execute(
            select(s.memory_sources.c.memory_id, s.memory_sources.c.event_id)
            .where(s.memory_sources.c.memory_id.in_(chunk))
            .order_by(s.memory_sources.c.event_id)
        ).all()
        for mid, eid in rows:
            out.setdefault(str(mid), []).append(str(eid))
    return {k: tuple(v) for k, v in out.items()}


def _checked(
    row: Mapping[Any, Any], codec: Codec, sources: tuple[str, ...]
) -> MemoryRecord | Damage:
    """Decode a row only if its binding verifies; any failure is damage of that row."""

    def decode() -> MemoryRecord:
        wrong = binding.problem(codec, row)
        if wrong is not None:
            raise DamagedRowError("binding", wrong)
        return _to_record(row, codec, sources)

    return guarded("memories", str(row["id"]), "content", decode)


@functools.lru_cache(maxsize=4096)
def _scope(scope_json: str) -> Scope:
    # Scopes are few and immutable: parsing and validating each row's JSON again was a
    # third of the cost of reading a record (#13).
    return Scope.from_json(scope_json)


def _to_record(row: Mapping[Any, Any], codec: Codec, sources: tuple[str, ...]) -> MemoryRecord:
    blob = row["content"]
    content = (
        codec.open_text(blob, content_aad(row["id"], row["revision"])) if blob else PURGED_TEXT
    )
    expires = row["expires_at"]
    return MemoryRecord(
        id=row["id"],
        kind=MemoryKind(row["kind"]),
        content=content,
        scope=_scope(row["scope_json"]),
        source_event_ids=sources,
        confidence=float(row["confidence"]),
        status=MemoryStatus(row["status"]),
        created_at=from_iso(row["created_at"]),
        updated_at=from_iso(row["updated_at"]),
        valid_from=from_iso(row["valid_from"]),
        expires_at=from_iso(expires) if expires else None,
        supersedes=row["supersedes"],
        sensitivity=Sensitivity(row["sensitivity"]),
        owner=row["owner"],
        revision=int(row["revision"]),
        source_trust=TrustLevel(row["source_trust"]),
        flags=frozenset(json.loads(row["flags_json"])),
        conflict_set=row["conflict_set"],
        index_refs=tuple(json.loads(row["index_refs_json"])),
        superseded_by=row["superseded_by"],
    )


def state_at(conn: Connection, codec: Codec, revision: int) -> list[MemoryRecord]:
    """Memory as it stood at a past store revision, rebuilt from history and decisions (R21).

    Status comes from the last decision at or before `revision`; content and scope from the
    last stored revision at or before it. Purged content stays purged.
    """
    decided: dict[str, str] = {}
    for mid, status in conn.execute(
        select(s.decisions.c.memory_id, s.decisions.c.to_status)
        .outerjoin(s.events, s.events.c.id == s.decisions.c.event_id)
        .where(s.decisions.c.store_revision <= revision)
        .order_by(s.decisions.c.store_revision, s.events.c.position, s.decisions.c.id)
    ).all():
        decided[str(mid)] = str(status)
    out = []
    for record in load(conn, codec, list(decided)):
        row = (
            conn.execute(
                select(s.memory_revisions)
                .where(
                    (s.memory_revisions.c.memory_id == record.id)
                    & (s.memory_revisions.c.store_revision <= revision)
                )
                .order_by(s.memory_revisions.c.revision.desc())
                .limit(1)
            )
            .mappings()
            .first()
        )
        if row is None:
            continue
        blob = row["content"]
        content = (
            codec.open_text(blob, content_aad(record.id, row["revision"])) if blob else PURGED_TEXT
        )
        out.append(
            replace(
                record,
                status=MemoryStatus(decided[record.id]),
                content=content,
                scope=Scope.from_json(row["scope_json"]),
                revision=int(row["revision"]),
            )
        )
    return out
