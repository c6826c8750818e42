"""Settling what the judge could not: conflict sets and "possibly ..." reviews (#40, R9).

Three rules keep one click from losing a true fact:

- **Keep this** supersedes only the members that contradict the kept memory (judged again,
  pair by pair, with the reason written on each member's decision); a member that does not
  contradict it leaves the set and stays active;
- a member can be **taken out** of a set ("not in conflict"); a set left with one active
  member is settled;
- every resolution can be **undone**: the members' status, flags, set and supersede link
  before it are kept under the setting `undo-set:<set id>` (ids and flags only, no content)
  and put back by `undo_resolution`, as compensating decisions.

A candidate the judge sent to review as "possibly the same as / replaces / contradicts m:..."
gets one of four answers (`answer_possible`), each a decision in the log: same (merged into
the other, as more evidence), replaces (it becomes active and supersedes the other), both
true, unrelated (it becomes active beside the other).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from core.errors import InvalidInputError, InvalidStateError
from core.governance.judge import judge
from core.governance.policy import CONFIRMED, CONFLICT, NEEDS_CONFIRMATION, VERSION
from core.model.enums import MemoryStatus
from core.model.records import MemoryRecord
from core.storage import controls as rows
from core.storage import memories, settings
from core.storage.store import WriteTx

Similarity = Callable[[str, str], float | None]
ANSWERS = ("same", "replaces", "both_true", "unrelated")
_POSSIBLY = re.compile(r"possibly (the same as|replaces|contradicts) (\S+) \(")


def _key(conflict_set: str) -> str:
    return f"undo-set:{conflict_set}"


def decide(
    tx: WriteTx,
    record: MemoryRecord,
    action: str,
    to: MemoryStatus,
    actor: str,
    why: str,
    *,
    user_action: bool = True,
) -> None:
    """Record one decision of a resolution (the user's, unless `user_action` is False: the
    model judge's, `model_settle.py`)."""
    memories.record_decision(
        tx,
        record,
        action=action,
        from_status=record.status,
        to_status=to,
        actor=actor,
        reason=why,
        policy_version=VERSION,
        user_action=user_action,
    )


def _remember_before(tx: WriteTx, conflict_set: str, records: list[MemoryRecord]) -> None:
    settings.write(
        tx,
        _key(conflict_set),
        {
            r.id: {
                "status": r.status.value,
                "flags": sorted(r.flags),
                "superseded_by": r.superseded_by,
            }
            for r in records
        },
    )


def resolve_conflict(
    tx: WriteTx,
    keep: MemoryRecord,
    actor: str,
    reason: str | None,
    similarity: Similarity | None = None,
) -> list[str]:
    """Keep `keep`; supersede only the members that contradict it; the rest leave the set."""
    if not keep.conflict_set or CONFLICT not in keep.flags:
        raise InvalidStateError(f"memory {keep.id} is not in an unresolved conflict set")
    if keep.status != MemoryStatus.ACTIVE:
        raise InvalidStateError(f"cannot keep memory {keep.id}: it is {keep.status.value}")
    ids = rows.conflict_members(tx.conn, keep.conflict_set)
    members = memories.load(tx.conn, tx.codec, ids)
    _remember_before(tx, keep.conflict_set, members)
    why = reason or "conflict resolved by the user"
    changed = []
    for member in members:
        if member.id == keep.id:
            memories.update_fields(tx, keep.id, flags=(keep.flags - {CONFLICT}) | {CONFIRMED})
            decide(tx, keep, "resolve_conflict", MemoryStatus.ACTIVE, actor, f"kept: {why}")
        elif member.status == MemoryStatus.ACTIVE:
            sim = similarity(member.content, keep.content) if similarity else None
            found = judge(member.content, keep.content, sim)
            if found.kind in ("contradiction", "unsure"):
                memories.mark_superseded(tx, member, keep.id)
                decide(
                    tx,
                    member,
                    "resolve_conflict",
                    MemoryStatus.SUPERSEDED,
                    actor,
                    f"superseded by {keep.id}: {why} (contradicts it: {found.reason})",
                )
            else:
                memories.update_fields(
                    tx, member.id, flags=member.flags - {CONFLICT}, conflict_set=None
                )
                decide(
                    tx,
                    member,
                    "resolve_conflict",
                    member.status,
                    actor,
                    f"left active: does not contradict the kept {keep.id} ({found.kind})",
                )
        changed.append(member.id)
    return changed


def take_out(tx: WriteTx, record: MemoryRecord, actor: str) -> list[str]:
    """ "Not in conflict": `record` leaves its set; a set left with one member is settled."""
    if not record.conflict_set or CONFLICT not in record.flags:
        raise InvalidStateError(f"memory {record.id} is not in an unresolved conflict set")
    ids = rows.conflict_members(tx.conn, record.conflict_set)
    members = memories.load(tx.conn, tx.codec, ids)
    _remember_before(tx, record.conflict_set, members)
    memories.update_fields(tx, record.id, flags=record.flags - {CONFLICT}, conflict_set=None)
    decide(tx, record, "take_out", record.status, actor, "not in conflict (the user)")
    changed = [record.id]
    rest = [m for m in members if m.id != record.id and CONFLICT in m.flags]
    if len(rest) == 1:
        last = rest[0]
        memories.update_fields(tx, last.id, flags=last.flags - {CONFLICT})
        decide(tx, last, "take_out", last.status, actor, "no conflict left in its set")
        changed.append(last.id)
    return changed


def undo_resolution(tx: WriteTx, conflict_set: str, actor: str) -> list[str]:
    """Put a set's members back as they were before its latest resolution or take-out."""
    before = settings.read(tx.conn, _key(conflict_set))
    if not isinstance(before, dict) or not before:
        raise InvalidStateError(f"conflict set {conflict_set} has no resolution to undo")
    records = memories.load(tx.conn, tx.codec, list(before))
    for record in records:
        was = before[record.id]
        status = MemoryStatus(was["status"])
        memories.update_fields(
            tx,
            record.id,
            status=status,
            flags=frozenset(was["flags"]),
            conflict_set=conflict_set,
            superseded_by=was["superseded_by"],
        )
        decide(tx, record, "undo_resolve_conflict", status, actor, "resolution undone by the user")
    settings.remove(tx, _key(conflict_set))
    return [r.id for r in records]


def possible(reasons: str) -> tuple[str, str] | None:
    """("the same as" | "replaces" | "contradicts", other id) from a decision's reasons."""
    m = _POSSIBLY.search(reasons)
    return (m.group(1), m.group(2)) if m else None


def merge_into(
    tx: WriteTx,
    record: MemoryRecord,
    other: MemoryRecord,
    actor: str,
    action: str,
    why: str,
    why_other: str,
    *,
    user_action: bool = True,
) -> list[str]:
    """`record`, waiting for review, says the same as `other`: its sources join `other`'s as
    more evidence, it is rejected, and each of the two gets a decision (`action` for
    `record`, "merge" for `other`)."""
    memories.add_sources(tx, other.id, record.source_event_ids)
    memories.update_fields(tx, record.id, status=MemoryStatus.REJECTED)
    decide(tx, record, action, MemoryStatus.REJECTED, actor, why, user_action=user_action)
    decide(tx, other, "merge", other.status, actor, why_other, user_action=user_action)
    return [record.id, other.id]


def answer_possible(
    tx: WriteTx, record: MemoryRecord, other: MemoryRecord, answer: str, actor: str
) -> list[str]:
    """The user's answer to "possibly the same as / replaces / contradicts": one decision
    per memory changed."""
    if answer not in ANSWERS:
        raise InvalidInputError("answer", f"must be one of {', '.join(ANSWERS)}")
    if record.status != MemoryStatus.CANDIDATE:
        raise InvalidStateError(f"memory {record.id} is not waiting for review")
    if other.status not in (MemoryStatus.ACTIVE, MemoryStatus.CANDIDATE):
        raise InvalidStateError(f"memory {other.id} is {other.status.value}")
    if answer == "same":
        why_other = f"the same as {record.id}: merged"
        return merge_into(
            tx, record, other, actor, "answer_same", f"the same as {other.id}", why_other
        )
    flags = (record.flags - {NEEDS_CONFIRMATION}) | {CONFIRMED}
    memories.update_fields(tx, record.id, status=MemoryStatus.ACTIVE, flags=flags)
    what = {"replaces": f"replaces {other.id}", "both_true": f"both true with {other.id}"}
    why = what.get(answer, f"unrelated to {other.id}")
    decide(tx, record, f"answer_{answer}", MemoryStatus.ACTIVE, actor, why)
    if answer != "replaces":
        return [record.id]
    memories.mark_superseded(tx, other, record.id)
    decide(tx, other, "supersede", MemoryStatus.SUPERSEDED, actor, f"replaced by {record.id}")
    return [record.id, other.id]
