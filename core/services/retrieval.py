"""`service.retrieval`: the read path for agents (R13-R18, R21): injection, search,
snapshots, replay, resume, and the fault switch of its test seams (R17)."""

from __future__ import annotations

from typing import Any

from core.errors import InvalidInputError
from core.model import limits
from core.model.enums import ChangeKind
from core.model.memory import InjectResult, Replay, ResumeResult, SearchHit, Snapshot
from core.model.records import Changes, NewEvent, Result
from core.model.scope import ScopeArg
from core.model.validate import identifier, new_event, public_session, whole_number
from core.model.validate import text as valid_text
from core.retrieval.guard import FaultSwitch
from core.services.context import Engine, budget, required_scope
from core.storage import event_log, snapshots
from core.storage.damage import Damage, guarded, split
from core.storage.store import WriteTx
from core.workflows import replay


class RetrievalService:
    """Budgeted injection and search over visible memory, and what was injected when."""

    def __init__(self, engine: Engine) -> None:
        self._e = engine

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
        req = required_scope(scope)
        what = valid_text(goal, "goal", limits.MAX_EVENT_TEXT)
        tokens = budget(budget_tokens)
        name = public_session(session) if session is not None else None
        also = None
        if record_with is not None:
            event = new_event(record_with, field="record_with")

            def also(tx: WriteTx) -> None:
                event_log.append(tx, [event])

        retriever = self._e.retriever
        result = retriever.inject(req, what, tokens, name, also=also)
        self._e.report_damage()
        return Result(result, Changes(frozenset({ChangeKind.SNAPSHOTS}), retriever.last_revision))

    def search_memory(
        self,
        scope: ScopeArg,
        query: str,
        *,
        limit: int = 10,
        session: str | None = None,
    ) -> list[SearchHit]:
        """The model's `search_memory`: visible, active memories with provenance (R16)."""
        req = required_scope(scope)
        what = valid_text(query, "query", limits.MAX_MEMORY_TEXT)
        name = identifier(session, "session") if session is not None else None
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 100:
            raise InvalidInputError("limit", "must be an integer from 1 to 100")
        hits = self._e.retriever.search(req, what, limit, name)
        self._e.report_damage()
        return hits

    def get_snapshot(self, snapshot_id: str) -> Snapshot:
        """One snapshot (R18). Raises NotFoundError."""
        self._e.store.settle()  # this process's injections are recorded first
        with self._e.store.read("read snapshot") as conn:
            return snapshots.get(
                conn, self._e.store.codec, identifier(snapshot_id, "snapshot_id", 64)
            )

    def list_snapshots(self, session: str, *, limit: int = 200) -> list[Snapshot]:
        """A session's snapshots (model calls), oldest first."""
        name = identifier(session, "session")
        whole_number(limit, "limit", 1)
        self._e.store.settle()
        with self._e.store.read("list snapshots") as conn:
            ids = [sid for sid, _, _ in snapshots.list_for_session(conn, name)][-limit:]
            found = split(self._snapshot_or_damage(conn, sid) for sid in ids)
        self._e.report_damage(found.damaged)  # a damaged snapshot is skipped, reported once
        return list(found)

    def _snapshot_or_damage(self, conn: Any, snapshot_id: str) -> Snapshot | Damage:
        codec = self._e.store.codec
        return guarded(
            "snapshots", snapshot_id, "body", lambda: snapshots.get(conn, codec, snapshot_id)
        )

    def replay(self, snapshot_id: str) -> Replay:
        """Diagnostic replay of an old model call, marking what changed since (R21)."""
        store = self._e.store
        store.settle()
        with store.read("replay") as conn:
            return replay.replay(
                conn, store.codec, identifier(snapshot_id, "snapshot_id", 64), store.clock.now()
            )

    def resume(self, session: str, snapshot_id: str | None = None) -> ResumeResult:
        """Live resume through the ResumeGate: never re-injects removed memories (R21)."""
        name = identifier(session, "session")
        sid = identifier(snapshot_id, "snapshot_id", 64) if snapshot_id else None
        store = self._e.store
        store.settle()
        with store.read("resume") as conn:
            return replay.resume(conn, store.codec, name, sid, store.clock.now())

    # --- test seams (R17) ----------------------------------------------------------------

    @property
    def faults(self) -> FaultSwitch:
        """The fault switch of the read path (tests, drills)."""
        return self._e.faults

    def set_fault(self, target: str, mode: str) -> None:
        """Make memory reads fail or stall (tests, drills)."""
        self._e.faults.set(target, mode)

    def clear_fault(self) -> None:
        """Remove an injected fault."""
        self._e.faults.clear()
