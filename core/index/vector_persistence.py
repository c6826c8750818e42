"""Saving a `VectorIndex` as its one sealed file and loading it back (R14, R19, R24).

A save writes the graph file, or only the additions beside it (`vector_delta`), or rewrites
the file in passing with removed vectors scrubbed; a load reads the graph and the rows, or
the rows and the id map alone (`graph=False`). The file's format is vector_file.py's; the
index in memory (ids, rows, graph, search) is vector_index.py's, which builds on this class.
"""

from __future__ import annotations

import logging
import pickle
import secrets
import threading
from dataclasses import asdict, replace
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from core.crypto.codec import Codec
from core.errors import IntegrityError, InvalidInputError, MemoryCenterError
from core.index import vector_delta
from core.index.vector_file import (
    FORMAT_VERSION,
    MAGIC,
    CountedPieces,
    ElementTable,
    GraphSource,
    IndexMeta,
    aad_of,
    checked_rows,
    fill_from_state,
    graph_from_state,
    graph_state_of,
    rewrite_scrubbed,
    rows_layout,
    stamp_of,
)
from core.storage.framing import frame, sealed_file_handle, write_file_with

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike, NDArray

    Vector = NDArray[np.float32]
    HalfRows = NDArray[np.float16]
else:
    from core.index.lazy import np

log = logging.getLogger(__name__)

# ef 128 buys recall@10 ~0.99 at 100k for ~0.1 ms more than ef 64 (docs/retrieval.md).
DEFAULT_EF = 128
# A save writes at most this many vectors beside the graph file: every load applies them,
# and adding one to a 100k graph costs a few milliseconds.
DELTA_MAX = 128


class PersistedIndex:
    """The saving and loading half of `VectorIndex`: it holds no state of its own and
    works on the index's (declared here for the type checker)."""

    _dim: int
    _ef: int
    _seed: int
    _lock: threading.RLock
    _labels: dict[str, int]
    _ids: dict[int, str]
    _next_label: int
    _dead: int
    _index: Any | None
    _rows: HalfRows
    _source: GraphSource | None
    _journal: list[tuple[list[str], Vector | None]] | None
    _journaled: int

    if TYPE_CHECKING:

        def __init__(
            self, dim: int, *, ef_search: int = ..., capacity: int = ..., seed: int = ...
        ) -> None: ...
        def __len__(self) -> int: ...
        def release_graph(self) -> bool: ...
        def _graph(self) -> Any: ...
        def _insert(self, ids: list[str], matrix: Vector) -> None: ...
        def _check_batch(self, ids: list[str], vectors: ArrayLike) -> Vector: ...

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
        aad = aad_of(path)
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
            self._source = GraphSource(path, codec, written, file_id, in_file, stamp_of(path))
        return written

    def _on_file(self, path: Path) -> bool:
        """True when every change of this process since the graph file it read is
        journaled, and that file has an id and is still there as it was read."""
        source = self._source
        if self._journal is None or source is None or not source.file_id:
            return False
        # Elsewhere, or another process replaced (or deleted) the file.
        return source.path == path and source.stamp == stamp_of(path)

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
        current = additions_of(vector_delta.delta_path(source.path), codec, source)
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
        deleted (`rewrite_scrubbed`), then its additions beside it. The peak is a piece of
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
            kept = rewrite_scrubbed(source, codec, meta, gone, file_id)
        except MemoryCenterError as exc:
            # The graph's way reads the file too and, when it cannot, builds the graph from
            # the rows: the vector leaves the disk either way (R19).
            log.warning("vector file %s not rewritten in passing: %s", source.path, exc)
            return None
        if kept is None:
            return None
        written = replace(meta, count=len(self))
        self._source = GraphSource(
            source.path, codec, written, file_id, frozenset(kept), stamp_of(source.path)
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
    ) -> tuple[Self, IndexMeta]:
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
        aad = aad_of(path)
        if not graph:
            lean = cls._rows_only(path, codec, ef_search, additions)
            if lean is not None:
                return lean
            full, meta = cls.load(path, codec, ef_search=ef_search, additions=additions)
            full.release_graph()
            return full, meta
        with sealed_file_handle(path, "vector index") as (handle, size):
            data = codec.open_from(handle, size, aad)
            header, state, meta = graph_state_of(data)
            table = ElementTable.of(state, data)
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
        self._rows = checked_rows(rows, self._index, meta.dim, sorted(self._ids))
        self._opened(path, codec, meta, header, additions)
        return self, meta

    @classmethod
    def _rows_only(
        cls, path: Path, codec: Codec, ef_search: int | None, additions: bool
    ) -> tuple[Self, IndexMeta] | None:
        """An index holding the file's rows and id map but not its graph, read in one pass;
        None for a file whose element table cannot be located that way (format 1)."""
        aad = aad_of(path)
        with sealed_file_handle(path, "vector index") as (handle, size):
            pieces = CountedPieces(codec.pieces_from(handle, size, aad))
            layout = rows_layout(pieces, size)
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
        self._source = GraphSource(path, codec, meta, file_id, in_file, stamp_of(path))
        self._journal, self._journaled = [], 0
        if not additions:
            return
        delta = additions_of(vector_delta.delta_path(path), codec, self._source)
        if delta is not None:
            # Not journaled: they are the file's, not this process's changes.
            self._insert(delta.ids, self._check_batch(delta.ids, delta.vectors))

    @classmethod
    def from_plaintext(
        cls, data: bytes | bytearray, *, ef_search: int | None = None
    ) -> tuple[Self, IndexMeta]:
        """Rebuild an index from `plaintext` bytes (already authenticated)."""
        header, state, meta = graph_state_of(data)
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
    ) -> Self:
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
                whole = fill_from_state(rows, state[0], meta.dim)
            except (KeyError, IndexError, TypeError, ValueError):
                whole = False
            if not whole:
                rows[:] = 0  # an unknown layout: the sample check below takes the slow path
        index = graph_from_state(state)
        del state
        if index.dim != meta.dim:
            raise IntegrityError("vector index header does not match its graph")
        self._index = index
        self._index.set_ef(self._ef)  # hnswlib resets ef to 10 on load
        if rows is not None:
            self._rows = checked_rows(rows, index, meta.dim, labels)

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


def additions_of(where: Path, codec: Codec, source: GraphSource) -> vector_delta.Delta | None:
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
