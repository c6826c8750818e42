"""Operations on one memory: review, scope, disable, exclude, quarantine, delete (R25, R26)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core import MemoryRecord, QuarantineReport, Tombstone
from core.model import commands as c

from ui.context import UiContext
from ui.ops import MutatingOp, mutate

DESKTOP = c.Origin("desktop")


def approve_candidate(ctx: UiContext, memory_id: str) -> MutatingOp[MemoryRecord]:
    """Confirm a suggested (or checked quarantined) memory."""
    return mutate(ctx, lambda s: s.commands.run(c.Approve(memory_id), DESKTOP))


def edit_and_approve(ctx: UiContext, memory_id: str, text: str) -> MutatingOp[MemoryRecord]:
    """Change the wording as a new revision and confirm it: one core operation, one
    transaction, one change set."""
    return mutate(ctx, lambda s: s.commands.run(c.EditAndApprove(memory_id, text), DESKTOP))


def rescope_and_approve(
    ctx: UiContext, record: MemoryRecord, scope: Mapping[str, str]
) -> MutatingOp[MemoryRecord]:
    """Give a candidate a narrower (or, confirmed by the user, wider) scope and confirm it;
    the core decides which of the two the new scope is."""
    return mutate(ctx, lambda s: s.commands.run(c.RescopeAndApprove(record.id, scope), DESKTOP))


def reject_candidate(ctx: UiContext, memory_id: str, reason: str) -> MutatingOp[MemoryRecord]:
    """Reject a suggested memory with the user's reason."""
    return mutate(
        ctx, lambda s: s.commands.run(c.Reject(memory_id, reason=reason or None), DESKTOP)
    )


def edit_memory(ctx: UiContext, memory_id: str, text: str) -> MutatingOp[MemoryRecord]:
    """Change a memory's wording as a new revision."""
    return mutate(ctx, lambda s: s.commands.run(c.Edit(memory_id, text), DESKTOP))


def downgrade_scope(
    ctx: UiContext, memory_id: str, scope: Mapping[str, str]
) -> MutatingOp[MemoryRecord]:
    """Narrow a memory's scope (e.g. user-wide to one project)."""
    return mutate(ctx, lambda s: s.commands.run(c.NarrowScope(memory_id, scope), DESKTOP))


def disable_memory(ctx: UiContext, memory_id: str) -> MutatingOp[MemoryRecord]:
    """Keep a memory but never inject it."""
    return mutate(
        ctx,
        lambda s: s.commands.run(
            c.Disable(memory_id, reason="disabled in the memory center"), DESKTOP
        ),
    )


def enable_memory(ctx: UiContext, memory_id: str) -> MutatingOp[MemoryRecord]:
    """Make a disabled memory active again (the inverse of disable, used for undo)."""
    return mutate(ctx, lambda s: s.commands.run(c.Enable(memory_id), DESKTOP))


def exclude_from_session(ctx: UiContext, memory_id: str, session: str) -> MutatingOp[MemoryRecord]:
    """Keep a memory out of one session's injections."""
    return mutate(ctx, lambda s: s.commands.run(c.Exclude(memory_id, session), DESKTOP))


def include_in_session(ctx: UiContext, memory_id: str, session: str) -> MutatingOp[MemoryRecord]:
    """Let a memory be injected into a session again (the inverse of exclude, used for undo)."""
    return mutate(ctx, lambda s: s.commands.run(c.Include(memory_id, session), DESKTOP))


def quarantine_memory(ctx: UiContext, memory_id: str, reason: str) -> MutatingOp[QuarantineReport]:
    """Incident action: stop injecting a memory everywhere."""
    return mutate(ctx, lambda s: s.commands.run(c.Quarantine(memory_id, reason), DESKTOP))


def undo_decision(ctx: UiContext, memory_id: str, action: str) -> MutatingOp[MemoryRecord]:
    """Undo the latest approve, reject or quarantine of a memory (a compensating decision
    in the core; the history keeps both)."""
    return mutate(ctx, lambda s: s.commands.run(c.UndoDecision(memory_id, action), DESKTOP))


def resolve_conflict(ctx: UiContext, keep: MemoryRecord) -> MutatingOp[list[MemoryRecord]]:
    """Keep one member of a conflict set (confirming it if it was only suggested); the
    others become superseded by it. One transaction."""
    return mutate(
        ctx,
        lambda s: s.commands.run(
            c.ResolveConflict(keep.id, reason="kept in the review queue", approve=True), DESKTOP
        ),
    )


def answer_possible(ctx: UiContext, memory_id: str, answer: str) -> MutatingOp[list[MemoryRecord]]:
    """Answer "possibly the same as / replaces / contradicts" (#40): same, replaces, both_true
    or unrelated, one decision each."""
    return mutate(ctx, lambda s: s.commands.run(c.AnswerPossible(memory_id, answer), DESKTOP))


def ask_model_judge(ctx: UiContext, memory_id: str) -> MutatingOp[list[Any]]:
    """Put one "possibly ..." item to the configured model judge; its answer is applied under
    the trust rules (#40). The value: what happened (`outcome`, `answer`, `reason`)."""
    return mutate(ctx, lambda s: s.commands.run(c.SettleWithModel((memory_id,), limit=1), DESKTOP))


def take_out_of_conflict(ctx: UiContext, record: MemoryRecord) -> MutatingOp[list[MemoryRecord]]:
    """ "Not in conflict": the member leaves its conflict set and stays as it is (a set left
    with one member is settled)."""
    return mutate(ctx, lambda s: s.commands.run(c.TakeOutOfConflict(record.id), DESKTOP))


def keep_conflicting(
    ctx: UiContext,
    members: Sequence[MemoryRecord],
    scopes: Mapping[str, Mapping[str, str] | None],
) -> MutatingOp[list[MemoryRecord]]:
    """Keep every member of a conflict set: "keep both" (all scopes None) or "split by scope"
    (each member narrowed to its own scope). Suggested members are confirmed in the same
    transaction."""
    wanted = {r.id: scopes.get(r.id) for r in members}
    return mutate(
        ctx,
        lambda s: s.commands.run(
            c.KeepConflicting(wanted, reason="kept in the review queue", approve=True), DESKTOP
        ),
    )


def delete_memory(
    ctx: UiContext, memory_id: str, reason: str, *, purge: bool, purge_events: bool = False
) -> MutatingOp[Tombstone]:
    """Tombstone a memory (and with `purge`, destroy its content everywhere; with
    `purge_events`, also the text of the source events it came from)."""
    return mutate(
        ctx,
        lambda s: s.commands.run(
            c.Delete(
                memory_id,
                reason=reason,
                purge=purge,
                purge_events=purge_events,
                requested_by="memory-center",
            ),
            DESKTOP,
        ),
    )


def widen_scope(
    ctx: UiContext, memory_id: str, scope: Mapping[str, str]
) -> MutatingOp[MemoryRecord]:
    """Broaden a memory's scope; the user's own action (also the undo of a downgrade)."""
    return mutate(ctx, lambda s: s.commands.run(c.WidenScope(memory_id, scope), DESKTOP))
