"""The user's controls over memory (R9, R22, R25, R26). Each one writes a decision.

Every function runs inside the caller's write transaction, checks that the record's status
allows the action (`InvalidStateError` otherwise), changes the record without overwriting
history, and records the decision with actor, reason and policy version.
"""

from __future__ import annotations

from collections.abc import Iterable

from core.errors import InvalidInputError, InvalidStateError
from core.governance.policy import (
    CONFIRMED,
    CONFLICT,
    NEEDS_CONFIRMATION,
    REDACTED,
    STALE,
    VERSION,
)
from core.governance.sensitivity import finding_types, scan
from core.governance.text import fingerprint
from core.model import limits
from core.model.enums import ChangeKind, MemoryFlag, MemoryStatus
from core.model.records import MemoryRecord
from core.model.scope import Scope
from core.model.validate import text as valid_text
from core.storage import controls as rows
from core.storage import memories
from core.storage.store import WriteTx

EXPIRY_FLAG = MemoryFlag.POLICY_TTL


def _require(
    record: MemoryRecord, allowed: Iterable[MemoryStatus], action: str, now_status: str
) -> None:
    allowed = tuple(allowed)
    if record.status not in allowed or (now_status == "expired" and action != "reject"):
        names = ", ".join(a.value for a in allowed)
        raise InvalidStateError(
            f"cannot {action} memory {record.id}: it is {now_status}; {action} needs {names}"
        )


def _decide(
    tx: WriteTx,
    record: MemoryRecord,
    action: str,
    to_status: MemoryStatus,
    actor: str,
    reason: str,
) -> None:
    memories.record_decision(
        tx,
        record,
        action=action,
        from_status=record.status,
        to_status=to_status,
        actor=actor,
        reason=reason,
        policy_version=VERSION,
        user_action=True,
    )


def approve(tx: WriteTx, record: MemoryRecord, actor: str, status_now: str) -> None:
    """A candidate (or a checked quarantined item) becomes active and confirmed."""
    _require(record, (MemoryStatus.CANDIDATE, MemoryStatus.QUARANTINED), "approve", status_now)
    flags = (record.flags - {NEEDS_CONFIRMATION, EXPIRY_FLAG}) | {CONFIRMED}
    values: dict[str, object] = {"status": MemoryStatus.ACTIVE, "flags": flags}
    if EXPIRY_FLAG in record.flags:
        # The TTL was the policy's wait for review, not the user's validity: approval ends it.
        values["expires_at"] = None
    memories.update_fields(tx, record.id, **values)
    _decide(tx, record, "approve", MemoryStatus.ACTIVE, actor, "approved by the user")


def reject(
    tx: WriteTx, record: MemoryRecord, actor: str, reason: str | None, status_now: str
) -> None:
    """A pending candidate is rejected (kept in the ledger so it is not suggested again)."""
    _require(record, (MemoryStatus.CANDIDATE, MemoryStatus.QUARANTINED), "reject", status_now)
    memories.update_fields(tx, record.id, status=MemoryStatus.REJECTED)
    _decide(tx, record, "reject", MemoryStatus.REJECTED, actor, reason or "rejected by the user")


def edit(tx: WriteTx, record: MemoryRecord, new_text: str, actor: str) -> None:
    """New content as a new revision; the old one stays in history until a purge."""
    if record.status in (MemoryStatus.DELETED, MemoryStatus.REJECTED, MemoryStatus.SUPERSEDED):
        raise InvalidStateError(f"cannot edit memory {record.id}: it is {record.status.value}")
    content = valid_text(new_text, "new_text", limits.MAX_MEMORY_TEXT)
    if content == record.content:
        return  # nothing changes: no revision, no decision
    findings = scan(content)
    if findings:
        raise InvalidInputError(
            "new_text",
            f"contains sensitive data ({', '.join(finding_types(findings))}); not stored",
        )
    memories.add_revision(
        tx,
        record,
        actor=actor,
        content=content,
        fingerprint=fingerprint(tx.codec.fingerprint_key_for(record.scope.get("user")), content),
    )
    memories.update_fields(tx, record.id, flags=record.flags - {STALE, REDACTED} | {CONFIRMED})
    _decide(
        tx, record, "edit", record.status, actor, f"content edited (revision {record.revision + 1})"
    )


def change_scope(
    tx: WriteTx, record: MemoryRecord, new_scope: Scope, actor: str, direction: str
) -> None:
    """Downgrade (narrow) or widen a memory's scope; the record keeps its history."""
    if record.status in (MemoryStatus.DELETED, MemoryStatus.REJECTED):
        raise InvalidStateError(
            f"cannot change the scope of memory {record.id}: it is {record.status.value}"
        )
    if direction == "downgrade" and not new_scope.narrows(record.scope):
        raise InvalidInputError(
            "scope", f"a downgrade must keep every key of {record.scope} and add at least one"
        )
    if direction == "widen" and not record.scope.narrows(new_scope):
        raise InvalidInputError("scope", f"widening must drop keys of {record.scope}, adding none")
    memories.add_revision(tx, record, actor=actor, scope=new_scope)
    if direction == "widen":
        memories.update_fields(tx, record.id, flags=record.flags - {NEEDS_CONFIRMATION})
    _decide(tx, record, direction, record.status, actor, f"scope {record.scope} -> {new_scope}")


def disable(tx: WriteTx, record: MemoryRecord, actor: str, reason: str | None) -> None:
    """Kept but never injected or returned."""
    if record.status != MemoryStatus.ACTIVE:
        raise InvalidStateError(f"cannot disable memory {record.id}: it is {record.status.value}")
    memories.update_fields(tx, record.id, status=MemoryStatus.DISABLED)
    _decide(tx, record, "disable", MemoryStatus.DISABLED, actor, reason or "disabled by the user")


def enable(tx: WriteTx, record: MemoryRecord, actor: str) -> None:
    """A disabled memory becomes active again."""
    if record.status != MemoryStatus.DISABLED:
        raise InvalidStateError(f"cannot enable memory {record.id}: it is {record.status.value}")
    memories.update_fields(tx, record.id, status=MemoryStatus.ACTIVE)
    _decide(tx, record, "enable", MemoryStatus.ACTIVE, actor, "re-enabled by the user")


def exclude(tx: WriteTx, record: MemoryRecord, session: str, actor: str) -> None:
    """Keep this memory out of one session's injections; it stays active elsewhere."""
    if record.status in (MemoryStatus.DELETED,):
        raise InvalidStateError(f"cannot exclude memory {record.id}: it is deleted")
    rows.add_exclusion(tx, record.id, session, actor)
    tx.touch(ChangeKind.MEMORIES, memory_ids=(record.id,))
    _decide(tx, record, "exclude", record.status, actor, f"excluded from session {session}")


def include(tx: WriteTx, record: MemoryRecord, session: str, actor: str) -> None:
    """Undo `exclude`: the memory may be injected into that session again."""
    removed = rows.remove_exclusion(tx, record.id, session)
    if not removed:
        raise InvalidStateError(f"memory {record.id} is not excluded from session {session}")
    tx.touch(ChangeKind.MEMORIES, memory_ids=(record.id,))
    _decide(tx, record, "include", record.status, actor, f"included again in session {session}")


def quarantine(tx: WriteTx, record: MemoryRecord, reason: str, actor: str) -> None:
    """Incident action: stop injection everywhere at once (R22)."""
    if record.status in (MemoryStatus.DELETED, MemoryStatus.QUARANTINED):
        raise InvalidStateError(
            f"cannot quarantine memory {record.id}: it is {record.status.value}"
        )
    memories.update_fields(tx, record.id, status=MemoryStatus.QUARANTINED)
    _decide(tx, record, "quarantine", MemoryStatus.QUARANTINED, actor, reason)


def keep_all(
    tx: WriteTx,
    scopes: dict[str, Scope | None],
    actor: str,
    reason: str | None,
) -> list[str]:
    """Settle a conflict set by keeping every member, each optionally narrowed to its own scope.

    "Both are true, in different places" (split by scope) or simply "both are true". Every
    active member of the set must be named, so nothing is settled by omission.
    """
    records = [memories.get(tx.conn, tx.codec, mid) for mid in scopes]
    sets = {r.conflict_set for r in records}
    if len(sets) != 1 or None in sets or any(CONFLICT not in r.flags for r in records):
        raise InvalidStateError("these memories are not one unresolved conflict set")
    active = rows.conflict_members(tx.conn, str(records[0].conflict_set), active_only=True)
    missing = set(active) - scopes.keys()
    if missing:
        raise InvalidInputError("scopes", f"name every active member; missing {sorted(missing)}")
    why = reason or "both kept by the user"
    for record in records:
        new_scope = scopes[record.id]
        if new_scope is not None and new_scope != record.scope:
            change_scope(tx, record, new_scope, actor, "downgrade")
        current = memories.get(tx.conn, tx.codec, record.id)
        memories.update_fields(tx, record.id, flags=(current.flags - {CONFLICT}) | {CONFIRMED})
        _decide(tx, current, "resolve_conflict", current.status, actor, f"kept: {why}")
    return list(scopes)


def mark_stale(
    tx: WriteTx, record: MemoryRecord, event_id: str, actor: str, relation: str = ""
) -> None:
    """A fresh verified observation contradicts this memory: flag and downrank it (R10)."""
    memories.update_fields(tx, record.id, flags=record.flags | {STALE})
    why = f"contradicted by observation {event_id}" + (f": {relation}" if relation else "")
    _decide(tx, record, "observe", record.status, actor, why)


def settle_guess(tx: WriteTx, record: MemoryRecord, event_id: str, relation: str) -> None:
    """A verified observation contradicts a pending guess: the guess is rejected (R10)."""
    memories.update_fields(tx, record.id, status=MemoryStatus.REJECTED)
    memories.record_decision(
        tx,
        record,
        action="observe",
        from_status=record.status,
        to_status=MemoryStatus.REJECTED,
        actor="observation",
        reason=f"pending guess rejected: contradicted by observation {event_id}: {relation}",
        policy_version=VERSION,
    )


EXPIRED_FLAG = MemoryFlag.EXPIRED


def sweep_expired(tx: WriteTx) -> list[str]:
    """Write one `expire` decision per record whose expiry has passed; return their ids."""
    expired = rows.expired_ids(tx.conn, tx.now_iso)
    swept = []
    for record in memories.load(tx.conn, tx.codec, expired):
        if EXPIRED_FLAG in record.flags:
            continue
        memories.update_fields(tx, record.id, flags=record.flags | {EXPIRED_FLAG})
        memories.record_decision(
            tx,
            record,
            action="expire",
            from_status=record.status,
            to_status=record.status,
            actor="system",
            reason=f"validity ended at {record.expires_at}",
            policy_version=VERSION,
        )
        swept.append(record.id)
    return swept
