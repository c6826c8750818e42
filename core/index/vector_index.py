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
* The file does **not** store the vectors twice: at load they are read out of the graph's
  own serialized element table (hnswlib stores ``"ip"`` vectors verbatim), checked against
  ``get_items`` on a sample, with ``get_items`` for all as the fallback.
* Large files are never held whole, nor copied on the way: the graph is pickled with
  protocol 5 and its arrays are written **out of band** after the small pickle stream, then
  sealed and written piece by piece (`Codec.seal_to`); a load decrypts piece by piece into
  one buffer (`Codec.open_from`) whose slices become the arrays hnswlib copies from, frees
  it, then reads the float16 rows in a second pass over the same open file as it is
  decrypted piece by piece (authenticated before the rows are kept). The peak of an open is
  the plaintext and the graph (it was those and the rows, and before that the sealed file,
  the plaintext, the unpickled arrays and the graph).
* Deletion scrubs: hnswlib's ``mark_deleted`` only hides an element and leaves its floats in
  memory and in every later save. `remove` first overwrites the element's vector with zeros
  (hnswlib updates a known label in place), zeroes our row, then marks it deleted, so a
  deleted memory's embedding is gone from the very next save without a rebuild (R19).
  `compact` additionally reclaims the dead slots and restores graph quality; run it when
  `needs_compaction`.
* Memory ids are strings; hnswlib wants integers. Labels are assigned from a counter and
  never reused (except by `compact`, which renumbers everything), so a stale label cannot
  silently point at another memory.
* The file is ``codec.seal(plaintext, Aad("index_files", <file name>, "vector"))`` written
  atomically: the name in the AAD means a file renamed or swapped for another index fails to
  open. Plaintext (format 2) = magic, a JSON header (meta, id<->label map, parameters, the
  lengths of the pickle stream and of each out-of-band buffer), the pickle stream of the
  hnswlib.Index, then the buffers; format 1 (the whole pickle in band) still loads.
  Unpickling goes through an allow-list (hnswlib.Index and the numpy array reconstructors)
  as defence in depth behind the authentication tag.

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

Every public method takes one lock: hnswlib's own per-call thread safety does not cover our
id map and rows, and on a two-core machine parallel queries gain little.
"""

from __future__ import annotations

import copyreg
import io
import logging
import pickle
import secrets
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from itertools import accumulate, chain, pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.crypto.codec import Aad, Codec
from core.errors import (
    IntegrityError,
    InvalidInputError,
    MemoryCenterError,
)
from core.index import vector_delta
from core.index.embedder import Embedder, normalise_rows
from core.storage.framing import (
    frame,
    frame_version,
    framed_prefix,
    sealed_file_handle,
    unframe,
    write_file_with,
)

if TYPE_CHECKING:
    import hnswlib
    import numpy as np
    from numpy.typing import ArrayLike, NDArray
else:
    from core.index.lazy import hnswlib, np

log = logging.getLogger(__name__)

AAD_TABLE = "index_files"
AAD_FIELD = "vector"
MAGIC = b"MCVX"
FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)
# Rows are copied out of the graph's element table this many at a time, so the float32
# intermediate of the float16 rows stays small.
COPY_BATCH = 8192
M = 16
EF_CONSTRUCTION = 200
# ef 128 buys recall@10 ~0.99 at 100k for ~0.1 ms more than ef 64 (docs/retrieval.md).
DEFAULT_EF = 128
INITIAL_CAPACITY = 1024
# Allowed sets up to this size, or up to this share of the index, are searched exactly:
# measured at 100k, exact numpy beats hnswlib's filter callable by 25-1600x below 2k ids
# and breaks even near 10% of the index (docs/retrieval.md).
EXACT_FILTER_MAX = 2048
EXACT_FILTER_SHARE = 0.10
# A save writes at most this many vectors beside the graph file: every load applies them,
# and adding one to a 100k graph costs a few milliseconds.
DELTA_MAX = 128
# An index without its graph journals at most this many vectors (exact float32, 1.5 KB each
# at 384-d) before it reads the graph to apply them (a bulk import in the memory center).
JOURNAL_MAX = 4096
# Rebuild when this share of slots is dead: tombstones slow the graph walk and waste space.
COMPACT_RATIO = 0.2
_SAFE_GLOBALS = frozenset(
    {
        ("hnswlib", "Index"),
        ("numpy", "ndarray"),
        ("numpy", "dtype"),
        ("numpy._core.multiarray", "_reconstruct"),
        ("numpy.core.multiarray", "_reconstruct"),
        ("numpy._core.numeric", "_frombuffer"),
        ("numpy.core.numeric", "_frombuffer"),
    }
)

if TYPE_CHECKING:
    Vector = NDArray[np.float32]
    HalfRows = NDArray[np.float16]


@dataclass(frozen=True)
class IndexMeta:
    """What an index file was built from, so a loader can tell whether it still fits.

    Attributes:
        embedder: registry name of the embedder that made the vectors.
        embedder_version: its exact weights/preprocessing; vectors of another version live
            in another space, so a mismatch means rebuild.
        dim: vector length.
        store_revision: the store revision the index reflects; the catalog catches up from
            here through the change feed instead of re-embedding everything.
        count: live vectors in the file (filled in by `VectorIndex.save`).
    """

    embedder: str
    embedder_version: str
    dim: int
    store_revision: int
    count: int = 0

    @classmethod
    def for_embedder(cls, embedder: Embedder, store_revision: int) -> IndexMeta:
        """Meta describing vectors made by `embedder` at `store_revision`."""
        return cls(embedder.name, embedder.version, embedder.dim, store_revision)

    def compatible_with(self, embedder: Embedder) -> bool:
        """True when vectors from `embedder` can be searched against this index."""
        return (self.embedder, self.embedder_version, self.dim) == (
            embedder.name,
            embedder.version,
            embedder.dim,
        )

    @classmethod
    def from_json(cls, data: Any) -> IndexMeta:
        """Parse the header's meta; a wrong shape is corruption, not user error."""
        try:
            return cls(
                embedder=str(data["embedder"]),
                embedder_version=str(data["embedder_version"]),
                dim=int(data["dim"]),
                store_revision=int(data["store_revision"]),
                count=int(data["count"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise IntegrityError(f"vector index header is malformed: {exc}") from None


class VectorIndex:
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
        self._source: _Source | None = None
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
            row: Vector = _graph_vectors(self._graph(), [label], self._dim)[0]
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
                vectors = _graph_vectors(graph, part, self._dim)
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

    # --- persistence ---------------------------------------------------------------------

    def plaintext(self, meta: IndexMeta) -> bytes:
        """The exact bytes `save` seals (with the file id of the file last read or written):
        for tests and audits of what reaches disk."""
        with self._lock:
            file_id = self._source.file_id if self._source is not None else ""
            return b"".join(self._pieces(meta, file_id))

    def _pieces(self, meta: IndexMeta, file_id: str) -> list[bytes | memoryview]:
        """The plaintext as the framed header with the pickle stream, then the graph's arrays
        (out of band: written as they are, never copied into one bytes object)."""
        with self._lock:
            if meta.dim != self._dim:
                raise InvalidInputError("meta.dim", f"index has dim {self._dim}, meta {meta.dim}")
            graph = self._graph()  # first: reading it may renumber the labels
            live = sorted(self._ids.items())
            buffers: list[pickle.PickleBuffer] = []
            stream = pickle.dumps(graph, protocol=5, buffer_callback=buffers.append)
            raws = [buffer.raw() for buffer in buffers]
            header = {
                "meta": asdict(replace(meta, count=len(live))),
                "labels": [label for label, _ in live],
                "ids": [memory_id for _, memory_id in live],
                "next_label": self._next_label,
                "dead": self._dead,
                "ef_search": self._ef,
                "seed": self._seed,
                "pickle": len(stream),
                "buffers": [raw.nbytes for raw in raws],
                "file_id": file_id,
            }
            return [frame(MAGIC, FORMAT_VERSION, header, stream), *raws]

    def save(self, path: Path, codec: Codec, meta: IndexMeta, *, whole: bool = False) -> IndexMeta:
        """Seal and atomically write the index to `path`; return the meta written.

        When this process's changes since the graph file are a few additions, they are
        merged into the additions file beside it and the graph file is left as it is,
        unless `whole` (a key rotation rewrites both).

        Raises:
            ResourceUnavailableError: the file cannot be written (disk full, no directory).
        """
        with self._lock:
            if not whole and self._additions_possible(path):
                saved = self._save_additions(codec, meta)
                if saved is not None:
                    return saved
            if not whole and self._index is None and self._on_file(path):
                saved = self._save_removals_in_passing(codec, meta)
                if saved is not None:
                    return saved
            file_id = secrets.token_hex(8)
            pieces = self._pieces(meta, file_id)
            written, in_file = replace(meta, count=len(self)), frozenset(self._labels)
            self._journal, self._journaled = [], 0
        aad = _aad(path)
        try:
            write_file_with(
                path,
                lambda handle: codec.seal_to(pieces, aad, handle),
                "vector index",
                make_dir=False,
            )
        except MemoryCenterError:
            with self._lock:  # not written: the next save writes the whole graph
                self._journal, self._journaled = None, 0
            raise
        # The new graph holds every addition: the old file's are stale now (R19).
        vector_delta.remove(vector_delta.delta_path(path))
        with self._lock:
            self._source = _Source(path, codec, written, file_id, in_file, _stamp(path))
        return written

    def _on_file(self, path: Path) -> bool:
        """True when every change of this process since the graph file it read is
        journaled, and that file has an id and is still there as it was read."""
        source = self._source
        if self._journal is None or source is None or not source.file_id:
            return False
        # Elsewhere, or another process replaced (or deleted) the file.
        return source.path == path and source.stamp == _stamp(path)

    def _additions_possible(self, path: Path) -> bool:
        """True when a save may leave the graph file as it is: the journal is on the file
        (`_on_file`) and no change removes a vector it holds (R19)."""
        source, journal = self._source, self._journal
        if not self._on_file(path):
            return False
        assert source is not None and journal is not None
        return not any(v is None and ids[0] in source.in_file for ids, v in journal)

    def _merged_additions(self, codec: Codec) -> dict[str, Vector] | None:
        """The additions file's vectors with this process's journal merged in: what other
        processes saved there stays, this one's removals leave it. None past `DELTA_MAX`."""
        source, journal = self._source, self._journal
        assert source is not None and journal is not None
        current = _additions_of(vector_delta.delta_path(source.path), codec, source)
        removed = {ids[0] for ids, vectors in journal if vectors is None}
        pairs = zip(current.ids, current.vectors, strict=True) if current else iter(())
        merged = {memory_id: row for memory_id, row in pairs if memory_id not in removed}
        merged.update(zip(*vector_delta.net_additions(journal), strict=True))
        return merged if len(merged) <= DELTA_MAX else None

    def _write_additions(self, codec: Codec, merged: dict[str, Vector]) -> None:
        """Keep `merged` in the additions file of the graph file last read or written."""
        assert self._source is not None
        where = vector_delta.delta_path(self._source.path)
        if merged:
            rows = np.stack(list(merged.values()))
            vector_delta.write(
                where, codec, vector_delta.Delta(self._source.file_id, list(merged), rows)
            )
        else:
            vector_delta.remove(where)

    def _save_additions(self, codec: Codec, meta: IndexMeta) -> IndexMeta | None:
        """Merge the journal into the additions file beside the graph file (with the lock).
        None when that would hold more than `DELTA_MAX` vectors (the graph is written
        instead)."""
        source = self._source
        assert source is not None
        merged = self._merged_additions(codec)
        if merged is None:
            return None
        self._write_additions(codec, merged)
        written = replace(meta, count=len(self))
        self._source = replace(source, meta=written)
        return written

    def _save_removals_in_passing(self, codec: Codec, meta: IndexMeta) -> IndexMeta | None:
        """Without the graph in memory (with the lock): write the graph file again as it is
        read, with the elements of the memories this process deleted scrubbed and marked
        deleted (`_rewrite_scrubbed`), then its additions beside it. The peak is a piece of
        the file, where reading the graph and pickling it held both (~350 MiB at 100k x 384).
        None when the file's layout does not allow it, it fails its tag, or the additions
        would exceed `DELTA_MAX` (the graph is read and written whole instead)."""
        source, journal = self._source, self._journal
        assert source is not None and journal is not None
        merged = self._merged_additions(codec)
        if merged is None:
            return None
        gone = {ids[0] for ids, v in journal if v is None and ids[0] in source.in_file}
        file_id = secrets.token_hex(8)
        try:
            kept = _rewrite_scrubbed(source, codec, meta, gone, file_id)
        except MemoryCenterError as exc:
            # The graph's way reads the file too and, when it cannot, builds the graph from
            # the rows: the vector leaves the disk either way (R19).
            log.warning("vector file %s not rewritten in passing: %s", source.path, exc)
            return None
        if kept is None:
            return None
        written = replace(meta, count=len(self))
        self._source = _Source(
            source.path, codec, written, file_id, frozenset(kept), _stamp(source.path)
        )
        self._write_additions(codec, merged)
        return written

    @classmethod
    def load(
        cls,
        path: Path,
        codec: Codec,
        *,
        ef_search: int | None = None,
        graph: bool = True,
        additions: bool = True,
    ) -> tuple[VectorIndex, IndexMeta]:
        """Read and open an index written by `save`.

        `graph=False` reads only the rows and the id map, in one pass, and leaves the graph
        in the file until something needs it (see the module's notes). `additions`: apply
        the additions file beside the graph file (`vector_delta`); a stale, damaged or
        unreadable one is deleted (the reconcile embeds what it held again).

        Raises:
            ResourceUnavailableError: the file is missing or unreadable (rebuild instead).
            IntegrityError: wrong key, tampered, renamed, or malformed content.
            KeyUnavailableError: sealed with a key the codec does not hold.
            StoreVersionError: written by a newer format.
        """
        aad = _aad(path)
        if not graph:
            lean = cls._rows_only(path, codec, ef_search, additions)
            if lean is not None:
                return lean
            full, meta = cls.load(path, codec, ef_search=ef_search, additions=additions)
            full.release_graph()
            return full, meta
        with sealed_file_handle(path, "vector index") as (handle, size):
            data = codec.open_from(handle, size, aad)
            header, state, meta = _graph_state_of(data)
            table = _Table.of(state, data)
            if table is None:  # format 1, or a layout not understood: rows from the state
                whole = cls._restored(header, state, meta, ef_search)
                whole._opened(path, codec, meta, header, additions)
                return whole, meta
            self = cls._restored(header, state, meta, ef_search, with_rows=False)
            # The plaintext goes before the rows come: they are read in a second pass over
            # the same open file, so the graph, the plaintext and the rows are never all held
            # at once (the peak of an open, #13). The pass reads to the end, so its tag is
            # checked before any row is kept.
            del state, data
            handle.seek(0)
            rows = self._blank_rows(meta.dim)
            if not table.fill(rows, codec.pieces_from(handle, size, aad), meta.dim):
                rows[:] = 0  # labels out of range: the sample check reads the graph instead
        self._rows = _checked_rows(rows, self._index, meta.dim, sorted(self._ids))
        self._opened(path, codec, meta, header, additions)
        return self, meta

    @classmethod
    def _rows_only(
        cls, path: Path, codec: Codec, ef_search: int | None, additions: bool
    ) -> tuple[VectorIndex, IndexMeta] | None:
        """An index holding the file's rows and id map but not its graph, read in one pass;
        None for a file whose element table cannot be located that way (format 1)."""
        aad = _aad(path)
        with sealed_file_handle(path, "vector index") as (handle, size):
            pieces = _Counted(codec.pieces_from(handle, size, aad))
            layout = _rows_layout(pieces, size)
            if layout is None:
                return None
            header, meta, table = layout.header, layout.meta, layout.table
            ef = ef_search or int(header.get("ef_search", DEFAULT_EF))
            self = cls(meta.dim, ef_search=ef, capacity=16)
            self._index = None
            self._take_header(header, meta)
            if self._next_label > table.count:
                # Not yet authenticated: never sized from a header the table does not bear
                # out; the full load checks the tag before it reads anything.
                return None
            rows = self._blank_rows(meta.dim)
            # Reads to the end, so the tag (over the header too) is checked before any of it
            # is kept.
            whole = table.fill(rows, chain([bytes(layout.head)], pieces), meta.dim)
        if pieces.count != layout.length:
            raise IntegrityError("vector index buffers do not add up to the file's length")
        if not whole:
            return None  # labels out of range: the full load reads them from the graph
        self._rows = rows
        self._opened(path, codec, meta, header, additions)
        return self, meta

    def _opened(
        self,
        path: Path,
        codec: Codec,
        meta: IndexMeta,
        header: dict[str, Any],
        additions: bool,
    ) -> None:
        """Note the file just read (an empty journal starts on it), then apply its additions
        file."""
        file_id = str(header.get("file_id") or "")
        in_file = frozenset(self._labels)
        self._source = _Source(path, codec, meta, file_id, in_file, _stamp(path))
        self._journal, self._journaled = [], 0
        if not additions:
            return
        delta = _additions_of(vector_delta.delta_path(path), codec, self._source)
        if delta is not None:
            # Not journaled: they are the file's, not this process's changes.
            self._insert(delta.ids, self._check_batch(delta.ids, delta.vectors))

    @classmethod
    def from_plaintext(
        cls, data: bytes | bytearray, *, ef_search: int | None = None
    ) -> tuple[VectorIndex, IndexMeta]:
        """Rebuild an index from `plaintext` bytes (already authenticated)."""
        header, state, meta = _graph_state_of(data)
        return cls._restored(header, state, meta, ef_search), meta

    @classmethod
    def _restored(
        cls,
        header: dict[str, Any],
        state: Any,
        meta: IndexMeta,
        ef_search: int | None,
        *,
        with_rows: bool = True,
    ) -> VectorIndex:
        self = cls(meta.dim, ef_search=ef_search or int(header.get("ef_search", DEFAULT_EF)))
        self._restore(header, state, meta, with_rows=with_rows)
        return self

    def _restore(
        self, header: dict[str, Any], state: Any, meta: IndexMeta, *, with_rows: bool
    ) -> None:
        """Take the graph, the id map and (`with_rows`) the rows from a file's state."""
        labels = self._take_header(header, meta)
        try:
            elements = int(state[0]["cur_element_count"])
        except (KeyError, IndexError, TypeError, ValueError):
            elements = None  # a layout not understood: hnswlib judges the state below
        # Every label ever handed out names an element of the graph: more would size the
        # rows from a header alone.
        if elements is not None and self._next_label > elements:
            raise IntegrityError("vector index header names more labels than its graph holds")
        rows = None
        if with_rows:
            rows = self._blank_rows(meta.dim)
            try:
                whole = _fill_from_state(rows, state[0], meta.dim)
            except (KeyError, IndexError, TypeError, ValueError):
                whole = False
            if not whole:
                rows[:] = 0  # an unknown layout: the sample check below takes the slow path
        index = _graph_from_state(state)
        del state
        if index.dim != meta.dim:
            raise IntegrityError("vector index header does not match its graph")
        self._index = index
        self._index.set_ef(self._ef)  # hnswlib resets ef to 10 on load
        if rows is not None:
            self._rows = _checked_rows(rows, index, meta.dim, labels)

    def _take_header(self, header: dict[str, Any], meta: IndexMeta) -> list[int]:
        """Take the id map and counters of a file's header; return the live labels."""
        try:
            labels = [int(x) for x in header["labels"]]
            ids = [str(x) for x in header["ids"]]
            self._next_label = int(header["next_label"])
            self._dead = int(header["dead"])
            self._seed = int(header.get("seed", self._seed))
        except (KeyError, TypeError, ValueError) as exc:
            raise IntegrityError(f"vector index header is malformed: {exc}") from None
        if len(labels) != len(ids) or len(ids) != meta.count:
            raise IntegrityError("vector index header does not match its graph")
        if any(not 0 <= label < self._next_label for label in labels):
            raise IntegrityError("vector index header names a label it never handed out")
        self._labels = dict(zip(ids, labels, strict=True))
        self._ids = dict(zip(labels, ids, strict=True))
        return labels

    def _blank_rows(self, dim: int) -> HalfRows:
        """Zeroed rows for every label handed out so far (at least 16)."""
        return np.zeros((max(self._next_label, 16), dim), dtype=np.float16)

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


def _graph_vectors(index: Any, labels: list[int], dim: int) -> Vector:
    """The exact float32 vectors the graph holds for `labels` (~25 us each)."""
    found = index.get_items(np.asarray(labels, dtype=np.uint64), return_type="numpy")
    vectors: Vector = np.asarray(found, dtype=np.float32).reshape(-1, dim)
    return vectors


def _checked_rows(rows: HalfRows, index: Any, dim: int, labels: list[int]) -> HalfRows:
    """`rows` if a sample of them matches the graph's own vectors; else rows read through
    ``get_items`` for every label (slow, but right whatever hnswlib's layout)."""
    if not labels:
        return rows
    sample = labels[:: max(1, len(labels) // 16)]
    expected = _graph_vectors(index, sample, dim).astype(np.float16)
    if not np.array_equal(rows[sample], expected):
        for at in range(0, len(labels), COPY_BATCH):
            part = labels[at : at + COPY_BATCH]
            rows[part] = _graph_vectors(index, part, dim)
    return rows


def _fill_from_state(rows: HalfRows, state: dict[str, Any], dim: int) -> bool:
    """Copy live vectors out of hnswlib's serialized element table into `rows`; False when
    a label falls outside `rows`.

    Raises:
        KeyError, TypeError, ValueError: a layout not understood.
    """
    table = _Table.parse(state)
    level0 = _level0_bytes(state)[: table.count * table.width].reshape(table.count, table.width)
    whole = True
    for at in range(0, table.count, COPY_BATCH):
        whole &= table.file_elements(rows, level0[at : at + COPY_BATCH], dim)
    return whole


def _level0_bytes(state: dict[str, Any]) -> NDArray[np.uint8]:
    # A view, not a conversion: asarray(dtype=uint8) of hnswlib's int8 array copied ~200 MB.
    level0 = np.asarray(state["data_level0"])
    if level0.dtype.itemsize != 1:
        raise ValueError("hnswlib's element table is not a byte array")
    return level0.view(np.uint8)


@dataclass(frozen=True)
class _Table:
    """The layout of hnswlib's element table (one fixed-width element per graph node) and,
    for the second pass of `VectorIndex.load`, where it lies in a file's plaintext."""

    start: int
    count: int
    width: int
    data_at: int
    label_at: int

    @classmethod
    def parse(cls, params: dict[str, Any]) -> _Table:
        """The layout named by hnswlib's serialized parameters.

        Raises:
            KeyError, TypeError, ValueError: a layout not understood.
        """
        count, width = int(params["cur_element_count"]), int(params["size_data_per_element"])
        return cls(0, count, width, int(params["offset_data"]), int(params["label_offset"]))

    @classmethod
    def of(cls, state: Any, data: bytes | bytearray) -> _Table | None:
        """The table's layout and place, when the state's element table is a view of `data`
        (format 2); None otherwise."""
        try:
            params = state[0]
            level0 = _level0_bytes(params)
            table = cls.parse(params)
        except (KeyError, IndexError, TypeError, ValueError):
            return None
        base = np.frombuffer(data, dtype=np.uint8)
        start = int(level0.ctypes.data) - int(base.ctypes.data)
        if not 0 <= start <= len(base) - table.count * table.width:
            return None
        return replace(table, start=start)

    def file_elements(self, rows: HalfRows, elements: NDArray[np.uint8], dim: int) -> bool:
        """File the vectors of whole elements (one per row of `elements`) under their labels;
        False when a label falls outside `rows` (that element is left out)."""
        at = self.data_at
        vectors = np.ascontiguousarray(elements[:, at : at + 4 * dim]).view(np.float32)
        at = self.label_at
        labels = np.ascontiguousarray(elements[:, at : at + 8]).view(np.uint64)[:, 0]
        inside = labels < len(rows)
        rows[labels[inside].astype(np.int64)] = vectors[inside]
        return bool(inside.all())

    def scrub(
        self, pieces: Iterable[bytes], at: int, labels: frozenset[int], dim: int, mark_at: int
    ) -> Iterator[bytes]:
        """The plaintext's `pieces` (the first starting at offset `at`) passed on, with the
        elements of `labels` changed as hnswlib's delete leaves them after our scrub: the
        vector zeroed, the delete mark (bit 0 of byte `mark_at`) set."""
        end = self.start + self.count * self.width
        wanted = np.fromiter(labels, dtype=np.uint64, count=len(labels))
        carry = b""  # the start of an element split between pieces
        for piece in pieces:
            lo = min(max(self.start - at, 0), len(piece))
            hi = max(min(end - at, len(piece)), lo)
            at += len(piece)
            if lo == hi:
                yield piece
                continue
            yield piece[:lo]
            chunk = carry + piece[lo:hi]
            cut = len(chunk) - len(chunk) % self.width
            if cut:
                yield self._scrubbed(chunk[:cut], wanted, dim, mark_at)
            carry = chunk[cut:]
            yield piece[hi:]

    def _scrubbed(self, chunk: bytes, wanted: NDArray[np.uint64], dim: int, mark_at: int) -> bytes:
        elements = np.frombuffer(chunk, dtype=np.uint8).reshape(-1, self.width)
        at = self.label_at
        labels = np.ascontiguousarray(elements[:, at : at + 8]).view(np.uint64)[:, 0]
        hit = np.isin(labels, wanted)
        if not hit.any():
            return chunk
        changed = elements.copy()
        changed[hit, self.data_at : self.data_at + 4 * dim] = 0
        changed[hit, mark_at] |= 1
        return changed.tobytes()

    def fill(self, rows: HalfRows, pieces: Iterable[bytes], dim: int) -> bool:
        """File the vectors of the table's elements as the plaintext's `pieces` pass; False
        when a label falls outside `rows`. Reads every piece (so a sealed file's tag is
        checked) whatever the elements hold.

        Raises:
            IntegrityError: as the pieces do (a sealed file that fails its tag).
        """
        end = self.start + self.count * self.width
        whole = True
        at = 0  # where the current piece starts in the plaintext
        carry = b""  # the start of an element split between pieces
        for piece in pieces:
            lo, hi = max(self.start, at) - at, min(end, at + len(piece)) - at
            at += len(piece)
            if lo >= hi:
                continue
            chunk = carry + piece[lo:hi]
            cut = len(chunk) - len(chunk) % self.width
            if cut:
                elements = np.frombuffer(chunk, dtype=np.uint8, count=cut)
                whole &= self.file_elements(rows, elements.reshape(-1, self.width), dim)
            carry = chunk[cut:]
        return whole


@dataclass(frozen=True)
class _Source:
    """The sealed graph file an index was read from or last wrote."""

    path: Path
    codec: Codec
    meta: IndexMeta
    file_id: str = ""
    # The ids the graph file holds: a removal of one of them needs that file rewritten (R19).
    in_file: frozenset[str] = frozenset()
    # The file's inode, size and change time when read or written: another process's save
    # (an atomic rename) changes them.
    stamp: tuple[int, int, int] | None = None

    def same_vectors(self, meta: IndexMeta) -> bool:
        """True when a file's meta names the same embedder and width as this file's."""
        mine = self.meta
        return (meta.embedder, meta.embedder_version, meta.dim) == (
            mine.embedder,
            mine.embedder_version,
            mine.dim,
        )


class _Counted:
    """Passes a plaintext's pieces on and counts their bytes."""

    def __init__(self, pieces: Iterable[bytes]) -> None:
        self._pieces = iter(pieces)
        self.count = 0

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        piece = next(self._pieces)
        self.count += len(piece)
        return piece


@dataclass(frozen=True)
class _Layout:
    """A format-2 plaintext as far as it was read: `head` (through the pickle stream at
    least), its header and meta, where the stream lies, the graph's state unpickled against
    blank buffers, where the element table lies, and the plaintext's whole length."""

    head: bytearray
    header: dict[str, Any]
    meta: IndexMeta
    body_at: int
    stream_end: int
    state: Any
    table: _Table
    length: int


def _rows_layout(pieces: Iterator[bytes], size: int) -> _Layout | None:
    """Read a format-2 plaintext up to the end of its pickle stream and locate its element
    table. None for format 1, a layout not understood, or lengths a file of `size` bytes
    (sealed uncompressed) cannot hold: nothing read here is authentic until the rest of the
    pieces passed without an error, so nothing is sized from it unchecked.

    The stream is unpickled against untouched zero buffers (calloc'd, so not resident) of
    the out-of-band lengths: only the parameters and the element table's place are read.
    """
    read = _read_head(pieces)
    if read is None:
        return None
    head, header, body_at, stream_end = read
    try:
        lengths = [int(n) for n in header["buffers"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise IntegrityError(f"vector index header is malformed: {exc}") from None
    if any(n < 0 for n in lengths):
        raise IntegrityError("vector index header is malformed: a negative length")
    meta = IndexMeta.from_json(header.get("meta"))
    ends = list(accumulate(lengths, initial=stream_end))
    if ends[-1] > size:
        return None
    blanks = [np.zeros(n, dtype=np.uint8) for n in lengths]
    stream = io.BytesIO(memoryview(head)[body_at:stream_end])
    state = _safe_unpickle(stream, [blank.data for blank in blanks])
    try:
        params = state[0]
        table = _Table.parse(params)
        at = int(_level0_bytes(params).ctypes.data)
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    for blank, start, end in zip(blanks, ends, ends[1:], strict=True):
        base = int(blank.ctypes.data)
        if base <= at < base + len(blank):
            table = replace(table, start=start + at - base)
            if table.start + table.count * table.width > end:
                return None
            return _Layout(head, header, meta, body_at, stream_end, state, table, ends[-1])
    return None


def _rewrite_scrubbed(
    source: _Source, codec: Codec, meta: IndexMeta, gone: set[str], file_id: str
) -> list[str] | None:
    """Write the graph file `source` read again, sealed with `codec`, piece by piece as it
    is decrypted, without the memories `gone`: their elements' vectors zeroed and their
    elements marked deleted, as `VectorIndex.remove` does in a graph (R19), and their ids
    out of the header; `file_id` names the new file. Returns the ids it holds, or None
    (nothing written) when the file is format 1 or its pickle stream cannot be reproduced
    exactly.

    The old file is read to its end, and its tag checked, before the new one replaces it:
    a file that fails is left as it is and nothing of it is sealed again.

    Raises:
        IntegrityError: the file is tampered or malformed.
        KeyUnavailableError: it is sealed with a key `source.codec` does not hold.
        ResourceUnavailableError: it cannot be read or the new one cannot be written.
    """
    path = source.path
    aad = _aad(path)
    with sealed_file_handle(path, "vector index") as (handle, size):
        pieces = _Counted(source.codec.pieces_from(handle, size, aad))
        layout = _rows_layout(pieces, size)
        if layout is None:
            return None
        header, table = layout.header, layout.table
        # Not authentic until the tag at the end: read defensively, sized from nothing.
        try:
            pairs = [
                (int(label), str(memory_id))
                for label, memory_id in zip(header["labels"], header["ids"], strict=True)
            ]
            dead = int(header.get("dead", 0))
            mark_at = int(layout.state[0]["offset_level0"]) + 2
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise IntegrityError(f"vector index header is malformed: {exc}") from None
        fits = max(mark_at + 1, table.data_at + 4 * meta.dim, table.label_at + 8) <= table.width
        if layout.meta.dim != meta.dim or mark_at < 0 or not fits:
            return None  # another width, or a layout not understood: the graph's way
        scrubbed = frozenset(label for label, memory_id in pairs if memory_id in gone)
        kept = [(label, memory_id) for label, memory_id in pairs if memory_id not in gone]
        stream = _stream_with_deletions(layout, bool(scrubbed))
        if stream is None:
            return None
        new_header = {
            **header,
            "meta": asdict(replace(meta, count=len(kept))),
            "labels": [label for label, _ in kept],
            "ids": [memory_id for _, memory_id in kept],
            "dead": dead + len(scrubbed),
            "pickle": len(stream),
            "file_id": file_id,
        }

        def plaintext() -> Iterator[bytes]:
            yield frame(MAGIC, FORMAT_VERSION, new_header, stream)
            rest = chain([bytes(layout.head[layout.stream_end :])], pieces)
            yield from table.scrub(rest, layout.stream_end, scrubbed, meta.dim, mark_at)
            if pieces.count != layout.length:
                raise IntegrityError("vector index buffers do not add up to the file's length")

        write_file_with(
            path, lambda out: codec.seal_to(plaintext(), aad, out), "vector index", make_dir=False
        )
    return [memory_id for _, memory_id in kept]


# What pickle calls `object.__reduce_ex__`'s constructor for protocol 2 and up (typeshed
# does not list it).
_NEWOBJ = copyreg.__newobj__  # type: ignore[attr-defined]


class _IndexPickler(pickle.Pickler):
    """Pickles a blank hnswlib.Index as `pickle.dumps` pickles one holding `state`."""

    def __init__(self, out: io.BytesIO, state: Any) -> None:
        super().__init__(out, protocol=5, buffer_callback=lambda _buffer: None)
        self._state = state

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is hnswlib.Index:
            return _NEWOBJ, (hnswlib.Index,), self._state
        return NotImplemented


def _stream_with_deletions(layout: _Layout, deletions: bool) -> bytes | None:
    """The graph's pickle stream with hnswlib's `has_deletions` set when `deletions` (a
    graph loaded with it unset would not skip elements marked deleted); None unless the
    stream as read is reproduced byte for byte first, so nothing but that flag can change.
    The arrays stay the blank buffers they were read against (out of band, not copied)."""
    params = layout.state[0]
    if not isinstance(params, dict) or not isinstance(params.get("has_deletions"), bool):
        return None

    def dumped() -> bytes:
        out = io.BytesIO()
        _IndexPickler(out, layout.state).dump(hnswlib.Index.__new__(hnswlib.Index))
        return out.getvalue()

    if dumped() != bytes(layout.head[layout.body_at : layout.stream_end]):
        return None
    if deletions:
        params["has_deletions"] = True
    return dumped()


def _read_head(pieces: Iterator[bytes]) -> tuple[bytearray, dict[str, Any], int, int] | None:
    """The start of a plaintext through its pickle stream, its header, where the body and
    the stream end; None for format 1 (the whole pickle in band)."""
    head = bytearray()
    header: dict[str, Any] = {}
    body_at = 0
    stream_end: int | None = None
    for piece in pieces:
        head += piece
        if stream_end is None:
            prefix = framed_prefix(head, MAGIC)
            if prefix is None or len(head) < prefix:
                continue
            header, body_at = unframe(head, MAGIC, READABLE_VERSIONS, "vector index")
            if frame_version(head, MAGIC) == 1:
                return None
            try:
                stream_end = body_at + int(header["pickle"])
            except (KeyError, TypeError, ValueError) as exc:
                raise IntegrityError(f"vector index header is malformed: {exc}") from None
        if len(head) >= stream_end:
            return head, header, body_at, stream_end
    raise IntegrityError("vector index ends inside its header")


def _additions_of(where: Path, codec: Codec, source: _Source) -> vector_delta.Delta | None:
    """The additions file beside `source`'s graph file, if there is one made for it; one
    made for another graph file is stale and deleted (it may hold the vector of a memory
    deleted since, R19), as is one that does not open (its memories are embedded again)."""
    try:
        delta = vector_delta.read(where, codec, source.meta.dim)
    except MemoryCenterError as exc:
        log.warning("vector additions file unusable, its memories are embedded again: %s", exc)
        vector_delta.remove(where)
        return None
    if delta is not None and (not source.file_id or delta.base != source.file_id):
        vector_delta.remove(where)
        return None
    return delta


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        found = path.stat()
    except OSError:
        return None
    return (found.st_ino, found.st_size, found.st_mtime_ns)


def _check_ef(ef: int) -> int:
    if not 1 <= ef <= 4096:
        raise InvalidInputError("ef_search", "must be between 1 and 4096")
    return ef


def _aad(path: Path) -> Aad:
    return Aad(AAD_TABLE, path.name, AAD_FIELD)


def _graph_state_of(data: bytes | bytearray) -> tuple[dict[str, Any], Any, IndexMeta]:
    """The header, the graph's pickled state (not yet an hnswlib index) and the meta of a
    file's plaintext. In format 2 the state's arrays are views of `data`, not copies."""
    header, body_at = unframe(data, MAGIC, READABLE_VERSIONS, "vector index")
    meta = IndexMeta.from_json(header.get("meta"))
    view = memoryview(data)
    if frame_version(data, MAGIC) == 1:
        return header, _safe_unpickle(io.BytesIO(view[body_at:]), None), meta
    try:
        stream_end = body_at + int(header["pickle"])
        ends = list(accumulate((int(n) for n in header["buffers"]), initial=stream_end))
    except (KeyError, TypeError, ValueError) as exc:
        raise IntegrityError(f"vector index header is malformed: {exc}") from None
    if ends[-1] != len(data) or any(b < a for a, b in pairwise(ends)):
        raise IntegrityError("vector index buffers do not add up to the file's length")
    buffers = [view[a:b] for a, b in pairwise(ends)]
    return header, _safe_unpickle(io.BytesIO(view[body_at:stream_end]), buffers), meta


class _GraphState:
    """Stands in for hnswlib.Index while unpickling: it keeps the state, so rows can be read
    from it before hnswlib copies it (and so nothing is copied twice)."""

    state: Any = None

    def __setstate__(self, state: Any) -> None:
        self.state = state


class _SafeUnpickler(pickle.Unpickler):
    """Only hnswlib.Index (captured as `_GraphState`) and numpy arrays may be reconstructed."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _SAFE_GLOBALS:
            raise IntegrityError(f"vector index contains a forbidden object {module}.{name}")
        if (module, name) == ("hnswlib", "Index"):
            return _GraphState
        return super().find_class(module, name)


def _safe_unpickle(body: io.BytesIO, buffers: list[memoryview] | None) -> Any:
    try:
        found = _SafeUnpickler(body, buffers=buffers).load()
    except IntegrityError:
        raise
    except Exception as exc:  # any unpickling failure of authenticated bytes is corruption
        raise IntegrityError(f"vector index graph cannot be read: {exc}") from None
    if not isinstance(found, _GraphState) or not isinstance(found.state, tuple):
        raise IntegrityError("vector index graph is not an hnswlib index")
    return found.state


def _graph_from_state(state: Any) -> Any:
    """An hnswlib index holding `state` (hnswlib copies the arrays into its own memory)."""
    index = hnswlib.Index.__new__(hnswlib.Index)
    try:
        index.__setstate__(state)
    except Exception as exc:  # hnswlib rejects a state it cannot use with various errors
        raise IntegrityError(f"vector index graph cannot be read: {exc}") from None
    return index
