"""The vector side of retrieval: an encrypted HNSW index kept in step with the catalog.

The index is derived: it can be deleted and rebuilt from the store at any time. On open it
is loaded from its sealed file when that file was built by the same embedder, reconciled
against the active records (missing ones embedded, extra ones removed), and saved again on
close. Deleting a memory scrubs its vector at once; a purge rebuilds the graph without it
and rewrites the file, so the vector bytes are gone from disk (R19).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.crypto.codec import Codec
from core.errors import MemoryCenterError
from core.index.embedder import Embedder
from core.index.heap import give_back_free_memory
from core.index.vector_delta import delta_path
from core.index.vector_index import IndexMeta, VectorIndex
from core.model.records import MemoryRecord
from core.retrieval import windows

if TYPE_CHECKING:
    from core.index.embedder import Matrix

log = logging.getLogger(__name__)

INDEX_FILE = "vectors.mcidx"
EMBED_BATCH = 64
# Background batches stay small: a query embedding waits for the model behind at most one.
BACKGROUND_BATCH = 8
# Conversation windows are three turns long: two at a time keep the model free for a query
# within ~0.1 s (the batch size hardly changes throughput on CPU).
WINDOW_BATCH = 2
# While memories wait for their own vectors, the window worker checks back this often.
WINDOW_DEFER_SECONDS = 0.5
# How long the hot path waits for a model still loading before answering by keywords.
WARM_WAIT = 0.3
# The hot path embeds (or waits for) at most this many of its own queued records, this long.
READ_CATCH_UP = 4
SETTLE_SECONDS = 0.25
SYNC_BACKFILL = 64
BACKFILL_SLICE = 1024
QUERY_CACHE = 256
# A save of a 100k index takes seconds; a temp file this old has no writer any more.
STALE_TEMP_SECONDS = 600.0


def passage_text(record: MemoryRecord) -> str:
    """What is embedded for a memory: its words after its speaker's name, as the model reads
    them in an injection. A question names the person ("what did Melanie paint?"), and a
    turn embedded without its speaker lost R@10 0.654 -> 0.556 on the conversation
    benchmark (docs/retrieval.md): the name stays out of the stored text, not out of the
    meaning."""
    return record.spoken()


def remove_stale_temp_files(path: Path, older_than: float = STALE_TEMP_SECONDS) -> list[Path]:
    """Delete temporary files an interrupted write of `path` left behind (kill -9 mid-save).

    `atomic_write` writes `.<name>.<random>.tmp` and renames it; a process killed before the
    rename leaves the temp file for ever. Only this file's own temp pattern is touched, and
    only files untouched for `older_than` seconds: a younger one may belong to another
    process's save in progress, whose rename would fail if we took its file away.
    """
    removed = []
    cutoff = time.time() - older_than
    for stale in path.parent.glob(f".{path.name}.*.tmp"):
        try:
            if stale.stat().st_mtime > cutoff:
                continue
            stale.unlink()
        except OSError:
            continue
        removed.append(stale)
    return removed


def worth_waiting(backlog: int, rate: float | None, seconds: float) -> bool:
    """Whether the hot path should wait for `backlog` queued records it can see to get their
    vectors: only when they can be embedded within `seconds` at the measured `rate` (texts
    per second; None: not measured yet). A bulk write queues thousands (an import here or in
    another process): every turn waited the whole window for them, under contention with
    the embedding itself (~0.35 s a turn at 5,000), and then left vector scores out anyway,
    since the model was still busy (#13, R17). The keyword path serves them meanwhile."""
    if backlog == 0:
        return False
    return rate is None or backlog / rate <= seconds


class VectorLayer:
    """Embeddings of active memories, searchable within a scope.

    Args:
        embedder: turns texts into unit vectors.
        directory: where the sealed index file lives (None: memory only).
        codec: seals the file.
    """

    def __init__(
        self,
        embedder: Embedder,
        directory: Path | None,
        codec: Callable[[], Codec],
        *,
        windows_enabled: bool | Callable[[], bool] = True,
    ) -> None:
        self.embedder = embedder
        self._dir = directory
        self._codec = codec
        self._lock = threading.RLock()
        self._index: VectorIndex | None = None
        self._dirty = False
        self._loaded = False
        self._queries: dict[str, Any] = {}
        self.load_error: str | None = None
        self._warming: threading.Thread | None = None
        self._ready = threading.Event()
        # Records waiting to be embedded by the background worker (writes never wait for
        # the model, #13), the ids it is embedding now, and those removed meanwhile.
        self._pending: dict[str, MemoryRecord] = {}
        # Texts per second of the latest embeddings of queued records (None: none yet).
        self._rate: float | None = None
        # The same for conversation windows (three turns each: slower per text).
        self._window_rate: float | None = None
        # Memories the backfill thread of a reopened store has still to embed (#44: they
        # are pending like queued ones, and `status` says so), under a lock of its own:
        # the reconcile that starts a backfill holds no other.
        self._backfill_left = 0
        self._count_lock = threading.Lock()
        self._inflight: set[str] = set()
        self._cancelled: set[str] = set()
        self._worker: threading.Thread | None = None
        self._backfiller: threading.Thread | None = None
        # The first read of the index file, in the background, and what the catalog held
        # then (entries of the file outside it are stale); set once the file is read.
        self._file_loader: threading.Thread | None = None
        self._first_lock = threading.Lock()
        self._reconcile_lock = threading.Lock()
        self._wanted: set[str] | None = None
        self._first: tuple[list[str], Callable[[list[str]], list[MemoryRecord]], int] | None = None
        self._file_ready = threading.Event()
        self._idle = threading.Condition(self._lock)
        # Set by `stop` (the service closes): background threads end after their current
        # batch instead of reading from a store that is gone.
        self._stopping = threading.Event()
        # Conversation windows (`core/retrieval/windows.py`): which window names which
        # memory, and windows waiting to be embedded.
        self._windows: windows.Contributors | None = None
        self._window_pending: dict[str, str] = {}
        # Records a read embedded itself (`_catch_up`): the window worker works out the
        # windows they make due, off the hot path.
        self._window_sources: list[list[MemoryRecord]] = []
        self._window_inflight = 0
        self._window_worker: threading.Thread | None = None
        # The store's setting (`conversation_windows`): off, no window is embedded or read,
        # and the file's windows are dropped; the mean of stored vectors serves instead. A
        # callable is read on first use (the vector file's load), not at every store open.
        self._windows_setting = windows_enabled
        # Set by the catalog: the windows (key -> text) that new vectors make due.
        self.windows_for: Callable[[list[MemoryRecord]], dict[str, str]] | None = None
        # A process without a hot path (the memory center) leaves the HNSW graph in the
        # file and searches the rows exactly (`VectorIndex.load(graph=False)`, #13).
        self.graph_on_demand = False

    @property
    def index(self) -> VectorIndex:
        """The HNSW index, made on first use (a command that reads no vector never builds it,
        nor imports numpy and hnswlib)."""
        with self._lock:
            if self._index is None:
                self._index = VectorIndex(self.embedder.dim)
            return self._index

    @index.setter
    def index(self, value: VectorIndex) -> None:
        with self._lock:
            self._index = value
            self._windows = None

    @property
    def windows_enabled(self) -> bool:
        """Whether conversation windows are embedded and read (the store's setting)."""
        setting = self._windows_setting
        if callable(setting):
            setting = self._windows_setting = bool(setting())
        return setting

    @windows_enabled.setter
    def windows_enabled(self, enabled: bool) -> None:
        self._windows_setting = enabled

    @contextlib.contextmanager
    def _window_work(self) -> Iterator[None]:
        """Ends a piece of window work the caller counted in `_window_inflight` under the
        lock it took the work with (so `wait_idle` never sees it neither queued nor running)."""
        try:
            yield
        finally:
            with self._lock:
                self._window_inflight -= 1
                self._idle.notify_all()

    @property
    def path(self) -> Path | None:
        """The sealed index file."""
        return self._dir / INDEX_FILE if self._dir else None

    @property
    def name(self) -> str:
        """The embedder in use, as recorded in snapshots and the index file."""
        return f"{self.embedder.name}@{self.embedder.version}"

    def reconcile(
        self,
        ids: Collection[str],
        load: Callable[[list[str]], list[MemoryRecord]],
        revision: int,
    ) -> None:
        """Make the index hold exactly these memories' vectors (after a full catalog load).

        `load` reads records by id: only the memories missing from the index are read (and
        decrypted) to be embedded. The first time, the index file is read in the background
        (~0.8 s at 100k): the catalog, and the turn waiting for it, go on without it, and
        injections answer from the keyword index until it is in (R17, #13).
        """
        with self._first_lock:
            # Not `_lock`: the read of the file holds that for its whole length.
            first = not self._file_ready.is_set()
            if first:
                # Stale entries are dropped as the file is read, under the same lock, so a
                # memory embedded meanwhile is never mistaken for one. A later full load
                # before the read replaces what the read will reconcile with.
                self._wanted = set(ids)
                self._first = (list(ids), load, revision)
        if first:
            self.load_in_background()
            return
        with self._lock:
            wanted = set(ids)
            self._drop_stale(wanted)
            missing = [mid for mid in ids if mid not in self.index]
            self._revision = revision
        self._embed_missing(missing, load)

    def _first_reconcile(self) -> None:
        """Read the file if nobody did, and queue what the catalog's first load found
        missing from it. Whoever calls this returns only once that is queued (the reader
        thread, or a patient reader that must not miss a memory: a search, close)."""
        with self._reconcile_lock:
            with self._lock:
                self._ensure_loaded()
                with self._first_lock:
                    first, self._first = self._first, None
                if first is None:
                    return
                ids, load, revision = first
                missing = [mid for mid in ids if mid not in self.index]
                self._revision = revision
            if self._stopping.is_set():
                return
            try:
                self._embed_missing(missing, load)
            except MemoryCenterError:
                # Reading the records failed (a server away): the next patient reader,
                # close or full catalog load tries again.
                with self._first_lock:
                    self._first = self._first or first
                raise

    def _read_in_background(self) -> None:
        try:
            self._first_reconcile()
        except MemoryCenterError as exc:
            log.warning("vector index: the first reconcile failed, retried later: %s", exc)

    def _settle_first(self) -> None:
        """Wait for (or do) a first reconcile that is due; nothing when none is: a command
        that never loaded the catalog does not read the file (nor import numpy) at close."""
        with self._first_lock:
            due = self._first is not None or self._reconcile_lock.locked()
        if due:
            self._first_reconcile()

    def _embed_missing(
        self, missing: list[str], load: Callable[[list[str]], list[MemoryRecord]]
    ) -> None:
        # Missing vectors are embedded in the background; until then retrieval uses the
        # keyword index plus whatever vectors exist (R17: never stall the turn).
        if len(missing) <= SYNC_BACKFILL:
            self.put_later(load(missing) if missing else [])
        else:
            # A big first build: records are decrypted in slices, not all held at once.
            # Started before it is published: `stop` (another thread) joins only started
            # threads, and one it does not see yet finds `_stopping` set and ends.
            backfiller = threading.Thread(
                target=self._backfill, args=(missing, load), name="mc-backfill", daemon=True
            )
            with self._count_lock:
                self._backfill_left += len(missing)
            backfiller.start()
            self._backfiller = backfiller

    def load_in_background(self) -> None:
        """Start reading the index file in a background thread, unless it is read or being
        read (then the catalog's first load is reconciled with it)."""
        with self._first_lock:
            if self._file_loader is not None or self._file_ready.is_set():
                return
            # Started under the lock: `stop` never sees a thread it cannot join yet.
            self._file_loader = threading.Thread(
                target=self._read_in_background, name="mc-vector-load", daemon=True
            )
            self._file_loader.start()

    def put(self, records: Iterable[MemoryRecord]) -> None:
        """Embed and index records (new, or with changed content)."""
        batch = list(records)
        for start in range(0, len(batch), EMBED_BATCH):
            chunk = batch[start : start + EMBED_BATCH]
            vectors = self._embed_records(chunk)
            with self._lock:
                self._ensure_loaded()
                self._drop_windows(r.id for r in chunk)
                self.index.add([r.id for r in chunk], vectors)
                self._dirty = True
            self._queue_windows(chunk)

    def put_later(self, records: Iterable[MemoryRecord]) -> None:
        """Queue records for embedding in the background, in batches; returns at once."""
        with self._lock:
            for record in records:
                self._pending[record.id] = record
                self._cancelled.discard(record.id)
            if self._pending:
                self._ensure_worker()

    def put_soon(self, records: list[MemoryRecord], now_up_to: int) -> None:
        """Embed a few records at once when the model is loaded and idle (a single user
        action: its memory is searchable by meaning on the next turn); queue the rest."""
        # Not while a worker holds the model (own vectors or conversation windows): the
        # write would wait for its batch.
        busy = self._inflight or self._window_pending or self._window_inflight
        if 0 < len(records) <= now_up_to and not self._loading() and not busy:
            try:
                self.put(records)
                return
            except MemoryCenterError as exc:
                log.warning("embedding new memories failed, queued: %s", exc)
        self.put_later(records)

    def pending(self) -> int:
        """How many records wait for their vector (queued, being embedded, or left to the
        backfill of a reopened store)."""
        with self._lock:
            return len(self._pending) + len(self._inflight) + self._backfill_left

    def _own_work(self) -> bool:
        """True while memories wait for their own vector (call with the lock held)."""
        return bool(self._pending or self._inflight or self._backfill_left)

    def wait_idle(
        self,
        timeout: float | None = None,
        *,
        with_windows: bool = True,
        with_backfill: bool = True,
    ) -> bool:
        """Block until the background embedding is done (tests, benchmarks, close).

        `with_windows=False`: only the memories' own vectors; conversation windows left queued
        are made again when a query asks for them (close and rebuild do not wait for them).
        `with_backfill=False`: not for the backfill of a reopened store either (close stops
        it, and the next open finds what is left missing).
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        self._settle_first()

        def busy() -> bool:
            own = bool(self._pending or self._inflight)
            own = own or (with_backfill and self._backfill_left > 0)
            windows_busy = self._window_pending or self._window_sources or self._window_inflight
            return own or (with_windows and bool(windows_busy))

        with self._lock:
            while busy():
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                if self._pending:
                    self._ensure_worker()
                if self._window_pending or self._window_sources:
                    self._ensure_window_worker()
                self._idle.wait(left if left is None else min(left, 1.0))
            return True

    def _ensure_worker(self) -> None:
        """Start the background embedder unless it runs (call with the lock held)."""
        if self._worker is None or not self._worker.is_alive():
            self._worker = threading.Thread(target=self._drain, name="mc-embed", daemon=True)
            self._worker.start()

    def stop(self, timeout: float) -> bool:
        """End the background threads after their current batch (what is left is found
        missing and embedded by the next open); True when they ended within `timeout`."""
        self._stopping.set()
        deadline = time.monotonic() + timeout
        with self._first_lock:
            loader = self._file_loader
        threads = (loader, self._backfiller, self._worker, self._window_worker)
        for thread in threads:
            if thread is not None and thread is not threading.current_thread():
                thread.join(max(0.0, deadline - time.monotonic()))
        return not any(t is not None and t.is_alive() for t in threads)

    def _drain(self) -> None:
        while True:
            with self._lock:
                if not self._pending or self._stopping.is_set():
                    self._idle.notify_all()
                    return
                chunk = [self._pending.pop(i) for i in list(self._pending)[:BACKGROUND_BATCH]]
                self._inflight.update(r.id for r in chunk)
                # Counted until the chunk's windows are queued: `wait_idle` waits for them.
                self._window_inflight += 1
            with self._window_work():
                if not self._embed_now(chunk):
                    with self._lock:
                        self._pending.clear()
                    return
                self._queue_windows(chunk)

    def _settle(self, allowed: set[str]) -> None:
        """The hot path's catch-up on records it can see that wait for their vector (just
        written here): a few are embedded now, the rest waited for while the worker embeds
        them, within `SETTLE_SECONDS` in all; what is still missing then is left out."""
        self._catch_up(allowed, READ_CATCH_UP)
        deadline = time.monotonic() + SETTLE_SECONDS
        with self._lock:
            backlog = len(self._inflight & allowed) + len(allowed & self._pending.keys())
            if not worth_waiting(backlog, self._rate, SETTLE_SECONDS):
                return
            while self._inflight & allowed or not self._pending.keys().isdisjoint(allowed):
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self._idle.wait(left)

    def _catch_up(self, allowed: set[str], most: int | None) -> None:
        """Embed the queued records a read could see (just written by this process) rather
        than miss them; at most `most` (None: all), else leave them to the worker."""
        with self._lock:
            if not self._pending:
                return
            due = [mid for mid in self._pending if mid in allowed]
            if not due or (most is not None and len(due) > most):
                return
            chunk = [self._pending.pop(mid) for mid in due]
            self._inflight.update(due)
        if self._embed_now(chunk) and self.windows_for is not None and self.windows_enabled:
            # Their windows are queued as the worker's would be, or a window waiting for
            # one of these turns would never be made (only asked for by a query).
            with self._lock:
                self._window_sources.append(chunk)
                self._ensure_window_worker()

    def _embed_now(self, chunk: list[MemoryRecord]) -> bool:
        """Embed records taken off the queue and index those not removed meanwhile."""
        ids = [r.id for r in chunk]
        try:
            vectors = self._embed_records(chunk)
        except MemoryCenterError as exc:
            log.warning("embedding queued memories failed: %s", exc)
            vectors = None
        with self._lock:
            if vectors is not None:
                self._ensure_loaded()
                keep = [i for i, mid in enumerate(ids) if mid not in self._cancelled]
                self._drop_windows(ids[i] for i in keep)
                if keep:
                    self.index.add([ids[i] for i in keep], vectors[keep])
                    self._dirty = True
            self._inflight.difference_update(ids)
            self._cancelled.difference_update(ids)
            self._idle.notify_all()
        return vectors is not None

    def _embed_records(self, records: list[MemoryRecord]) -> Matrix:
        """The records' passage vectors; the time it took updates the measured rate."""
        started = time.monotonic()
        vectors = self.embedder.embed([passage_text(r) for r in records], kind="passage")
        took = time.monotonic() - started
        if records and took > 0:
            rate = len(records) / took
            self._rate = rate if self._rate is None else (self._rate + rate) / 2
        return vectors

    def _backfill(
        self, missing: list[str], load: Callable[[list[str]], list[MemoryRecord]]
    ) -> None:
        try:
            # In slices: the decrypted texts of a whole 100k store need not be held at once.
            for start in range(0, len(missing), BACKFILL_SLICE):
                if self._stopping.is_set():
                    return
                ids = missing[start : start + BACKFILL_SLICE]
                records = load(ids)
                self._backfilled(len(ids) - len(records))  # gone since: nothing to embed
                # Small batches, as the queue's worker: a closing service waits for the
                # one in flight (a 64-text batch kept a quitting desktop for seconds, #43).
                for first in range(0, len(records), BACKGROUND_BATCH):
                    if self._stopping.is_set():
                        return  # the closing service saves what was embedded
                    chunk = records[first : first + BACKGROUND_BATCH]
                    self.put(chunk)
                    self._backfilled(len(chunk))
            self.save()
        except MemoryCenterError as exc:
            log.warning("background vector build stopped: %s", exc)
        finally:
            # Stopped or failed: what is left is found missing again at the next open.
            with self._count_lock:
                self._backfill_left = 0
            with self._lock:
                self._idle.notify_all()

    def _backfilled(self, count: int) -> None:
        with self._count_lock:
            self._backfill_left = max(0, self._backfill_left - count)
        with self._lock:
            self._idle.notify_all()

    def warm_up(self) -> None:
        """Load the model in the background so the first query does not pay for it.

        Idempotent: later calls while (or after) the model loads start nothing.
        """
        with self._lock:
            if self._warming is not None or self._ready.is_set():
                return
            self._warming = threading.Thread(
                target=self._load_model, name="mc-embedder-load", daemon=True
            )
        self._warming.start()

    def _load_model(self) -> None:
        try:
            self.embedder.load()
        except MemoryCenterError as exc:
            # Kept for `check_embedder` and `index status`: never a silent downgrade.
            self.load_error = f"embedder {self.name} failed to load: {exc}"
            log.error("%s", self.load_error)
        finally:
            self._ready.set()

    def _loading(self) -> bool:
        """True while a background load started by `warm_up` is under way."""
        return self._warming is not None and not self._ready.is_set()

    def model_ready(self, wait: float = 0.0) -> bool:
        """True when embedding will not wait for the model to load.

        A model is ready once a load finished (or failed: the failure is then reported by
        the query itself). An embedder that does not say whether it is loaded is ready.
        `wait`: seconds to wait for a load already in progress.
        """
        if self._ready.is_set():
            return True
        probe = getattr(self.embedder, "is_loaded", None)
        if probe is None or probe():
            self._ready.set()
            return True
        return wait > 0 and self._ready.wait(wait)

    def load_file(self) -> None:
        """Read the index file now (otherwise the first query that needs it does), then
        start embedding what the catalog's first load found missing from it."""
        self._first_reconcile()

    @property
    def file_loaded(self) -> bool:
        """True once the index file was read (or found absent): a query no longer waits
        for a 100k-vector file to be read and opened (~1 s)."""
        return self._file_ready.is_set()

    def remove(self, memory_id: str) -> bool:
        """Scrub a memory's vector (zeroed, then marked deleted)."""
        with self._lock:
            self._ensure_loaded()
            self._forget_pending(memory_id)
            removed = self.index.remove(memory_id)
            dropped = self._drop_windows([memory_id])
            self._dirty = self._dirty or removed or dropped
            return removed

    def purge(self, memory_ids: Iterable[str]) -> None:
        """Scrub these memories' vectors and rewrite the file now (compliance purge, R19).

        `remove` overwrites the vector with zeros before marking it deleted, so the rewritten
        file no longer holds its bytes; the graph itself is compacted only when dead slots
        pile up (a full rebuild takes minutes at 100k, a rewrite seconds).
        """
        with self._lock:
            # A process that has not read the file yet (a CLI purge) must start from it:
            # saving its empty in-memory index would wipe every other memory's vector.
            self._ensure_loaded()
            for memory_id in memory_ids:
                self._forget_pending(memory_id)
                self.index.remove(memory_id)
                self._drop_windows([memory_id])
            if self.index.needs_compaction():
                self.index.compact()
            self._dirty = True
            self.save()

    def scores(
        self, query: str, allowed: set[str], k: int = 50, *, patient: bool = False
    ) -> dict[str, float]:
        """Cosine similarity of the query to the allowed memories (the best `k`).

        Impatient (the hot path) waits for a loading model at most `WARM_WAIT` and not at all
        for queued memories: no scores while the background worker holds the model, unless
        the query's vector is cached (`prefetch`).
        Patient (search) waits, and first embeds every queued record the request can see.
        """
        if not allowed:
            return {}
        if patient:
            self._settle_first()
            self._catch_up(allowed, None)
            with self._lock:
                # And those the worker is embedding now: a search never misses them.
                while self._inflight & allowed and not self._stopping.is_set():
                    self._idle.wait(1.0)
        elif not self._file_ready.is_set():
            self.load_in_background()  # no scores until the file is in: keywords answer
            return {}
        elif self._loading() and not self._ready.wait(WARM_WAIT):
            return {}
        else:
            self._settle(allowed)
            if self._inflight and not self._cached(query):
                return {}
        vector = self.query_vector(query)
        with self._lock:
            return dict(self.index.search(vector, k, allowed=allowed))

    def _cached(self, query: str) -> bool:
        with self._lock:
            return query in self._queries

    def query_vector(self, query: str) -> Any:
        """The query's embedding, cached (LRU): `prefetch(goal)` then `inject(goal)` embeds once."""
        with self._lock:
            cached = self._queries.pop(query, None)
            if cached is not None:
                # Least recently used goes first: a goal an agent repeats stays cached.
                self._queries[query] = cached
                return cached
        try:
            vector = self.embedder.embed([query], kind="query")[0]
        except MemoryCenterError as exc:
            self.load_error = f"embedder {self.name} failed: {exc}"
            raise
        with self._lock:
            self._queries[query] = vector
            while len(self._queries) > QUERY_CACHE:
                self._queries.pop(next(iter(self._queries)))
        return vector

    def save(self, *, whole: bool = False) -> None:
        """Write the sealed index file if anything changed (`whole`: the graph file too, when
        only additions would be written beside it)."""
        with self._lock:
            if not self._dirty or self.path is None:
                return
            self._ensure_loaded()
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            meta = IndexMeta.for_embedder(self.embedder, getattr(self, "_revision", 0))
            self.index.save(self.path, self._codec(), meta, whole=whole)
            self._dirty = False
            if self.graph_on_demand and self.index.release_graph():
                give_back_free_memory()

    def reseal(self) -> None:
        """Rewrite the file under the current key (after a key rotation)."""
        with self._lock:
            self._ensure_loaded()
            self._dirty = True
            self.save(whole=True)

    def mark_loaded(self) -> None:
        """Skip loading the file: the index was replaced in memory (rebuild)."""
        self._loaded = True
        with self._first_lock:
            self._file_ready.set()

    def reset(self) -> None:
        """Start from an empty index (a rebuild): the file is not read, and is rewritten on
        the next save."""
        with self._lock:
            self.index = VectorIndex(self.embedder.dim)
            self._queries.clear()
            self._dirty = True
            self._loaded = True
            with self._first_lock:
                self._wanted = self._first = None
                self._file_ready.set()

    def status(self) -> dict[str, object]:
        """Facts for `index status`, the MCP status and the desktop: sizes, and the
        background embedding still to do with its progress and remaining time (#44)."""
        with self._lock:
            windows_held = self._contributors().count
            vectors = len(self.index) - windows_held
            pending = len(self._pending) + len(self._inflight) + self._backfill_left
            windows_pending = len(self._window_pending)
            # The file is still being read and compared with the catalog: what is missing
            # is not known yet, so the index is not settled whatever the counts say.
            with self._first_lock:
                reconciling = self._first is not None or self._reconcile_lock.locked()
            return {
                "embedder": self.name,
                "vectors": vectors,
                "windows": windows_held,
                "dead_slots": self.index.dead_slots,
                "pending": pending,
                "backfill_pending": self._backfill_left,
                "windows_pending": windows_pending,
                "windows_enabled": self.windows_enabled,
                "reconciling": reconciling,
                "settled": pending == 0 and windows_pending == 0 and not reconciling,
                "progress": self._progress(vectors, pending, windows_held, windows_pending),
                "file": str(self.path) if self.path else None,
            }

    def _progress(
        self, vectors: int, pending: int, windows_held: int, windows_pending: int
    ) -> dict[str, object]:
        """How far the background embedding is, and about how long it has left: memories
        first, then windows (each memory still to embed will make about one more window
        due). `eta_seconds` is None until a rate was measured in this process."""
        windows_due = windows_pending + (pending if self.windows_enabled else 0)
        rate = self._rate
        window_rate = self._window_rate or (rate / 3 if rate else None)
        eta: float | None = None
        if pending == 0 and windows_due == 0:
            eta = 0.0
        elif rate and (window_rate or windows_due == 0):
            eta = pending / rate + (windows_due / window_rate if window_rate else 0.0)
        return {
            "vectors_done": vectors,
            "vectors_total": vectors + pending,
            "windows_done": windows_held,
            "windows_total": windows_held + windows_due,
            "texts_per_second": round(rate, 2) if rate else None,
            "eta_seconds": round(eta, 1) if eta is not None else None,
        }

    # --- conversation windows (#17) ---------------------------------------------------------

    def window_vectors(self, keys: list[str], text_of: Callable[[str], str]) -> dict[str, Any]:
        """The stored vectors of these windows; missing ones are queued for the background
        worker (no read waits for a window: the mean of stored vectors serves meanwhile)."""
        with self._lock:
            if not self._file_ready.is_set() or not self.windows_enabled:
                return {}
            found = self.index.get_vectors(keys)
            missing = [k for k in keys if k not in found and k not in self._window_pending]
        if missing:
            texts = {k: text_of(k) for k in missing}
            with self._lock:
                self._window_pending.update(texts)
                self._ensure_window_worker()
        return found

    def _queue_windows(self, records: list[MemoryRecord]) -> None:
        """Queue the windows these new vectors make due (their turns', their neighbours'),
        so injections find them embedded rather than fall back to the mean."""
        source = self.windows_for
        if source is None or self._stopping.is_set() or not self.windows_enabled:
            return
        try:
            due = source(records)
        except MemoryCenterError as exc:
            log.warning("conversation windows not queued: %s", exc)
            return
        with self._lock:
            # Only windows whose every turn has its vector: the others are queued again
            # when their last turn is embedded.
            fresh = {
                k: t
                for k, t in due.items()
                if k not in self.index and all(m in self.index for m in windows.contributors(k))
            }
            if fresh:
                self._window_pending.update(fresh)
                self._ensure_window_worker()

    def _embed_windows(self, items: dict[str, str]) -> None:
        keys = list(items)
        started = time.monotonic()
        try:
            vectors = self.embedder.embed([items[k] for k in keys], kind="passage")
            took = time.monotonic() - started
            if keys and took > 0:
                rate = len(keys) / took
                old = self._window_rate
                self._window_rate = rate if old is None else (old + rate) / 2
        except MemoryCenterError as exc:
            log.warning("embedding conversation windows failed: %s", exc)
            return
        with self._lock:
            if not self.windows_enabled:
                return  # switched off while this batch was being embedded
            self._ensure_loaded()
            for i, window in enumerate(keys):
                # Every turn it holds must still have its own vector, checked under the
                # lock `remove` takes: a window of a turn deleted meanwhile is never added.
                named = windows.contributors(window)
                if window in self.index or not all(m in self.index for m in named):
                    continue
                self.index.add([window], vectors[i : i + 1])
                self._contributors().add(window)
                self._dirty = True

    def _ensure_window_worker(self) -> None:
        """Start the window embedder unless it runs (call with the lock held)."""
        if self._window_worker is None or not self._window_worker.is_alive():
            self._window_worker = threading.Thread(
                target=self._drain_windows, name="mc-embed-windows", daemon=True
            )
            self._window_worker.start()

    def _drain_windows(self) -> None:
        while True:
            with self._lock:
                source = None
                if self._window_sources and not self._stopping.is_set():
                    source = self._window_sources.pop(0)
                    self._window_inflight += 1
            if source is not None:
                with self._window_work():
                    self._queue_windows(source)
                continue
            with self._lock:
                if not self._window_pending or self._stopping.is_set():
                    self._window_pending.clear()
                    self._window_sources.clear()
                    self._idle.notify_all()
                    return
                if self._own_work() and not self._window_sources:
                    # The memories' own vectors first (#44): an imported history becomes
                    # searchable by meaning turn by turn, and windows follow; until then
                    # the mean of the stored vectors stands in for a window.
                    self._idle.wait(WINDOW_DEFER_SECONDS)
                    continue
                taken = list(self._window_pending)[:WINDOW_BATCH]
                chunk = {k: self._window_pending.pop(k) for k in taken}
                self._window_inflight += 1
            with self._window_work():
                self._embed_windows(chunk)

    def set_windows(self, enabled: bool) -> int:
        """Switch conversation windows on or off; off drops every stored and queued window
        (the file is rewritten at the next save). Returns how many windows were dropped.
        Switched on, windows are made again as turns are embedded and as queries ask."""
        with self._lock:
            self.windows_enabled = enabled
            if enabled:
                return 0
            self._window_pending.clear()
            self._window_sources.clear()
            self._idle.notify_all()
            # Read the file first if nobody did (a CLI call): its windows go now, and the
            # next save (at close) writes the file without them.
            self._ensure_loaded()
            return self._drop_all_windows()

    def _drop_all_windows(self) -> int:
        """Remove every stored window (call with the lock held)."""
        dropped = self._contributors().take_all()
        for window in dropped:
            self.index.remove(window)
        self._dirty = self._dirty or bool(dropped)
        return len(dropped)

    def _contributors(self) -> windows.Contributors:
        with self._lock:
            if self._windows is None:
                self._windows = windows.Contributors(self.index.ids())
            return self._windows

    def _drop_windows(self, memory_ids: Iterable[str]) -> bool:
        """Remove every window naming one of these memories (deleted or re-embedded); call
        with the lock held."""
        ids = list(memory_ids)
        dropped = self._contributors().take(ids)
        for window in dropped:
            self.index.remove(window)
        return bool(dropped)

    def _drop_stale(self, wanted: set[str]) -> None:
        """Entries for memories outside `wanted`, and windows naming one (call with the
        lock held)."""
        for stale in {i for i in self.index.ids() if not windows.is_window(i)} - wanted:
            self.index.remove(stale)
            self._dirty = True
        if not self.windows_enabled:
            self._drop_all_windows()
        for window in self._contributors().stale(wanted):
            self.index.remove(window)
            self._dirty = True

    def _forget_pending(self, memory_id: str) -> None:
        """A removed memory's queued or in-flight embedding must never reach the index."""
        self._pending.pop(memory_id, None)
        if memory_id in self._inflight:
            self._cancelled.add(memory_id)

    def _ensure_loaded(self) -> None:
        if not self._loaded:
            self._load()

    def _load(self) -> None:
        self._loaded = True
        try:
            self._read_file()
        finally:
            with self._first_lock:
                wanted, self._wanted = self._wanted, None
                if wanted is not None:
                    self._drop_stale(wanted)
                elif not self.windows_enabled:
                    self._drop_all_windows()
                self._file_ready.set()

    def _read_file(self) -> None:
        path = self.path
        if path is None:
            return
        remove_stale_temp_files(path)
        remove_stale_temp_files(delta_path(path))
        if not path.exists():
            return
        try:
            index, meta = VectorIndex.load(path, self._codec(), graph=not self.graph_on_demand)
        except MemoryCenterError as exc:
            log.warning("vector index file unusable, rebuilding from the store: %s", exc)
            return
        finally:
            give_back_free_memory()  # the file's plaintext, freed by now
        if meta.compatible_with(self.embedder):
            self.index = index
        else:
            log.info("vector index built by %s; rebuilding for %s", meta.embedder, self.name)
