"""The read path for agents (R13-R18, R21): injection, search, snapshots, replay, resume."""

from __future__ import annotations

from collections.abc import Mapping

from core.errors import InvalidInputError
from core.model import limits
from core.model.enums import ChangeKind
from core.model.memory import InjectResult, Replay, ResumeResult, SearchHit, Snapshot
from core.model.records import Changes, NewEvent, Result
from core.model.scope import Scope
from core.model.validate import identifier, new_event, public_session
from core.model.validate import text as valid_text
from core.services.context import Engine, budget, required_scope
from core.storage import event_log, snapshots
from core.storage.store import WriteTx
from core.workflows import replay

ScopeArg = Mapping[str, str] | Scope | None


class RetrievalService:
    """Budgeted injection and search over visible memory, and what was injected when."""

    def __init__(self, engine: Engine) -> None:
        self._e = engine

    def inject(
        self,
        scope: ScopeArg,
        goal: str,
        budget_tokens: int,
        session: str | None,
        record_with: NewEvent | None = None,
    ) -> Result[InjectResult]:
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
        self, scope: ScopeArg, query: str, limit: int, session: str | None
    ) -> list[SearchHit]:
        req = required_scope(scope)
        what = valid_text(query, "query", limits.MAX_MEMORY_TEXT)
        name = identifier(session, "session") if session is not None else None
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 100:
            raise InvalidInputError("limit", "must be an integer from 1 to 100")
        hits = self._e.retriever.search(req, what, limit, name)
        self._e.report_damage()
        return hits

    def get_snapshot(self, snapshot_id: str) -> Snapshot:
        self._e.store.settle()  # this process's injections are recorded first
        with self._e.store.read("read snapshot") as conn:
            return snapshots.get(
                conn, self._e.store.codec, identifier(snapshot_id, "snapshot_id", 64)
            )

    def replay(self, snapshot_id: str) -> Replay:
        store = self._e.store
        store.settle()
        with store.read("replay") as conn:
            return replay.replay(
                conn, store.codec, identifier(snapshot_id, "snapshot_id", 64), store.clock.now()
            )

    def resume(self, session: str, snapshot_id: str | None) -> ResumeResult:
        name = identifier(session, "session")
        sid = identifier(snapshot_id, "snapshot_id", 64) if snapshot_id else None
        store = self._e.store
        store.settle()
        with store.read("resume") as conn:
            return replay.resume(conn, store.codec, name, sid, store.clock.now())
