"""The vector side of retrieval: an encrypted HNSW index kept in step with the catalog.

The index is derived: it can be deleted and rebuilt from the store at any time. On open it
is loaded from its sealed file when that file was built by the same embedder, reconciled
against the active records (missing ones embedded, extra ones removed), and saved again on
close. Deleting a memory scrubs its vector at once; a purge rebuilds the graph without it
and rewrites the file, so the vector bytes are gone from disk (R19).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import Any

from core.crypto.codec import Codec
from core.errors import MemoryCenterError
from core.index.embedder import Embedder
from core.index.vector_index import IndexMeta, VectorIndex
from core.model.records import MemoryRecord

log = logging.getLogger(__name__)

INDEX_FILE = "vectors.mcidx"
EMBED_BATCH = 64
SYNC_BACKFILL = 64
BACKFILL_SLICE = 1024
QUERY_CACHE = 256
# A save of a 100k index takes seconds; a temp file this old has no writer any more.
STALE_TEMP_SECONDS = 600.0


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


class VectorLayer:
    """Embeddings of active memories, searchable within a scope.

    Args:
        embedder: turns texts into unit vectors.
        directory: where the sealed index file lives (None: memory only).
        codec: seals the file.
    """

    def __init__(
        self, embedder: Embedder, directory: Path | None, codec: Callable[[], Codec]
    ) -> None:
        self.embedder = embedder
        self._dir = directory
        self._codec = codec
        self._lock = threading.RLock()
        self.index = VectorIndex(embedder.dim)
        self._dirty = False
        self._loaded = False
        self._queries: dict[str, Any] = {}
        self.load_error: str | None = None

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
        decrypted) to be embedded.
        """
        wanted = set(ids)
        with self._lock:
            if not self._loaded:
                self._load()
            for stale in set(self.index.ids()) - wanted:
                self.index.remove(stale)
                self._dirty = True
            missing = [mid for mid in ids if mid not in self.index]
            self._revision = revision
        if len(missing) <= SYNC_BACKFILL:
            self.put(load(missing) if missing else [])
        else:
            # A big first build runs in the background; until it is done, retrieval uses
            # the keyword index plus whatever vectors exist (R17: never stall the turn).
            threading.Thread(target=self._backfill, args=(missing, load), daemon=True).start()

    def put(self, records: Iterable[MemoryRecord]) -> None:
        """Embed and index records (new, or with changed content)."""
        batch = list(records)
        for start in range(0, len(batch), EMBED_BATCH):
            chunk = batch[start : start + EMBED_BATCH]
            vectors = self.embedder.embed([r.content for r in chunk], kind="passage")
            with self._lock:
                self._ensure_loaded()
                self.index.add([r.id for r in chunk], vectors)
                self._dirty = True

    def warm_up(self) -> None:
        """Load the model in the background so the first query does not pay for it."""

        def load() -> None:
            try:
                self.embedder.load()
            except MemoryCenterError as exc:
                # Kept for `check_embedder` and `index status`: never a silent downgrade.
                self.load_error = f"embedder {self.name} failed to load: {exc}"
                log.error("%s", self.load_error)

        threading.Thread(target=load, name="mc-embedder-load", daemon=True).start()

    def _backfill(
        self, missing: list[str], load: Callable[[list[str]], list[MemoryRecord]]
    ) -> None:
        try:
            # In slices: the decrypted texts of a whole 100k store need not be held at once.
            for start in range(0, len(missing), BACKFILL_SLICE):
                self.put(load(missing[start : start + BACKFILL_SLICE]))
            self.save()
        except MemoryCenterError as exc:
            log.warning("background vector build stopped: %s", exc)

    def remove(self, memory_id: str) -> bool:
        """Scrub a memory's vector (zeroed, then marked deleted)."""
        with self._lock:
            self._ensure_loaded()
            removed = self.index.remove(memory_id)
            self._dirty = self._dirty or removed
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
                self.index.remove(memory_id)
            if self.index.needs_compaction():
                self.index.compact()
            self._dirty = True
            self.save()

    def scores(self, query: str, allowed: set[str], k: int = 50) -> dict[str, float]:
        """Cosine similarity of the query to the allowed memories (the best `k`)."""
        if not allowed:
            return {}
        vector = self.query_vector(query)
        with self._lock:
            return dict(self.index.search(vector, k, allowed=allowed))

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

    def save(self) -> None:
        """Write the sealed index file if anything changed."""
        with self._lock:
            if not self._dirty or self.path is None:
                return
            self._ensure_loaded()
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            meta = IndexMeta.for_embedder(self.embedder, getattr(self, "_revision", 0))
            self.index.save(self.path, self._codec(), meta)
            self._dirty = False

    def reseal(self) -> None:
        """Rewrite the file under the current key (after a key rotation)."""
        with self._lock:
            self._ensure_loaded()
            self._dirty = True
            self.save()

    def mark_loaded(self) -> None:
        """Skip loading the file: the index was replaced in memory (rebuild)."""
        self._loaded = True

    def status(self) -> dict[str, object]:
        """Facts for `index status`."""
        with self._lock:
            return {
                "embedder": self.name,
                "vectors": len(self.index),
                "dead_slots": self.index.dead_slots,
                "file": str(self.path) if self.path else None,
            }

    def _ensure_loaded(self) -> None:
        if not self._loaded:
            self._load()

    def _load(self) -> None:
        self._loaded = True
        path = self.path
        if path is None:
            return
        remove_stale_temp_files(path)
        if not path.exists():
            return
        try:
            index, meta = VectorIndex.load(path, self._codec())
        except MemoryCenterError as exc:
            log.warning("vector index file unusable, rebuilding from the store: %s", exc)
            return
        if meta.compatible_with(self.embedder):
            self.index = index
        else:
            log.info("vector index built by %s; rebuilding for %s", meta.embedder, self.name)
