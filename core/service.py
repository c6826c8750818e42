"""`MemoryService`: the one public facade of the core (HOUSE_STYLE, like Anki's Collection).

The UI, the CLI, the MCP server and the SDK reach the store only through this class. It is
synchronous and thread-safe. Every mutating call runs in one transaction and returns a
`Result` with the value and the `Changes` it committed, including the new store revision.

The facade is thin: each method delegates to one feature service in `core/services/`
(events, memories, review, retrieval, admin), which share one `Engine` over the open store.
Configuration (the embedder choice) is made by the composition root (`app/compose.py`) and
passed in; used directly, the core takes the embedder stored in the store, else the default.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from core.governance.policy import Origin, PolicySettings
from core.model.capture import CaptureCursor
from core.model.journal import Command as JournalCommand
from core.model.memory import (
    AdoptionChain,
    InjectResult,
    MemoryFilter,
    MemoryOutcome,
    PurgePreview,
    QuarantineReport,
    Replay,
    ResumeResult,
    SearchHit,
    SecurityEvent,
    Snapshot,
    Tombstone,
)
from core.model.records import (
    ChangeEntry,
    Decision,
    Event,
    MemoryRecord,
    NewEvent,
    Result,
    SessionInfo,
    VerifyReport,
)
from core.model.scope import Scope
from core.services.admin_facade import AdminFacade
from core.workflows.spool import spoolable

ScopeArg = Mapping[str, str] | Scope | None


class MemoryService(AdminFacade):
    """The facade over one store.

    Args:
        store: the opened store.
        key_store: where the key set lives (for rotation and status).
        keys: the current key set.
        embedder: the embedder by name, chosen by the composition root; None takes the one
            stored in the store, else the default; "none" switches vectors off.
    """

    # --- the event log (R1-R3) -------------------------------------------------

    @spoolable
    def append_event(self, item: NewEvent) -> Result[Event]:
        """Append one event to a session's log (the session is created on first use)."""
        return self._events.append_event(item)

    @spoolable
    def append_events(self, items: Sequence[NewEvent]) -> Result[list[Event]]:
        """Append several events in one transaction: all of them or none."""
        return self._events.append_events(items)

    def list_events(
        self,
        *,
        session: str | None = None,
        after_position: int = 0,
        before_position: int | None = None,
        limit: int = 100,
        newest_first: bool = False,
    ) -> list[Event]:
        """Events in log order, decrypted; filter by session, page by position."""
        return self._events.list_events(
            session=session,
            after_position=after_position,
            before_position=before_position,
            limit=limit,
            newest_first=newest_first,
        )

    def get_events(self, ids: Sequence[str]) -> list[Event]:
        """The events with these ids. Raises NotFoundError for an unknown id."""
        return self._events.get_events(ids)

    def list_sessions(self, *, limit: int = 1000, offset: int = 0) -> list[SessionInfo]:
        """Sessions, most recently active first."""
        return self._events.list_sessions(limit=limit, offset=offset)

    def get_session(self, session: str) -> SessionInfo:
        """One session. Raises NotFoundError."""
        return self._events.get_session(session)

    def set_session_opt_out(self, session: str, opted_out: bool) -> Result[SessionInfo]:
        """Switch per-session memory opt-out (R26): nothing injected, nothing extracted."""
        return self._events.set_session_opt_out(session, opted_out)

    def verify(self) -> VerifyReport:
        """Check everything and report the first failure (R3, #10): SQLite's integrity
        check, the hash chain and every payload, every sealed column and file, and each
        memory's metadata binding (see core/storage/checkup.py); on a team store, what the
        signed membership does not back is listed too (ignored, not a failure)."""
        report = self._events.verify()
        problems = self.membership_problems()
        return dataclasses.replace(report, membership_problems=problems) if problems else report

    # --- the write path of memory (R4-R12) --------------------------------------

    @spoolable
    def remember(
        self,
        scope: ScopeArg,
        text: str,
        *,
        session: str | None = None,
        kind: str | None = None,
        expires_in_days: float | None = None,
        by: str | None = None,
        said_at: dt.datetime | str | None = None,
        speaker: str | None = None,
    ) -> Result[MemoryOutcome]:
        """The user's explicit request to remember something (R7 row 1).

        `said_at` and `speaker`: when and by whom it was said (history being imported),
        kept out of the text."""
        return self._writes.remember(
            scope,
            text,
            session=session,
            kind=kind,
            expires_in_days=expires_in_days,
            by=by,
            said_at=said_at,
            speaker=speaker,
        )

    @spoolable
    def suggest(
        self,
        scope: ScopeArg,
        text: str,
        *,
        kind: str | None = None,
        evidence: Sequence[str] = (),
        session: str | None = None,
        by: str | None = None,
        said_at: dt.datetime | str | None = None,
        speaker: str | None = None,
    ) -> Result[MemoryOutcome]:
        """An agent proposes a memory, citing evidence events; the policy decides (R6, R11)."""
        return self._writes.suggest(
            scope,
            text,
            kind=kind,
            evidence=evidence,
            session=session,
            by=by,
            said_at=said_at,
            speaker=speaker,
        )

    @spoolable
    def observe(
        self,
        scope: ScopeArg,
        text: str,
        *,
        session: str | None = None,
        contradicts: str | None = None,
    ) -> Result[Event]:
        """Report a fresh tool-verified observation; contradicted memories turn stale (R10)."""
        return self._writes.observe(scope, text, session=session, contradicts=contradicts)

    def extract(
        self, session: str, event_ids: Sequence[str] | None = None
    ) -> Result[list[MemoryOutcome]]:
        """Run extraction over a session's events (or the named ones); only candidates come
        out of it (R6)."""
        ids = list(event_ids) if event_ids is not None else None
        return self._writes.extract(session, ids)

    def pre_compress(self, session: str, event_ids: Sequence[str]) -> Result[list[MemoryOutcome]]:
        """`on_pre_compress`: candidates from the raw events about to leave the context (R12)."""
        return self._writes.extract(session, list(event_ids), Origin.PRE_COMPRESS)

    # --- live capture: resume positions (hooks, watchers) --------------------------

    def capture_cursor(self, key: str, agent: str) -> CaptureCursor:
        """Where capture of one source stopped (a fresh cursor if it never started)."""
        return self._events.capture_cursor(key, agent)

    def append_captured(
        self,
        items: Sequence[NewEvent],
        cursor: CaptureCursor,
        position: int,
        state: dict[str, Any] | None = None,
    ) -> Result[list[Event]]:
        """Append captured events and advance their source's cursor in one transaction."""
        return self._events.append_captured(items, cursor, position, state)

    def capture_totals(self) -> dict[str, tuple[int, int]]:
        """Per agent: (sources followed, events captured) by live capture."""
        return self._events.capture_totals()

    # --- user controls (R9, R22, R25, R26) ---------------------------------------

    @spoolable
    def approve(self, memory_id: str, *, by: str | None = None) -> Result[MemoryRecord]:
        """Confirm a suggested (or checked quarantined) memory: it becomes active."""
        return self._review.approve(memory_id, by)

    @spoolable
    def reject(
        self, memory_id: str, *, reason: str | None = None, by: str | None = None
    ) -> Result[MemoryRecord]:
        """Reject a suggested memory; it stays in the ledger so it is not suggested again."""
        return self._review.reject(memory_id, reason, by)

    @spoolable
    def edit(self, memory_id: str, new_text: str, *, by: str | None = None) -> Result[MemoryRecord]:
        """Change a memory's content as a new revision; history keeps the old one."""
        return self._review.edit(memory_id, new_text, by)

    def downgrade(
        self, memory_id: str, scope: Mapping[str, str] | Scope, *, by: str | None = None
    ) -> Result[MemoryRecord]:
        """Narrow a memory's scope (e.g. user-global to one project)."""
        return self._review.change_scope(memory_id, scope, "downgrade", by)

    def widen(
        self, memory_id: str, scope: Mapping[str, str] | Scope, *, by: str | None = None
    ) -> Result[MemoryRecord]:
        """Broaden a memory's scope; by the user, this is the cross-scope confirmation (R7)."""
        return self._review.change_scope(memory_id, scope, "widen", by)

    @spoolable
    def disable(
        self, memory_id: str, *, by: str | None = None, reason: str | None = None
    ) -> Result[MemoryRecord]:
        """Keep a memory but never inject or return it."""
        return self._review.disable(memory_id, by, reason)

    @spoolable
    def enable(self, memory_id: str, *, by: str | None = None) -> Result[MemoryRecord]:
        """Make a disabled memory active again."""
        return self._review.enable(memory_id, by)

    def exclude(
        self, memory_id: str, session: str, *, by: str | None = None
    ) -> Result[MemoryRecord]:
        """Keep a memory out of one session's injections (R26)."""
        return self._review.exclude(memory_id, session, by)

    def include(
        self, memory_id: str, session: str, *, by: str | None = None
    ) -> Result[MemoryRecord]:
        """Undo `exclude`: the memory may be injected into that session again."""
        return self._review.include(memory_id, session, by)

    def quarantine(
        self, memory_id: str, reason: str, *, by: str | None = None
    ) -> Result[QuarantineReport]:
        """Incident action: stop a memory's injection everywhere; list the affected sessions."""
        return self._review.quarantine(memory_id, reason, by)

    def undo(self, memory_id: str, action: str, *, by: str | None = None) -> Result[MemoryRecord]:
        """Undo the latest decision of a memory, which must be `action` (approve, reject or
        quarantine), as a compensating decision; the history keeps both (R5)."""
        return self._review.undo(memory_id, action, by)

    def undo_change(self, command_id: str, *, by: str | None = None) -> Result[list[MemoryRecord]]:
        """Undo one journalled change (`Result.changes.command_id` of any write, or an id
        from `changes`) as a whole: every memory it changed is put back, each by an `undo`
        decision. Undoing an undo redoes the change (#39)."""
        return self._review.undo_change(command_id, by)

    def changes(self, *, limit: int = 50, memory_id: str | None = None) -> list[JournalCommand]:
        """The journalled changes, newest first: all of them, or one memory's (#39)."""
        return self._review.changes(limit=limit, memory_id=memory_id)

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
        return self._review.resolve_conflict(keep_id, reason, by, approve=approve)

    def take_out_of_conflict(
        self, memory_id: str, *, by: str | None = None
    ) -> Result[list[MemoryRecord]]:
        """ "Not in conflict": the memory leaves its conflict set and stays as it is; a set
        left with one member is settled (#40)."""
        return self._review.take_out_of_conflict(memory_id, by)

    def undo_resolution(
        self, memory_id: str, *, by: str | None = None
    ) -> Result[list[MemoryRecord]]:
        """Undo the latest resolution (or take-out) of the conflict set `memory_id` is in:
        every member back as it was, as compensating decisions (#40)."""
        return self._review.undo_resolution(memory_id, by)

    def answer_possible(
        self, memory_id: str, answer: str, *, by: str | None = None
    ) -> Result[list[MemoryRecord]]:
        """Answer a review item "possibly the same as / replaces / contradicts m:...":
        `same`, `replaces`, `both_true` or `unrelated`; each answer is a decision (#40)."""
        return self._review.answer_possible(memory_id, answer, by)

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
        return self._review.keep_conflicting(scopes, reason, by, approve=approve)

    def edit_and_approve(
        self, memory_id: str, new_text: str, *, by: str | None = None
    ) -> Result[MemoryRecord]:
        """Change a suggestion's wording (a new revision unless unchanged) and confirm it:
        one transaction, one change set."""
        return self._review.edit_and_approve(memory_id, new_text, by)

    def rescope_and_approve(
        self, memory_id: str, scope: Mapping[str, str] | Scope, *, by: str | None = None
    ) -> Result[MemoryRecord]:
        """Give a suggestion another scope and confirm it in one transaction: adding keys
        narrows it (downgrade), anything else is the user widening it (R7)."""
        return self._review.rescope_and_approve(memory_id, scope, by)

    @spoolable
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
        return self._review.delete(
            memory_id,
            reason=reason,
            purge=purge,
            requested_by=requested_by,
            purge_events=purge_events,
        )

    def purge_preview(self, memory_id: str, *, purge_events: bool = False) -> PurgePreview:
        """What `delete(purge=True)` would redact, and what it keeps and why; writes nothing."""
        return self._review.purge_preview(memory_id, purge_events=purge_events)

    # --- reading memory ------------------------------------------------------------

    def get_memory(self, memory_id: str) -> MemoryRecord:
        """One record in any status."""
        return self._reads.get_memory(memory_id)

    def list_memories(self, flt: MemoryFilter | None = None) -> list[MemoryRecord]:
        """Records in every status and scope unless filtered, newest first."""
        return self._reads.list_memories(flt)

    def prepare_text_search(self) -> int:
        """Bring the index of full-text search up to date now; returns how many records had
        to be decrypted (the desktop calls it in the background after the first paint)."""
        return self._reads.prepare_text_search()

    def export_memories(self, flt: MemoryFilter | None = None) -> dict[str, Any]:
        """A portable JSON document of memories (default: active and suggested ones)."""
        return self._reads.export_memories(flt)

    def import_memories(
        self, document: Mapping[str, Any], *, by: str | None = None
    ) -> Result[list[MemoryOutcome]]:
        """Import an export document: every memory becomes a suggestion the policy decides."""
        return self._writes.import_memories(document, by=by)

    def count_memories(self, flt: MemoryFilter | None = None) -> int:
        """How many memories match a filter's metadata (status, kind, trust, scope, dates)."""
        return self._reads.count_memories(flt)

    def history(self, memory_id: str) -> list[Decision]:
        """Every decision about a memory, oldest first (R5)."""
        return self._reads.history(memory_id)

    def revisions(self, memory_id: str) -> list[tuple[int, dt.datetime, str, Scope, str]]:
        """Every stored revision: (number, time, actor, scope, content)."""
        return self._reads.revisions(memory_id)

    def memory_at(self, revision: int) -> list[MemoryRecord]:
        """Every memory as it stood at a past store revision (evaluation and replay, R21)."""
        return self._reads.memory_at(revision)

    def lift_fence(self, memory_id: str) -> Result[int]:
        """Let a deleted memory's content be proposed again (the user lifts the fence)."""
        return self._writes.lift_fence(memory_id)

    def tombstone(self, memory_id: str) -> Tombstone:
        """The tombstone of a deleted memory. Raises NotFoundError."""
        return self._reads.tombstone(memory_id)

    def adoption_chain(self, memory_id: str) -> AdoptionChain:
        """Source events, activation, injections and corrections of a memory (R22)."""
        return self._reads.adoption_chain(memory_id)

    def export_regression(self, memory_id: str) -> dict[str, Any]:
        """A regression case (JSON-able) for a memory that caused trouble (R22)."""
        return self._reads.export_regression(memory_id)

    def security_events(self, *, limit: int = 1000) -> list[SecurityEvent]:
        """Sensitivity findings recorded in the log, oldest first (types only, R8)."""
        return self._reads.security_events(limit=limit)

    # --- the read path (R13-R18, R21) -----------------------------------------------

    def inject(
        self,
        scope: ScopeArg,
        goal: str,
        budget_tokens: int,
        *,
        session: str | None = None,
        record_with: NewEvent | None = None,
    ) -> Result[InjectResult]:
        """The runtime's per-turn injection: a budgeted reference block and its snapshot.

        `record_with`: an event (the caller's record of the call, such as an agent's
        `agent_call`) validated now and written with the snapshot, in its write-behind
        transaction, so the turn does not wait for a write of its own (#13).

        Raises:
            InvalidInputError: `record_with` is not a valid event (nothing injected).
        """
        return self._retrieval.inject(scope, goal, budget_tokens, session, record_with)

    def search_memory(
        self,
        scope: ScopeArg,
        query: str,
        *,
        limit: int = 10,
        session: str | None = None,
    ) -> list[SearchHit]:
        """The model's `search_memory`: visible, active memories with provenance (R16)."""
        return self._retrieval.search_memory(scope, query, limit, session)

    def get_snapshot(self, snapshot_id: str) -> Snapshot:
        """One snapshot (R18). Raises NotFoundError."""
        return self._retrieval.get_snapshot(snapshot_id)

    def replay(self, snapshot_id: str) -> Replay:
        """Diagnostic replay of an old model call, marking what changed since (R21)."""
        return self._retrieval.replay(snapshot_id)

    def resume(self, session: str, snapshot_id: str | None = None) -> ResumeResult:
        """Live resume through the ResumeGate: never re-injects removed memories (R21)."""
        return self._retrieval.resume(session, snapshot_id)

    # --- test seams (R17) -------------------------------------------------------------

    def set_fault(self, target: str, mode: str) -> None:
        """Make memory reads fail or stall (tests, drills)."""
        self.faults.set(target, mode)

    def clear_fault(self) -> None:
        """Remove an injected fault."""
        self.faults.clear()

    # --- settings -----------------------------------------------------------------

    def policy_settings(self) -> PolicySettings:
        """The MemoryPolicy settings in force (defaults overridden by the user's choices)."""
        return self.policy.settings

    def update_policy_settings(self, **changes: object) -> Result[PolicySettings]:
        """Change policy settings (e.g. confirm_global=True); stored in the store."""
        return self._index.update_policy_settings(changes)

    def list_snapshots(self, session: str, *, limit: int = 200) -> list[Snapshot]:
        """A session's snapshots (model calls), oldest first."""
        return self._events.list_snapshots(session, limit=limit)

    def expire_sweep(self) -> Result[list[str]]:
        """Record an `expire` decision for memories whose time ran out (R5, R7)."""
        return self._writes.expire_sweep()

    # --- revision and change feed (R21) ----------------------------------------

    def revision(self) -> int:
        """The latest committed store revision (cheap; poll it to notice other processes)."""
        return self._events.revision()

    def changes_since(self, revision: int, limit: int = 1000) -> list[ChangeEntry]:
        """What changed after `revision`, oldest first."""
        return self._events.changes_since(revision, limit)

    # --- batches on the write path (#13) -----------------------------------------------

    def remember_many(self, items: Sequence[Mapping[str, Any]]) -> Result[list[MemoryOutcome]]:
        """Many `remember` requests in one transaction: all of them or none.

        Each item is a mapping with `scope` and `text` and optionally `session`, `kind`,
        `expires_in_days`, `by`, `said_at`, `speaker` (as `remember` takes them). Items see
        each other:
        a duplicate inside the batch merges, a contradiction supersedes or conflicts.

        Raises:
            InvalidInputError: naming the item and field (`items[3].text`); nothing written.
        """
        return self._batches.remember_many(items)

    def suggest_many(self, items: Sequence[Mapping[str, Any]]) -> Result[list[MemoryOutcome]]:
        """Many `suggest` proposals (`scope`, `text`, optional `kind`, `evidence`, `session`,
        `by`, `said_at`) in one transaction: all of them or none (errors name the item)."""
        return self._batches.suggest_many(items)

    def approve_many(
        self, memory_ids: Sequence[str], *, by: str | None = None
    ) -> Result[list[MemoryRecord]]:
        """Approve many suggestions in one transaction (one change for the feed).

        Raises:
            NotFoundError: an id names no memory; nothing is approved.
            InvalidStateError: a memory is not waiting for review; nothing is approved.
        """
        return self._batches.approve_many(memory_ids, by)

    def extract_many(self, sessions: Sequence[str]) -> Result[list[MemoryOutcome]]:
        """`extract` over several sessions (an import): the extractor runs outside the
        write transaction, then every proposal is decided in one transaction."""
        return self._batches.extract_many(sessions)
