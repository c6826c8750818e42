"""`service.memories`: curated memory. The write path (R4-R12: remember, suggest, observe,
extract, their batches of #13, import) and reading records, history and lineage (R5, R22)."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Mapping, Sequence
from typing import Any

from core.governance import controls, resolution
from core.governance.extractor import Extractor, Proposal
from core.governance.policy import Origin
from core.model.memory import AdoptionChain, MemoryFilter, MemoryOutcome, Tombstone
from core.model.records import Changes, Decision, Event, MemoryRecord, Result
from core.model.scope import Scope, ScopeArg
from core.model.validate import identifier, memory_filter, whole_number
from core.services.context import Engine, one, required_scope
from core.storage import memories, memory_history, memory_queries
from core.storage.store import changes_of, revision_of
from core.workflows import batch, deletion, portability, replay, writes
from core.workflows.spool import Spooler, spoolable

# Judging time per write transaction when extraction decides many proposals, and the pause
# after it (see `Memories._decide_in_turns`); a proposal is judged in tens of milliseconds.
# SQLite wakes a waiting writer of another process every 50-100 ms: without the pause, the
# next turn took the lock again before any waiter woke.
TURN_SECONDS = 1.0
YIELD_SECONDS = 0.15


class Memories:
    """Proposals become candidates the policy decides; records in any status, their
    history, revisions, tombstones and lineage."""

    def __init__(self, engine: Engine) -> None:
        self._e = engine

    def _write_gate(self) -> Spooler | None:
        return self._e.write_gate()

    @property
    def extractor(self) -> Extractor:
        """What proposes candidates from events (rules by default; the app may set an LLM)."""
        return self._e.extractor

    @extractor.setter
    def extractor(self, value: Extractor) -> None:
        self._e.extractor = value

    # --- the write path (R4-R12) -----------------------------------------------------

    @spoolable("memories.remember")
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
        replaces: Sequence[str] = (),
        same_as: str | None = None,
    ) -> Result[MemoryOutcome]:
        """The user's explicit request to remember something (R7 row 1).

        `said_at` and `speaker`: when and by whom it was said (history being imported),
        kept out of the text. `replaces` / `same_as`: live memories of the same scope this
        one replaces or restates (`core/governance/declared.py`); the policy decides by
        trust."""
        options: dict[str, Any] = dict(
            session=session,
            kind=kind,
            expires_in_days=expires_in_days,
            by=by,
            said_at=said_at,
            speaker=speaker,
            replaces=replaces,
            same_as=same_as,
        )
        req = required_scope(scope)
        self._e.ledger.prepare(writes.content_of(text, remember=True))
        with self._e.store.write("remember") as tx:
            out = writes.remember(tx, self._e.ledger, req, text, **options)
        return self._e.committed(out, tx)

    @spoolable("memories.suggest")
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
        replaces: Sequence[str] = (),
        same_as: str | None = None,
    ) -> Result[MemoryOutcome]:
        """An agent proposes a memory, citing evidence events; the policy decides (R6, R11).
        It may say what the memory replaces or restates (`replaces`, `same_as`, #40)."""
        options: dict[str, Any] = dict(
            kind=kind,
            evidence=evidence,
            session=session,
            by=by,
            said_at=said_at,
            speaker=speaker,
            replaces=replaces,
            same_as=same_as,
        )
        req = required_scope(scope)
        self._e.ledger.prepare(writes.content_of(text, remember=False))
        with self._e.store.write("suggest") as tx:
            out = writes.suggest(tx, self._e.ledger, req, text, **options)
        return self._e.committed(out, tx)

    @spoolable("memories.observe")
    def observe(
        self,
        scope: ScopeArg,
        text: str,
        *,
        session: str | None = None,
        contradicts: str | None = None,
    ) -> Result[Event]:
        """Report a fresh tool-verified observation; contradicted memories turn stale (R10)."""
        req = required_scope(scope)
        self._e.ledger.prepare(writes.observation_gist(text))
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
        self, session: str, event_ids: Sequence[str] | None = None
    ) -> Result[list[MemoryOutcome]]:
        """Run extraction over a session's events (or the named ones); only candidates come
        out of it (R6)."""
        ids = list(event_ids) if event_ids is not None else None
        return self._extract(session, ids)

    def pre_compress(self, session: str, event_ids: Sequence[str]) -> Result[list[MemoryOutcome]]:
        """`on_pre_compress`: candidates from the raw events about to leave the context (R12)."""
        return self._extract(session, list(event_ids), Origin.PRE_COMPRESS)

    def _extract(
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
        self._e.ledger.prepare(p.content for p in proposals)
        return self._decide_in_turns("extract", {name: proposals}, origin, background=False)

    def import_memories(
        self, document: Mapping[str, Any], *, by: str | None = None
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
        """Let a deleted memory's content be proposed again (the user lifts the fence)."""
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

    # --- batches on the write path (#13) ---------------------------------------------------

    def remember_many(self, items: Sequence[Mapping[str, Any]]) -> Result[list[MemoryOutcome]]:
        """Many `remember` requests in one transaction: all of them or none.

        Each item is a mapping with `scope` and `text` and optionally `session`, `kind`,
        `expires_in_days`, `by`, `said_at`, `speaker` (as `remember` takes them). Items see
        each other:
        a duplicate inside the batch merges, a contradiction supersedes or conflicts.

        Raises:
            InvalidInputError: naming the item and field (`items[3].text`); nothing written.
        """
        reqs = batch.requests(items, batch.REMEMBER_FIELDS)
        self._e.ledger.prepare(batch.contents(reqs, remember=True))
        with self._e.store.write("remember many") as tx:
            out = batch.remember_many(tx, self._e.ledger, reqs)
        return self._e.committed(out, tx, batch=True)

    def suggest_many(self, items: Sequence[Mapping[str, Any]]) -> Result[list[MemoryOutcome]]:
        """Many `suggest` proposals (`scope`, `text`, optional `kind`, `evidence`, `session`,
        `by`, `said_at`) in one transaction: all of them or none (errors name the item)."""
        reqs = batch.requests(items, batch.SUGGEST_FIELDS)
        self._e.ledger.prepare(batch.contents(reqs, remember=False))
        with self._e.store.write("suggest many") as tx:
            out = batch.suggest_many(tx, self._e.ledger, reqs)
        return self._e.committed(out, tx, batch=True)

    def extract_many(self, sessions: Sequence[str]) -> Result[list[MemoryOutcome]]:
        """`extract` over several sessions (an import): the extractor runs outside the
        write transaction, then the proposals are decided in short transactions, in turn
        with other writers (`_decide_in_turns`)."""
        names = list(dict.fromkeys(identifier(s, "sessions") for s in sessions))
        store = self._e.store
        with store.read("read session events") as conn:
            events = batch.sessions_to_extract(conn, store.codec, names)
        proposals = {name: self._e.extractor.extract(evs) for name, evs in events.items()}
        self._e.ledger.prepare(p.content for found in proposals.values() for p in found)
        return self._decide_in_turns("extract many", proposals, Origin.EXTRACT, background=True)

    def _decide_in_turns(
        self,
        label: str,
        proposals: Mapping[str, Sequence[Proposal]],
        origin: Origin,
        *,
        background: bool,
    ) -> Result[list[MemoryOutcome]]:
        """Decide the proposals in write transactions of at most `TURN_SECONDS` of judging
        each, with a pause between, so that other writers get the store: an import's 3,000
        proposals held it for 144 s, and a user's `remember` meanwhile failed with "the store
        is busy".
        A run stopped between turns loses nothing: extraction runs again from the session's
        mark, and what was already decided is recognised (`writes._already_decided`)."""
        work = [(name, p) for name, found in proposals.items() for p in found]
        out: list[MemoryOutcome] = []
        parts: list[Changes] = []
        done = 0
        while done < len(work) or not parts:
            with self._e.store.write(label) as tx:
                started = time.monotonic()
                allowed: dict[str, bool] = {}
                while done < len(work):
                    name, proposal = work[done]
                    if name not in allowed:  # opt-outs checked again in each transaction
                        allowed[name] = not writes.opted_out(tx.conn, tx.codec, name)
                    if allowed[name]:
                        ledger = self._e.ledger
                        out += writes.submit_proposals(tx, ledger, [proposal], name, origin=origin)
                    done += 1
                    if time.monotonic() - started >= TURN_SECONDS:
                        break
            # A batch's memories are embedded in the background, as before (#13).
            parts.append(self._e.committed([], tx, batch=background).changes)
            if done < len(work):
                time.sleep(YIELD_SECONDS)
        return Result(out, Changes.combined(parts))

    # --- reading memory -------------------------------------------------------------------

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

    def list_memories(self, flt: MemoryFilter | None = None) -> list[MemoryRecord]:
        """Records in every status and scope unless filtered, newest first.

        Damaged records are left out and reported once (security event, `status`)."""
        chosen = self._e.at_now(flt or MemoryFilter(limit=1_000_000))
        memory_filter(chosen)
        with self._e.store.read("list memories") as conn:
            found = memory_queries.query(conn, self._e.store.codec, chosen, self._e.catalog.texts)
        self._e.report_damage(found.damaged)
        return list(found)

    def export_memories(self, flt: MemoryFilter | None = None) -> dict[str, Any]:
        """A portable JSON document of memories (default: active and suggested ones).

        The document holds decrypted content: it is for the user, who is told the file is
        not encrypted."""
        chosen = flt or MemoryFilter(statuses=("active", "candidate"), limit=1_000_000)
        return portability.export_document(self.list_memories(chosen), self._e.store.clock.now())

    def count_memories(self, flt: MemoryFilter | None = None) -> int:
        """How many memories match a filter's metadata (status, kind, trust, scope, dates)."""
        chosen = self._e.at_now(flt or MemoryFilter())
        memory_filter(chosen)
        with self._e.store.read("count memories") as conn:
            return memory_queries.count(conn, chosen)

    def history(self, memory_id: str) -> list[Decision]:
        """Every decision about a memory, oldest first (R5)."""
        record = self.get_memory(memory_id)
        with self._e.store.read("read history") as conn:
            return memory_history.history(conn, self._e.store.codec, record.id)

    def check_declared(
        self, scope: ScopeArg, *, replaces: Sequence[str] = (), same_as: str | None = None
    ) -> None:
        """Refuse now what `remember` / `suggest` would refuse of these declarations (#40),
        for an entry point that writes something before the memory (nothing is written).

        Raises:
            InvalidInputError: naming the field (`replaces`, `same_as`)."""
        req = required_scope(scope)
        with self._e.store.read("check declared memories") as conn:
            writes.check_declared(conn, self._e.store.codec, req, replaces, same_as)

    def possible_relation(self, memory_id: str) -> tuple[str, MemoryRecord] | None:
        """For a memory waiting as "possibly the same as / replaces / contradicts m_…" (#40):
        the doubt ("the same as", "replaces", "contradicts") and the other memory; None
        when it waits for no such answer (or the other memory is gone)."""
        record = self.get_memory(memory_id)
        if record.status.value != "candidate":
            return None
        codec = self._e.store.codec
        with self._e.store.read("read the possible relation") as conn:
            history = memory_history.history(conn, codec, record.id)
            found = resolution.possible(" ".join(d.reason for d in history))
            other = memories.load(conn, codec, [found[1]]) if found else []
        return (found[0], other[0]) if found and other else None

    def revisions(self, memory_id: str) -> list[tuple[int, dt.datetime, str, Scope, str]]:
        """Every stored revision: (number, time, actor, scope, content)."""
        record = self.get_memory(memory_id)
        with self._e.store.read("read revisions") as conn:
            return memory_history.revisions(conn, self._e.store.codec, record.id)

    def memory_at(self, revision: int) -> list[MemoryRecord]:
        """Every memory as it stood at a past store revision (evaluation and replay, R21)."""
        whole_number(revision, "revision")
        with self._e.store.read("reconstruct memory") as conn:
            return memory_history.state_at(conn, self._e.store.codec, revision)

    def tombstone(self, memory_id: str) -> Tombstone:
        """The tombstone of a deleted memory. Raises NotFoundError."""
        with self._e.store.read("read tombstone") as conn:
            return deletion.read_tombstone(conn, self._e.store.codec, self._e.mid(memory_id))

    def adoption_chain(self, memory_id: str) -> AdoptionChain:
        """Source events, activation, injections and corrections of a memory (R22)."""
        self._e.store.settle()
        with self._e.store.read("adoption chain") as conn:
            return replay.adoption_chain(conn, self._e.store.codec, self._e.mid(memory_id))

    def export_regression(self, memory_id: str) -> dict[str, Any]:
        """A regression case (JSON-able) for a memory that caused trouble (R22)."""
        store = self._e.store
        store.settle()
        with store.read("export regression case") as conn:
            return replay.regression_case(
                conn, store.codec, self._e.mid(memory_id), store.clock.now()
            )
