"""The vector side of retrieval: an encrypted HNSW index kept in step with the catalog.

The index is derived: it can be deleted and rebuilt from the store at any time. On open it
is loaded from its sealed file when that file was built by the same embedder, reconciled
against the active records (missing ones embedded, extra ones removed), and saved again on
close. Deleting a memory scrubs its vector at once; a purge rebuilds the graph without it
and rewrites the file, so the vector bytes are gone from disk (R19).

`VectorLayer` is assembled from its parts: the shared state (vector_state.py), the
conversation windows (vector_windows.py), the background embedding (vector_worker.py), and
here loading, reconciling, searching and saving.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Collection, Iterable
from typing import TYPE_CHECKING, Any

from core.errors import MemoryCenterError
from core.index.heap import give_back_free_memory
from core.index.vector_delta import delta_path
from core.index.vector_index import IndexMeta, VectorIndex
from core.model.records import MemoryRecord
from core.retrieval.vector_state import (
    EMBED_BATCH,
    INDEX_FILE,
    QUERY_CACHE,
    STALE_TEMP_SECONDS,
    SYNC_BACKFILL,
    WARM_WAIT,
    passage_text,
    remove_stale_temp_files,
    worth_waiting,
)
from core.retrieval.vector_windows import WindowVectors
from core.retrieval.vector_worker import BackgroundEmbedding

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)


class VectorLayer(WindowVectors, BackgroundEmbedding):
    """Embeddings of active memories, searchable within a scope.

    Args:
        embedder: turns texts into unit vectors.
        directory: where the sealed index file lives (None: memory only).
        codec: seals the file.
    """

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


# Imported from here by callers.
__all__ = [
    "INDEX_FILE",
    "QUERY_CACHE",
    "STALE_TEMP_SECONDS",
    "SYNC_BACKFILL",
    "VectorLayer",
    "passage_text",
    "remove_stale_temp_files",
    "worth_waiting",
]
