"""Curated memory: the write path (R4-R12) and reading records, history and lineage (R5, R22)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from core.governance import controls
from core.governance.policy import Origin
from core.model.memory import AdoptionChain, MemoryFilter, MemoryOutcome, SecurityEvent, Tombstone
from core.model.records import Changes, Decision, Event, MemoryRecord, Result
from core.model.scope import Scope
from core.model.validate import identifier, memory_filter, whole_number
from core.services.context import Engine, one, required_scope
from core.storage import event_log, memories, memory_history, memory_queries
from core.storage.store import changes_of, revision_of
from core.workflows import deletion, portability, replay, writes

ScopeArg = Mapping[str, str] | Scope | None


class MemoryWrites:
    """Proposals become candidates the policy decides: remember, suggest, observe, extract."""

    def __init__(self, engine: Engine) -> None:
        self._e = engine

    def remember(self, scope: ScopeArg, text: str, **options: Any) -> Result[MemoryOutcome]:
        """The user's explicit request to remember something (R7 row 1).

        `said_at`, `speaker`: when and by whom it was said (history being imported)."""
        req = required_scope(scope)
        with self._e.store.write("remember") as tx:
            out = writes.remember(tx, self._e.ledger, req, text, **options)
        return self._e.committed(out, tx)

    def suggest(self, scope: ScopeArg, text: str, **options: Any) -> Result[MemoryOutcome]:
        req = required_scope(scope)
        with self._e.store.write("suggest") as tx:
            out = writes.suggest(tx, self._e.ledger, req, text, **options)
        return self._e.committed(out, tx)

    def observe(
        self, scope: ScopeArg, text: str, *, session: str | None, contradicts: str | None
    ) -> Result[Event]:
        req = required_scope(scope)
        with self._e.store.write("observe") as tx:
            event = writes.observe(
                tx,
                req,
                text,
                session=session,
                contradicts=contradicts,
                similarity=self._e.ledger.similarity,
            )
        return self._e.committed(event, tx)

    def extract(
        self, session: str, event_ids: list[str] | None, origin: Origin = Origin.EXTRACT
    ) -> Result[list[MemoryOutcome]]:
        name = identifier(session, "session")
        store = self._e.store
        # The extractor (possibly an LLM over HTTP) runs outside the write transaction, so a
        # slow extractor never holds the store's write lock.
        with store.read("read session events") as conn:
            if writes.opted_out(conn, store.codec, name):
                return Result([], Changes.none(revision_of(conn)))
            events = writes.session_events(conn, store.codec, name, event_ids)
        proposals = self._e.extractor.extract(events)
        with store.write("extract") as tx:
            if writes.opted_out(tx.conn, tx.codec, name):
                return Result([], changes_of(tx))
            out = writes.submit_proposals(tx, self._e.ledger, proposals, name, origin=origin)
        return self._e.committed(out, tx)

    def import_memories(
        self, document: Mapping[str, Any], *, by: str | None
    ) -> Result[list[MemoryOutcome]]:
        """Import an export document: every memory becomes a suggestion the policy decides.

        Raises:
            InvalidInputError: the document is malformed; nothing is imported."""
        who = identifier(by, "by") if by else "import"
        with self._e.store.write("import memories") as tx:
            session = portability.import_session(tx.now)
            out = portability.import_document(tx, self._e.ledger, document, session=session, by=who)
        return self._e.committed(out, tx)

    def lift_fence(self, memory_id: str) -> Result[int]:
        mid = self._e.mid(memory_id)
        with self._e.store.write("lift deletion fence") as tx:
            lifted = memories.lift_fence(tx, mid)
        return Result(lifted, changes_of(tx))

    def expire_sweep(self) -> Result[list[str]]:
        """Record an `expire` decision for memories whose time ran out (R5, R7).

        Expiry is enforced at read time anyway; the sweep makes it visible in history."""
        with self._e.store.write("expiry sweep") as tx:
            swept = controls.sweep_expired(tx)
        self._e.catalog.refresh(swept)
        return Result(swept, changes_of(tx))


class MemoryReads:
    """Records in any status, their history, revisions, tombstones and lineage."""

    def __init__(self, engine: Engine) -> None:
        self._e = engine

    def get_memory(self, memory_id: str) -> MemoryRecord:
        """One record in any status.

        Raises:
            NotFoundError: no such memory.
            DamagedRowError: the record is damaged (reported once as a security event)."""
        mid = self._e.mid(memory_id)
        with self._e.store.read("read memory") as conn:
            found = memories.load(conn, self._e.store.codec, [mid])
        self._e.report_damage(found.damaged)
        return one(found, mid)

    def list_memories(self, flt: MemoryFilter | None) -> list[MemoryRecord]:
        """Records in every status and scope unless filtered, newest first.

        Damaged records are left out and reported once (security event, `status`)."""
        chosen = self._e.at_now(flt or MemoryFilter(limit=1_000_000))
        memory_filter(chosen)
        with self._e.store.read("list memories") as conn:
            found = memory_queries.query(conn, self._e.store.codec, chosen, self._e.catalog.texts)
        self._e.report_damage(found.damaged)
        return list(found)

    def prepare_text_search(self) -> int:
        texts, codec = self._e.catalog.texts, self._e.store.codec
        before = texts.decrypted
        with self._e.store.read("prepare text search") as conn:
            damaged = texts.catch_up(conn, codec)
        self._e.report_damage(damaged)
        texts.save_if_due(codec)
        return texts.decrypted - before

    def export_memories(self, flt: MemoryFilter | None) -> dict[str, Any]:
        """A portable JSON document of memories (default: active and suggested ones).

        The document holds decrypted content: it is for the user, who is told the file is
        not encrypted."""
        chosen = flt or MemoryFilter(statuses=("active", "candidate"), limit=1_000_000)
        return portability.export_document(self.list_memories(chosen), self._e.store.clock.now())

    def count_memories(self, flt: MemoryFilter | None) -> int:
        chosen = self._e.at_now(flt or MemoryFilter())
        memory_filter(chosen)
        with self._e.store.read("count memories") as conn:
            return memory_queries.count(conn, chosen)

    def history(self, memory_id: str) -> list[Decision]:
        record = self.get_memory(memory_id)
        with self._e.store.read("read history") as conn:
            return memory_history.history(conn, self._e.store.codec, record.id)

    def revisions(self, memory_id: str) -> list[tuple[int, dt.datetime, str, Scope, str]]:
        record = self.get_memory(memory_id)
        with self._e.store.read("read revisions") as conn:
            return memory_history.revisions(conn, self._e.store.codec, record.id)

    def memory_at(self, revision: int) -> list[MemoryRecord]:
        whole_number(revision, "revision")
        with self._e.store.read("reconstruct memory") as conn:
            return memory_history.state_at(conn, self._e.store.codec, revision)

    def tombstone(self, memory_id: str) -> Tombstone:
        with self._e.store.read("read tombstone") as conn:
            return deletion.read_tombstone(conn, self._e.store.codec, self._e.mid(memory_id))

    def adoption_chain(self, memory_id: str) -> AdoptionChain:
        self._e.store.settle()
        with self._e.store.read("adoption chain") as conn:
            return replay.adoption_chain(conn, self._e.store.codec, self._e.mid(memory_id))

    def export_regression(self, memory_id: str) -> dict[str, Any]:
        store = self._e.store
        store.settle()
        with store.read("export regression case") as conn:
            return replay.regression_case(
                conn, store.codec, self._e.mid(memory_id), store.clock.now()
            )

    def security_events(self, *, limit: int) -> list[SecurityEvent]:
        whole_number(limit, "limit", 1)
        with self._e.store.read("security events") as conn:
            return event_log.security_events(conn, self._e.store.codec, limit=limit)
