"""What the model judge's answer does to a "possibly …" review item (#40).

The model decides the relation; trust decides what follows, as for the rule judge's
relations (`policy._contradiction`), and every step is a decision in the log with the model's
name, its answer and its reason (actor ``model judge (<model>)``):

- the pending memory acts only if its own sources made it active before the relation was in
  doubt (the user's word, a tool-verified fact: `policy.EARNED_ACTIVE`); an agent's
  suggestion stays for the user whatever the model says, with the model's opinion noted;
- **same**: merged into the other as more evidence (nothing is lost: the other keeps its
  words, and both sources);
- **replaces**: active, superseding the other when its authority is at least the other's (or
  the other is itself pending); else left for the user;
- **contradicts**: supersedes a lower authority, joins a conflict set with an equal one (both
  kept until the user decides), and is left for the user against a higher one;
- **compatible**: active beside the other;
- **unsure**: left for the user.

Nothing here marks a memory user-confirmed: a model's answer is not the user's.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.governance.authority import authority
from core.governance.model_judge import ModelAnswer
from core.governance.policy import (
    CONFLICT,
    EARNED_ACTIVE,
    NEEDS_CONFIRMATION,
    STATED_FOR_REVIEW,
)
from core.governance.resolution import decide, merge_into
from core.model.enums import MemoryStatus
from core.model.records import Decision, MemoryRecord
from core.storage import memories
from core.storage.store import WriteTx, new_id

LIVE = (MemoryStatus.ACTIVE, MemoryStatus.CANDIDATE)


@dataclass(frozen=True)
class Settled:
    """What happened to one review item.

    Attributes:
        memory_id: the pending memory; other_id: the memory it was compared with.
        asked: the rule judge's doubt ("the same as", "replaces", "contradicts").
        answer: the model's relation ("" when it could not answer).
        outcome: merged, replaced, conflict, active, left for review, skipped, or failed.
        reason: the model's reason, or why nothing was done.
    """

    memory_id: str
    other_id: str
    asked: str
    answer: str
    outcome: str
    reason: str


def earned_active(history: list[Decision]) -> bool:
    """True when the memory's sources made it active at first (before the doubt)."""
    first = history[0].reason if history else ""
    return first.startswith(EARNED_ACTIVE) and not first.startswith(STATED_FOR_REVIEW)


def apply(
    tx: WriteTx,
    record: MemoryRecord,
    other: MemoryRecord,
    asked: str,
    answer: ModelAnswer,
    earned: bool,
) -> tuple[Settled, list[str]]:
    """Apply one answer; returns what happened and the ids of the memories changed."""

    def done(outcome: str, why: str = answer.why) -> Settled:
        return Settled(record.id, other.id, asked, answer.relation, outcome, why)

    if record.status != MemoryStatus.CANDIDATE or NEEDS_CONFIRMATION not in record.flags:
        return done("skipped", "no longer waiting for review"), []
    if other.status not in LIVE:
        return done("skipped", f"{other.id} is {other.status.value}"), []
    actor = f"model judge ({answer.model})"
    said = f'{actor} answered "{answer.relation}": {answer.why}'
    higher = authority(record) > authority(other)
    at_least = higher or authority(record) == authority(other)
    if not earned or answer.relation == "unsure":
        why = "an agent's suggestion waits for you" if not earned else "the model is not sure"
        _note(tx, record, "model_opinion", record.status, actor, f"{said}; left for you: {why}")
        return done("left for review", why), [record.id]
    if answer.relation == "same":
        why, why_other = f"{said}; the same as {other.id}", f"{said}; {record.id} merged"
        changed = merge_into(
            tx, record, other, actor, "model_same", why, why_other, user_action=False
        )
        return done("merged"), changed
    if answer.relation == "compatible":
        _activate(tx, record, actor, f"{said}; both kept beside {other.id}")
        return done("active"), [record.id]
    replaces = answer.relation == "replaces"
    if (replaces and (at_least or other.status == MemoryStatus.CANDIDATE)) or higher:
        _activate(tx, record, actor, f"{said}; replaces {other.id}")
        memories.mark_superseded(tx, other, record.id)
        why = f"{said}; replaced by {record.id}"
        _note(tx, other, "supersede", MemoryStatus.SUPERSEDED, actor, why)
        return done("replaced"), [record.id, other.id]
    if not replaces and at_least and other.status == MemoryStatus.ACTIVE:
        group = other.conflict_set or new_id("cs", tx.now)
        flags = (record.flags - {NEEDS_CONFIRMATION}) | {CONFLICT}
        memories.update_fields(
            tx, record.id, status=MemoryStatus.ACTIVE, flags=flags, conflict_set=group
        )
        why = f"{said}; conflicts with {other.id}"
        _note(tx, record, "model_contradicts", MemoryStatus.ACTIVE, actor, why)
        memories.update_fields(tx, other.id, flags=other.flags | {CONFLICT}, conflict_set=group)
        return done("conflict"), [record.id, other.id]
    why = f"{other.id} has more authority: your call"
    _note(tx, record, "model_opinion", record.status, actor, f"{said}; left for you: {why}")
    return done("left for review", why), [record.id]


def _activate(tx: WriteTx, record: MemoryRecord, actor: str, why: str) -> None:
    flags = record.flags - {NEEDS_CONFIRMATION}
    memories.update_fields(tx, record.id, status=MemoryStatus.ACTIVE, flags=flags)
    _note(tx, record, "model_relation", MemoryStatus.ACTIVE, actor, why)


def _note(
    tx: WriteTx, record: MemoryRecord, action: str, to: MemoryStatus, actor: str, why: str
) -> None:
    decide(tx, record, action, to, actor, why, user_action=False)
