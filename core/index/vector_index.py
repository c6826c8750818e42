"""An HNSW vector index over memory ids, saved only as one sealed file (R14, R19, R24).

Design choices, and why:

* Space ``"ip"`` on unit vectors: inner product is cosine similarity, and unlike hnswlib's
  ``"cosine"`` space the stored floats are exactly the ones we gave it.
* The vectors of live ids are **kept in the object** as well, one float16 row per label.
  Every search names a scope (R13), so scoped search is the main path, and for small scopes
  exact numpy search over those rows is both exact and faster than a filtered graph walk
  (which degenerates to visiting most of the graph when few nodes pass the filter).
  hnswlib's ``get_items`` cannot serve that: it costs ~25 us per vector. Half precision
  halves the copy (77 MB instead of 154 MB at 100k x 384, #13) and moves a cosine by about
  1e-5 (a unit vector's components are ~0.05, float16 keeps 11 bits), far below any gap a
  ranking or threshold acts on; the graph keeps the exact float32 vectors, which
  `get_vector` and `compact` read.
* Deletion scrubs: hnswlib's ``mark_deleted`` only hides an element and leaves its floats in
  memory and in every later save. `remove` first overwrites the element's vector with zeros
  (hnswlib updates a known label in place), zeroes our row, then marks it deleted, so a
  deleted memory's embedding is gone from the very next save without a rebuild (R19).
  `compact` additionally reclaims the dead slots and restores graph quality; run it when
  `needs_compaction`.
* Memory ids are strings; hnswlib wants integers. Labels are assigned from a counter and
  never reused (except by `compact`, which renumbers everything), so a stale label cannot
  silently point at another memory.
* The graph on demand (`load(..., graph=False)`, `release_graph`). A process without a hot
  path (the memory center, #13) needs no graph: it searches its float16 rows exactly (~20 ms
  for a scope of 10k, 90-160 ms for all of 100k x 384, where a graph walk takes ~0.3 ms;
  numpy's float16 conversion is most of it), so it reads only the rows and the id map
  in one pass and never holds the graph (176 MiB at 100k x 384) nor the plaintext the graph
  is built from (165 MiB). Changes meanwhile go to the rows and to a journal (exact float32
  vectors); whatever needs the graph (a save that writes it, `compact`, `get_vector`) first
  reads it from the file as it is then (with its additions) and replays the journal on it.
  Past `JOURNAL_MAX` journaled vectors the graph is read and kept until `release_graph`.
* Additions saved beside the graph (`core/index/vector_delta.py`). A save whose changes since
  the graph file are a few additions (no removal of a vector that file holds, R19) merges
  them into a small sealed file naming the graph file it extends (the header's
  ``file_id``), instead of writing the graph again with hnswlib's pickled copy of it (the
  peak of a save, and seconds at 100k). Every load applies it; a save that writes the graph
  includes it and deletes it. The journal of this process's own changes is what is merged
  (and what a graph read back from the file gets replayed): a vector read from the
  additions file is never written back by a process that only read it.
* Removals written in passing. A process without the graph whose changes remove vectors
  the graph file holds (the memory center deleting a memory) does not read the graph to
  save: it writes the file again as it decrypts it, piece by piece, with those elements'
  vectors zeroed and marked deleted as `remove` leaves them in a graph, their ids out of the
  header, and hnswlib's `has_deletions` set in the pickle stream (which is re-pickled from
  the state read against blank buffers, and used only if it first reproduces the stream
  byte for byte); its additions go beside the new file. The old file's tag is checked
  before the new one replaces it. A purge still rebuilds the graph (`rebuild_without`).

The file's format, and reading rows out of it, are in `core/index/vector_file.py`.

Every public method takes one lock: hnswlib's own per-call thread safety does not cover our
id map and rows, and on a two-core machine parallel queries gain little.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from core.errors import (
    InvalidInputError,
    MemoryCenterError,
)
from core.index.embedder import normalise_rows
from core.index.vector_file import (
    COPY_BATCH,
    FORMAT_VERSION,
    MAGIC,
    GraphSource,
    IndexMeta,
    graph_vectors,
)
from core.index.vector_persistence import DEFAULT_EF, DELTA_MAX, PersistedIndex

if TYPE_CHECKING:
    import hnswlib
    import numpy as np
    from numpy.typing import ArrayLike, NDArray
else:
    from core.index.lazy import hnswlib, np

log = logging.getLogger(__name__)

M = 16
EF_CONSTRUCTION = 200
INITIAL_CAPACITY = 1024
# Allowed sets up to this size, or up to this share of the index, are searched exactly:
# measured at 100k, exact numpy beats hnswlib's filter callable by 25-1600x below 2k ids
# and breaks even near 10% of the index (docs/retrieval.md).
EXACT_FILTER_MAX = 2048
EXACT_FILTER_SHARE = 0.10
# An index without its graph journals at most this many vectors (exact float32, 1.5 KB each
# at 384-d) before it reads the graph to apply them (a bulk import in the memory center).
JOURNAL_MAX = 4096
# Rebuild when this share of slots is dead: tombstones slow the graph walk and waste space.
COMPACT_RATIO = 0.2

if TYPE_CHECKING:
    Vector = NDArray[np.float32]
    HalfRows = NDArray[np.float16]


class VectorIndex(PersistedIndex):
    """Memory-id keyed HNSW index (inner product on unit vectors), thread-safe.

    Args:
        dim: vector length; every added and queried vector must have it.
        ef_search: breadth of the search beam; higher is slower and more exact.
        capacity: initial slot count; grows by doubling as needed.
        seed: hnswlib's random seed, fixed so builds are reproducible.
    """

    def __init__(
        self,
        dim: int,
        *,
        ef_search: int = DEFAULT_EF,
        capacity: int = INITIAL_CAPACITY,
        seed: int = 100,
    ) -> None:
        if dim < 1:
            raise InvalidInputError("dim", "must be positive")
        self._dim = dim
        self._ef = _check_ef(ef_search)
        self._seed = seed
        self._lock = threading.RLock()
        self._labels: dict[str, int] = {}
        self._ids: dict[int, str] = {}
        self._next_label = 0
        self._dead = 0
        # None while the graph is left in its file (`load(graph=False)`, `release_graph`).
        self._index: Any | None = self._new_hnsw(max(capacity, 16))
        self._rows: HalfRows = np.zeros((max(capacity, 16), dim), dtype=np.float16)
        # The graph file last read or written: where a graph left out is read from.
        self._source: GraphSource | None = None
        # This process's own changes since the graph file was read or written, while they
        # stay few: what a save merges into the additions file beside the graph
        # (`vector_delta`), and what a graph read back from the file needs replayed. None
        # once it is not complete (too many, or a compaction).
        self._journal: list[tuple[list[str], Vector | None]] | None = []
        self._journaled = 0

    # --- size and introspection ----------------------------------------------------------

    @property
    def dim(self) -> int:
        """Vector length."""
        return self._dim

    @property
    def ef_search(self) -> int:
        """Current search breadth."""
        return self._ef

    def set_ef(self, ef_search: int) -> None:
        """Change the search breadth (recall/latency trade-off)."""
        with self._lock:
            self._ef = _check_ef(ef_search)
            if self._index is not None:
                self._index.set_ef(self._ef)

    @property
    def dead_slots(self) -> int:
        """Deleted (scrubbed) elements still occupying graph slots until `compact`."""
        return self._dead

    def needs_compaction(self) -> bool:
        """True when dead slots are a large enough share to be worth a rebuild."""
        with self._lock:
            total = len(self._labels) + self._dead
            return total > 0 and self._dead / total >= COMPACT_RATIO

    @property
    def graph_loaded(self) -> bool:
        """False while the graph is left in its file (searches are exact over the rows)."""
        return self._index is not None

    def release_graph(self) -> bool:
        """Drop the graph from memory, to be read from its file again when needed; only
        when the file and the journal hold all of it. True if dropped."""
        with self._lock:
            if self._index is None or self._source is None or self._journal is None:
                return False
            self._index = None
            return True

    def __len__(self) -> int:
        return len(self._labels)

    def __contains__(self, memory_id: object) -> bool:
        return memory_id in self._labels

    def ids(self) -> list[str]:
        """Live memory ids, in label order."""
        with self._lock:
            return [self._ids[label] for label in sorted(self._ids)]

    def get_vector(self, memory_id: str) -> Vector | None:
        """The stored vector of a live id (None when absent), exactly as the graph holds it."""
        with self._lock:
            label = self._labels.get(memory_id)
            if label is None:
                return None
            row: Vector = graph_vectors(self._graph(), [label], self._dim)[0]
            return row

    def get_vectors(self, memory_ids: Iterable[str]) -> dict[str, Vector]:
        """The vectors of the live ones among these ids, from the float16 rows (a cosine
        moves by ~1e-5; `get_vector` reads the graph's exact floats at ~25 us each)."""
        with self._lock:
            found = [(mid, self._labels[mid]) for mid in memory_ids if mid in self._labels]
            if not found:
                return {}
            rows = self._rows[[label for _, label in found]].astype(np.float32)
        return {mid: rows[i] for i, (mid, _) in enumerate(found)}

    # --- writes --------------------------------------------------------------------------

    def reserve(self, capacity: int) -> None:
        """Pre-size for `capacity` labels, so a bulk load does not regrow repeatedly."""
        with self._lock:
            self._ensure_capacity(capacity)

    def add(self, ids: Sequence[str], vectors: ArrayLike) -> None:
        """Insert or replace vectors; rows are normalised to unit length.

        An id already present is updated in place (its old vector bytes are overwritten).

        Raises:
            InvalidInputError: ids and rows differ in number, ids repeat, or wrong dim.
        """
        matrix = self._check_batch(ids, vectors)
        if not ids:
            return
        with self._lock:
            self._insert(ids, matrix)
            self._note((list(ids), matrix))

    def _insert(self, ids: Sequence[str], matrix: Vector) -> None:
        """Put checked unit rows under these ids, in the graph when it is here (with the
        lock)."""
        labels = [self._label_for(memory_id) for memory_id in ids]
        self._ensure_capacity(self._next_label)
        if self._index is not None:
            self._index.add_items(matrix, np.asarray(labels, dtype=np.uint64), num_threads=1)
        self._rows[labels] = matrix

    def remove(self, memory_id: str) -> bool:
        """Delete one id: scrub its vector bytes, then hide it from search. True if present."""
        with self._lock:
            label = self._labels.pop(memory_id, None)
            if label is None:
                return False
            del self._ids[label]
            if self._index is not None:
                zero = np.zeros((1, self._dim), dtype=np.float32)
                self._index.add_items(zero, np.asarray([label], dtype=np.uint64), num_threads=1)
                self._index.mark_deleted(label)
            self._rows[label] = 0
            self._dead += 1
            self._note(([memory_id], None))
            return True

    def compact(self) -> int:
        """Rebuild the graph from live vectors only; return the number of slots reclaimed.

        The new hnswlib index is built fresh (labels renumbered 0..n-1), so nothing of a
        deleted element, not even its scrubbed slot, survives into the next save.
        """
        with self._lock:
            graph = self._graph()
            self._journal = None  # renumbered: only a whole save describes it now
            reclaimed = self._dead
            live = sorted(self._ids.items())
            capacity = max(len(live) + len(live) // 4, 16)
            fresh = self._new_hnsw(capacity)
            rows = np.zeros((capacity, self._dim), dtype=np.float16)
            # Batch by batch from the graph's exact float32 vectors: the new graph is built
            # from what the old one held, never from the float16 rows.
            for at in range(0, len(live), COPY_BATCH):
                part = [label for label, _ in live[at : at + COPY_BATCH]]
                vectors = graph_vectors(graph, part, self._dim)
                new_labels = np.arange(at, at + len(part), dtype=np.uint64)
                fresh.add_items(vectors, new_labels, num_threads=1)
                rows[at : at + len(part)] = vectors
            self._index = fresh
            self._rows = rows
            self._labels = {memory_id: i for i, (_, memory_id) in enumerate(live)}
            self._ids = {i: memory_id for memory_id, i in self._labels.items()}
            self._next_label = len(live)
            self._dead = 0
            return reclaimed

    def rebuild_without(self, ids: Iterable[str]) -> int:
        """Remove these ids and compact in one locked step (compliance purge, R19).

        Returns:
            How many of the ids were present.
        """
        with self._lock:
            removed = sum(1 for memory_id in set(ids) if self.remove(memory_id))
            self.compact()
            return removed

    # --- search --------------------------------------------------------------------------

    def search(
        self, vector: ArrayLike, k: int, allowed: set[str] | None = None
    ) -> list[tuple[str, float]]:
        """The `k` nearest live ids to `vector` with their cosine similarity, best first.

        Args:
            vector: a query vector of length `dim` (normalised here).
            k: how many results at most.
            allowed: when given, only these ids may be returned (the resolved scope, R13).
        """
        if k < 1:
            raise InvalidInputError("k", "must be at least 1")
        query = self._check_batch(["q"], np.asarray(vector, dtype=np.float32).reshape(1, -1))
        with self._lock:
            if self._index is None:  # the graph is left in its file: exact over the rows
                pool = self._ids.keys() if allowed is None else self._allowed_labels(allowed)
                return self._search_exact(query, k, sorted(pool))
            if allowed is None:
                return self._search_graph(query, k, None)
            labels = self._allowed_labels(allowed)
            if len(labels) <= max(EXACT_FILTER_MAX, EXACT_FILTER_SHARE * len(self._ids)):
                return self._search_exact(query, k, sorted(labels))
            return self._search_graph(query, k, labels)

    def search_exact(
        self, vector: ArrayLike, k: int, allowed: set[str] | None = None
    ) -> list[tuple[str, float]]:
        """Brute-force search (ground truth for benchmarks, and a fallback)."""
        if k < 1:
            raise InvalidInputError("k", "must be at least 1")
        query = self._check_batch(["q"], np.asarray(vector, dtype=np.float32).reshape(1, -1))
        with self._lock:
            pool = self._ids.keys() if allowed is None else self._allowed_labels(allowed)
            return self._search_exact(query, k, sorted(pool))

    def _allowed_labels(self, allowed: set[str]) -> set[int]:
        return {self._labels[i] for i in allowed if i in self._labels}

    def _search_graph(
        self, query: Vector, k: int, labels: set[int] | None
    ) -> list[tuple[str, float]]:
        k = min(k, len(self._ids) if labels is None else len(labels))
        if k == 0:
            return []
        assert self._index is not None
        self._index.set_ef(max(self._ef, k))
        allow = None if labels is None else labels.__contains__
        try:
            found, distances = self._index.knn_query(query, k=k, num_threads=1, filter=allow)
        except RuntimeError:
            # hnswlib found fewer than k (a sparse filter or a fragmented graph): be exact.
            pool = self._ids.keys() if labels is None else labels
            return self._search_exact(query, k, sorted(pool))
        finally:
            self._index.set_ef(self._ef)
        return [
            (self._ids[int(label)], float(1.0 - dist))
            for label, dist in zip(found[0], distances[0], strict=True)
        ]

    def _search_exact(self, query: Vector, k: int, labels: list[int]) -> list[tuple[str, float]]:
        if not labels:
            return []
        # In slices: a float32 copy of 100k rows would be 147 MiB for one query.
        scores = np.empty(len(labels), dtype=np.float32)
        for at in range(0, len(labels), COPY_BATCH):
            scores[at : at + COPY_BATCH] = self._vectors(labels[at : at + COPY_BATCH]) @ query[0]
        top = min(k, len(labels))
        order = np.argpartition(-scores, top - 1)[:top]
        order = order[np.argsort(-scores[order], kind="stable")]
        return [(self._ids[labels[i]], float(scores[i])) for i in order]

    # --- internals -----------------------------------------------------------------------

    def _new_hnsw(self, capacity: int) -> Any:
        index = hnswlib.Index(space="ip", dim=self._dim)
        index.init_index(
            max_elements=capacity, ef_construction=EF_CONSTRUCTION, M=M, random_seed=self._seed
        )
        index.set_ef(self._ef)
        return index

    def _label_for(self, memory_id: str) -> int:
        label = self._labels.get(memory_id)
        if label is None:
            label = self._next_label
            self._next_label += 1
            self._labels[memory_id] = label
            self._ids[label] = memory_id
        return label

    def _note(self, change: tuple[list[str], Vector | None]) -> None:
        """Journal a change (call with the lock). Without the graph the journal is all
        there is of it: past `JOURNAL_MAX` the graph is read. With the graph, a journal
        past `DELTA_MAX` is dropped: the next save writes the graph."""
        if self._journal is None:
            return
        self._journal.append(change)
        self._journaled += len(change[0])
        if self._index is None and self._journaled > JOURNAL_MAX:
            self._graph()
        if self._index is not None and self._journaled > DELTA_MAX:
            self._journal, self._journaled = None, 0

    def _graph(self) -> Any:
        """The hnswlib graph, read from the file and brought up to date if it was left out."""
        if self._index is None:
            self._materialize()
        assert self._index is not None
        return self._index

    def _materialize(self) -> None:
        """Read the graph file as it is now, with its additions (another process may have
        saved since), and replay this process's journal on it; from the rows if that file is
        gone or no longer this embedder's."""
        source, base = self._source, None
        if source is not None:
            try:
                base, meta = VectorIndex.load(source.path, source.codec, ef_search=self._ef)
            except MemoryCenterError as exc:
                log.warning("vector graph not read from %s, rebuilt: %s", source.path, exc)
            else:
                if not source.same_vectors(meta):
                    log.warning("vector file %s now holds other vectors; rebuilt", source.path)
                    base = None
        journal = self._journal or []
        if base is None:
            base = self._from_rows()
            self._journal = None  # no file under it any more
        else:
            # The journal now sits on the file as it is (another process may have saved).
            self._source = base._source
        # In order: a memory added, then removed, ends removed.
        for ids, vectors in journal:
            if vectors is None:
                base.remove(ids[0])
            else:
                base.add(ids, vectors)
        self._index, self._rows = base._index, base._rows
        self._labels, self._ids = base._labels, base._ids
        self._next_label, self._dead = base._next_label, base._dead
        self._graph().set_ef(self._ef)
        if self._journaled > DELTA_MAX:
            self._journal, self._journaled = None, 0

    def _from_rows(self) -> VectorIndex:
        """A new graph over the live rows (their float16 precision; the fallback)."""
        fresh = VectorIndex(self._dim, ef_search=self._ef, seed=self._seed)
        live = sorted(self._ids.items())
        fresh.reserve(len(live))
        for at in range(0, len(live), COPY_BATCH):
            part = live[at : at + COPY_BATCH]
            fresh.add([m for _, m in part], self._vectors([label for label, _ in part]))
        return fresh

    def _ensure_capacity(self, needed: int) -> None:
        capacity = needed if self._index is None else int(self._index.get_max_elements())
        if needed > capacity:
            assert self._index is not None
            self._index.resize_index(max(needed, capacity * 2))
        if needed > len(self._rows):
            grown = np.zeros((max(needed, 2 * len(self._rows)), self._dim), dtype=np.float16)
            grown[: len(self._rows)] = self._rows
            self._rows = grown

    def _vectors(self, labels: list[int]) -> Vector:
        rows: Vector = self._rows[np.asarray(labels, dtype=np.int64)].astype(np.float32)
        return rows

    def _check_batch(self, ids: Sequence[str], vectors: ArrayLike) -> Vector:
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim == 1 and len(ids) == 1:
            matrix = matrix.reshape(1, -1)
        if matrix.ndim != 2 or matrix.shape[0] != len(ids):
            raise InvalidInputError("vectors", f"expected {len(ids)} rows, got {matrix.shape}")
        if len(ids) and matrix.shape[1] != self._dim:
            raise InvalidInputError("vectors", f"expected dim {self._dim}, got {matrix.shape[1]}")
        if len(set(ids)) != len(ids):
            raise InvalidInputError("ids", "an id appears twice in one batch")
        if not np.isfinite(matrix).all():
            raise InvalidInputError("vectors", "NaN or infinite values")
        return normalise_rows(matrix) if len(ids) else matrix


def _check_ef(ef: int) -> int:
    if not 1 <= ef <= 4096:
        raise InvalidInputError("ef_search", "must be between 1 and 4096")
    return ef


# Imported from here by callers: the file's meta and format, and the save's limits.
__all__ = [
    "DEFAULT_EF",
    "DELTA_MAX",
    "FORMAT_VERSION",
    "MAGIC",
    "IndexMeta",
    "VectorIndex",
]
