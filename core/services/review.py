"""`service.review`: the user's controls (R9, R19, R22, R25, R26): every user action is one write
transaction with one change set, including the combined ones the review queue offers
(edit and approve, change scope and approve, keep one or keep all of a conflict set with
the suggested members confirmed)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from core.errors import InvalidInputError, InvalidStateError, NotFoundError
from core.governance import controls, resolution, undo
from core.governance.model_judge import ModelJudge
from core.governance.model_settle import Settled
from core.model import limits
from core.model.enums import ChangeKind, MemoryStatus
from core.model.journal import Command as JournalCommand
from core.model.memory import PurgePreview, QuarantineReport, Tombstone
from core.model.records import Changes, MemoryRecord, Result
from core.model.scope import Scope
from core.model.validate import identifier, whole_number
from core.model.validate import text as valid_text
from core.services.context import Action, Engine, required_scope
from core.storage import journal, memories, memory_history, snapshots, tombstones
from core.storage.store import WriteTx, changes_of
from core.workflows import batch, copies, deletion, model_review
from core.workflows.spool import Spooler, spoolable

APPROVE: Action = controls.approve


def scope_change(new: Scope, direction: str) -> Action:
    """Narrow ("downgrade") or widen a record's scope."""
    return lambda tx, r, who, _st: controls.change_scope(tx, r, new, who, direction)


class _RollBack(Exception):
    """Raised inside a write transaction to undo it (a purge preview)."""


class ReviewService:
    """Approve, reject, edit, rescope, disable, exclude, quarantine, undo, settle conflicts,
    delete."""

    def __init__(self, engine: Engine) -> None:
        self._e = engine
        # The optional model judge (#40), configured by the app; None: off.
        self.model_judge: ModelJudge | None = None

    def settle_with_model(
        self,
        judge: ModelJudge | None = None,
        *,
        memory_ids: Sequence[str] | None = None,
        limit: int = 50,
    ) -> Result[list[Settled]]:
        """Put the review items the rule judge could not decide to the model judge, and
        apply its answers under the trust rules (`core/workflows/model_review.py`).

        Raises:
            InvalidStateError: no judge given and none configured.
        """
        chosen = judge or self.model_judge
        if chosen is None:
            raise InvalidStateError(model_review.NO_JUDGE)
        whole_number(limit, "limit")
        ids = [self._e.mid(m, "memory_ids") for m in memory_ids] if memory_ids else None
        pending, store = self._e.at_now(model_review.PENDING), self._e.store
        asks = model_review.pending_questions(store, pending, self._e.catalog.texts, ids, limit)
        settled, changed = model_review.settle(store, chosen, asks)
        self._e.catalog.refresh(changed)
        kinds = frozenset({ChangeKind.MEMORIES, ChangeKind.CANDIDATES} if changed else ())
        return Result(settled, Changes(kinds, self._e.store.revision()))

    def _write_gate(self) -> Spooler | None:
        return self._e.write_gate()

    @spoolable("review.approve")
    def approve(self, memory_id: str, *, by: str | None = None) -> Result[MemoryRecord]:
        """Confirm a suggested (or checked quarantined) memory: it becomes active."""
        return self._e.act(memory_id, "approve", by, APPROVE)

    @spoolable("review.reject")
    def reject(
        self, memory_id: str, *, reason: str | None = None, by: str | None = None
    ) -> Result[MemoryRecord]:
        """Reject a suggested memory; it stays in the ledger so it is not suggested again."""
        why = valid_text(reason, "reason", limits.MAX_REASON) if reason is not None else None

        def fn(tx: WriteTx, r: MemoryRecord, who: str, st: str) -> None:
            controls.reject(tx, r, who, why, st)

        return self._e.act(memory_id, "reject", by, fn)

    @spoolable("review.edit")
    def edit(self, memory_id: str, new_text: str, *, by: str | None = None) -> Result[MemoryRecord]:
        """Change a memory's content as a new revision; history keeps the old one."""
        return self._e.act(memory_id, "edit", by, self._edit(new_text))

    def downgrade(
        self, memory_id: str, scope: Mapping[str, str] | Scope, *, by: str | None = None
    ) -> Result[MemoryRecord]:
        """Narrow a memory's scope (e.g. user-global to one project)."""
        return self._change_scope(memory_id, scope, "downgrade", by)

    def widen(
        self, memory_id: str, scope: Mapping[str, str] | Scope, *, by: str | None = None
    ) -> Result[MemoryRecord]:
        """Broaden a memory's scope; by the user, this is the cross-scope confirmation (R7)."""
        return self._change_scope(memory_id, scope, "widen", by)

    def _change_scope(
        self, memory_id: str, scope: Mapping[str, str] | Scope, direction: str, by: str | None
    ) -> Result[MemoryRecord]:
        fn = scope_change(required_scope(scope), direction)
        return self._e.act(memory_id, direction, by, fn)

    @spoolable("review.disable")
    def disable(
        self, memory_id: str, *, by: str | None = None, reason: str | None = None
    ) -> Result[MemoryRecord]:
        """Keep a memory but never inject or return it."""
        fn: Action = lambda tx, r, who, _st: controls.disable(tx, r, who, reason)  # noqa: E731
        return self._e.act(memory_id, "disable", by, fn)

    @spoolable("review.enable")
    def enable(self, memory_id: str, *, by: str | None = None) -> Result[MemoryRecord]:
        """Make a disabled memory active again."""
        fn: Action = lambda tx, r, who, _st: controls.enable(tx, r, who)  # noqa: E731
        return self._e.act(memory_id, "enable", by, fn)

    def exclude(
        self, memory_id: str, session: str, *, by: str | None = None
    ) -> Result[MemoryRecord]:
        """Keep a memory out of one session's injections (R26)."""
        name = identifier(session, "session")
        fn: Action = lambda tx, r, who, _st: controls.exclude(tx, r, name, who)  # noqa: E731
        return self._e.act(memory_id, "exclude", by, fn)

    def include(
        self, memory_id: str, session: str, *, by: str | None = None
    ) -> Result[MemoryRecord]:
        """Undo `exclude`: the memory may be injected into that session again."""
        name = identifier(session, "session")
        fn: Action = lambda tx, r, who, _st: controls.include(tx, r, name, who)  # noqa: E731
        return self._e.act(memory_id, "include", by, fn)

    def quarantine(
        self, memory_id: str, reason: str, *, by: str | None = None
    ) -> Result[QuarantineReport]:
        """Incident action: stop a memory's injection everywhere; list the affected sessions."""
        why = valid_text(reason, "reason", limits.MAX_REASON)

        def fn(tx: WriteTx, r: MemoryRecord, who: str, _st: str) -> None:
            controls.quarantine(tx, r, why, who)

        result = self._e.act(memory_id, "quarantine", by, fn)
        with self._e.store.read("affected sessions") as conn:
            uses = snapshots.using_memory(conn, result.value.id)
        report = QuarantineReport(
            result.value,
            tuple(dict.fromkeys(sess for _, sess, _ in uses if sess)),
            tuple(sid for sid, _, _ in uses),
        )
        return Result(report, result.changes)

    def undo(self, memory_id: str, action: str, *, by: str | None = None) -> Result[MemoryRecord]:
        """Undo the latest change of one memory, which must have recorded decision `action`,
        as compensating decisions; the history keeps both (R5, #39)."""
        name = identifier(action, "action")

        def revert(tx: WriteTx, record: MemoryRecord, who: str, _status: str) -> None:
            undo.undo(tx, undo.latest(tx, record.id, name), who, [record.id])

        return self._e.act(memory_id, f"undo {name}", by, revert)

    def undo_change(self, command_id: str, *, by: str | None = None) -> Result[list[MemoryRecord]]:
        """Undo one journalled change (`Result.changes.command_id` of any write, or an id
        from `changes`) as a whole: every memory it changed is put back, each by an
        `undo_<decision>` decision. Undoing an undo redoes the change (#39)."""
        cid = identifier(command_id, "change")
        with self._e.store.write("undo a change") as tx:
            command = undo.find(tx, cid)
            who = identifier(by, "by") if by else command.actor
            changed = undo.undo(tx, command, who)
            records = memories.load(tx.conn, tx.codec, changed)
        self._e.catalog.refresh(changed)
        return Result(list(records), changes_of(tx))

    def changes(self, *, limit: int = 50, memory_id: str | None = None) -> list[JournalCommand]:
        """The journalled changes, newest first: all of them, or one memory's (#39).

        Raises:
            NotFoundError: `memory_id` names no memory, present or deleted.
        """
        mid = self._e.mid(memory_id) if memory_id is not None else None
        codec = self._e.store.codec
        with self._e.store.read("read the change journal") as conn:
            found = journal.commands(conn, codec, limit=limit, memory_id=mid)
            if mid is not None and not found:
                # "No changes" only for a memory that is there (or was): a mistyped id
                # is named as such, not answered with an empty history.
                loaded = memories.load(conn, codec, [mid])
                if not loaded and not loaded.damaged and tombstones.row(conn, mid) is None:
                    raise NotFoundError("memory", mid)
            return found

    # --- combined actions: one transaction, one change set ----------------------------------

    def approve_many(
        self, memory_ids: Sequence[str], *, by: str | None = None
    ) -> Result[list[MemoryRecord]]:
        """Approve many suggestions in one transaction (one change for the feed, #13).

        Raises:
            NotFoundError: an id names no memory; nothing is approved.
            InvalidStateError: a memory is not waiting for review; nothing is approved.
        """
        ids = batch.memory_ids(memory_ids)
        store = self._e.store
        with store.write("approve many") as tx:
            done = batch.approve_many(tx, ids, by)
        result = self._e.committed(done, tx, batch=True)
        with store.read("read approved memories") as conn:
            records = memories.load(conn, store.codec, done)
        return Result(list(records), result.changes)

    def edit_and_approve(
        self, memory_id: str, new_text: str, *, by: str | None = None
    ) -> Result[MemoryRecord]:
        """Change a suggestion's wording (a new revision unless unchanged) and confirm it:
        one transaction, one change set."""
        mid = self._e.mid(memory_id)
        with self._e.store.write("edit and approve") as tx:
            self._e.apply(tx, mid, by, self._edit(new_text))
            updated = self._e.apply(tx, mid, by, APPROVE)
        self._e.catalog.refresh([mid])
        return Result(updated, changes_of(tx))

    def rescope_and_approve(
        self, memory_id: str, scope: Mapping[str, str] | Scope, *, by: str | None = None
    ) -> Result[MemoryRecord]:
        """Give a suggestion another scope and confirm it in one transaction: adding keys
        narrows it (downgrade), anything else is the user widening it (R7)."""
        new = required_scope(scope)
        mid = self._e.mid(memory_id)
        with self._e.store.write("change scope and approve") as tx:
            record = memories.get(tx.conn, tx.codec, mid)
            if new != record.scope:
                # Adding keys narrows (a downgrade); anything else is the user widening it.
                direction = "downgrade" if new.narrows(record.scope) else "widen"
                self._e.apply(tx, mid, by, scope_change(new, direction))
            updated = self._e.apply(tx, mid, by, APPROVE)
        self._e.catalog.refresh([mid])
        return Result(updated, changes_of(tx))

    def resolve_conflict(
        self,
        keep_id: str,
        *,
        reason: str | None = None,
        by: str | None = None,
        approve: bool = False,
    ) -> Result[list[MemoryRecord]]:
        """Settle a conflict set: keep one, supersede the others (R9). With `approve`, a
        suggested `keep_id` is confirmed first, in the same transaction."""
        mid = self._e.mid(keep_id, "keep")
        with self._e.store.write("resolve conflict") as tx:
            keep = memories.get(tx.conn, tx.codec, mid)
            if approve and keep.status == MemoryStatus.CANDIDATE:
                keep = self._e.apply(tx, mid, by, APPROVE)
            who = by or keep.scope.get("user", "user")
            changed = resolution.resolve_conflict(tx, keep, who, reason, self._e.ledger.similarity)
            records = memories.load(tx.conn, tx.codec, changed)
        self._e.catalog.refresh(changed)
        return Result(records, changes_of(tx))

    def take_out_of_conflict(
        self, memory_id: str, *, by: str | None = None
    ) -> Result[list[MemoryRecord]]:
        """ "Not in conflict": the memory leaves its conflict set and stays as it is; a set
        left with one member is settled (#40)."""
        mid = self._e.mid(memory_id)
        with self._e.store.write("take out of conflict") as tx:
            record = memories.get(tx.conn, tx.codec, mid)
            who = identifier(by, "by") if by else record.scope.get("user", "user")
            changed = resolution.take_out(tx, record, who)
            records = memories.load(tx.conn, tx.codec, changed)
        self._e.catalog.refresh(changed)
        return Result(records, changes_of(tx))

    def undo_resolution(
        self, memory_id: str, *, by: str | None = None
    ) -> Result[list[MemoryRecord]]:
        """Undo the latest resolution (or take-out) of the conflict set `memory_id` is in:
        every member back as it was, as compensating decisions (#40)."""
        mid = self._e.mid(memory_id)
        with self._e.store.write("undo conflict resolution") as tx:
            record = memories.get(tx.conn, tx.codec, mid)
            if not record.conflict_set:
                raise InvalidStateError(f"memory {mid} was never in a conflict set")
            who = identifier(by, "by") if by else record.scope.get("user", "user")
            changed = resolution.undo_resolution(tx, record.conflict_set, who)
            records = memories.load(tx.conn, tx.codec, changed)
        self._e.catalog.refresh(changed)
        return Result(records, changes_of(tx))

    def answer_possible(
        self, memory_id: str, answer: str, *, by: str | None = None
    ) -> Result[list[MemoryRecord]]:
        """Answer a review item "possibly the same as / replaces / contradicts m:...":
        `same`, `replaces`, `both_true` or `unrelated`; each answer is a decision (#40)."""
        mid = self._e.mid(memory_id)
        with self._e.store.write("answer a possible relation") as tx:
            record = memories.get(tx.conn, tx.codec, mid)
            history = memory_history.history(tx.conn, tx.codec, mid)
            found = resolution.possible(" ".join(d.reason for d in history))
            if found is None:
                raise InvalidStateError(f"memory {mid} has no possible relation to answer")
            other = memories.get(tx.conn, tx.codec, found[1])
            who = identifier(by, "by") if by else record.scope.get("user", "user")
            changed = resolution.answer_possible(tx, record, other, answer, who)
            records = memories.load(tx.conn, tx.codec, changed)
        self._e.catalog.refresh(changed)
        return Result(records, changes_of(tx))

    def keep_conflicting(
        self,
        scopes: Mapping[str, Mapping[str, str] | Scope | None],
        *,
        reason: str | None = None,
        by: str | None = None,
        approve: bool = False,
    ) -> Result[list[MemoryRecord]]:
        """Settle a conflict set by keeping every member, each optionally narrowed to a scope
        of its own ("split by scope"); the conflict notes stop (R9). With `approve`, suggested
        members are confirmed first, in the same transaction."""
        if not scopes:
            raise InvalidInputError("scopes", "name the members of the conflict set")
        wanted = {
            self._e.mid(mid, "scopes"): (None if sc is None else required_scope(sc))
            for mid, sc in scopes.items()
        }
        with self._e.store.write("keep conflicting memories") as tx:
            first = memories.get(tx.conn, tx.codec, next(iter(wanted)))
            who = identifier(by, "by") if by else first.scope.get("user", "user")
            if approve:
                for mid in wanted:
                    if memories.get(tx.conn, tx.codec, mid).status == MemoryStatus.CANDIDATE:
                        self._e.apply(tx, mid, by, APPROVE)
            changed = controls.keep_all(tx, wanted, who, reason)
            records = memories.load(tx.conn, tx.codec, changed)
        self._e.catalog.refresh(changed)
        return Result(records, changes_of(tx))

    # --- deletion ------------------------------------------------------------------------

    @spoolable("review.delete")
    def delete(
        self,
        memory_id: str,
        *,
        reason: str,
        purge: bool = False,
        requested_by: str | None = None,
        purge_events: bool = False,
    ) -> Result[Tombstone]:
        """Tombstone a memory and remove it from every derived store; `purge` destroys it (R19)."""
        mid = self._e.mid(memory_id)
        store = self._e.store
        if purge:
            self._e.catalog.expect_purge(mid)
        try:
            stone, tx = self._delete(mid, reason, purge, requested_by, purge_events)
        except BaseException:
            if purge:
                self._e.catalog.purge_abandoned(mid)
            raise
        if purge:
            self._e.catalog.purge([stone.memory_id])
            store.checkpoint()
        return Result(stone, changes_of(tx))

    def purge_preview(self, memory_id: str, *, purge_events: bool = False) -> PurgePreview:
        """What `delete(purge=True)` would redact, and what it keeps and why; writes nothing.

        The purge runs in a write transaction that is rolled back (nothing derived changes)."""
        mid = self._e.mid(memory_id)
        found: list[PurgePreview] = []
        try:
            with self._e.store.write("preview a purge") as tx:
                record = memories.get(tx.conn, tx.codec, mid)
                stone = deletion.delete(
                    tx,
                    record,
                    reason="preview",
                    requested_by="user",
                    purge=True,
                    purge_events=purge_events,
                    derived=lambda _mid: [],
                    embed=None,
                )
                found.append(copies.preview(mid, stone.report, purge_events))
                raise _RollBack
        except _RollBack:
            pass
        return found[0]

    def _delete(
        self,
        mid: str,
        reason: str,
        purge: bool,
        requested_by: str | None,
        purge_events: bool,
    ) -> tuple[Tombstone, WriteTx]:
        store = self._e.store
        with store.write("delete memory") as tx:
            record = memories.get(tx.conn, tx.codec, mid)
            who = (
                identifier(requested_by, "requested_by")
                if requested_by
                else record.scope.get("user", "user")
            )
            stone = deletion.delete(
                tx,
                record,
                reason=reason,
                requested_by=who,
                purge=purge,
                purge_events=purge_events,
                derived=self._e.forget_derived,
                embed=self._e.fence_embed,
            )
        return stone, tx

    def _edit(self, new_text: str) -> Action:
        return lambda tx, r, who, _st: controls.edit(tx, r, new_text, who)
