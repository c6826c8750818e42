"""The sealed file of a vector index: its meta, its format, and reading it (R14, R19, R24).

`VectorIndex` (vector_index.py) saves and loads through this module:

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
* The file is ``codec.seal(plaintext, Aad("index_files", <file name>, "vector"))`` written
  atomically: the name in the AAD means a file renamed or swapped for another index fails to
  open. Plaintext (format 2) = magic, a JSON header (meta, id<->label map, parameters, the
  lengths of the pickle stream and of each out-of-band buffer), the pickle stream of the
  hnswlib.Index, then the buffers; format 1 (the whole pickle in band) still loads.
  Unpickling goes through an allow-list (hnswlib.Index and the numpy array reconstructors)
  as defence in depth behind the authentication tag.
"""

from __future__ import annotations

import copyreg
import io
import logging
import pickle
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, replace
from itertools import accumulate, chain, pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.crypto.codec import Aad, Codec
from core.errors import IntegrityError
from core.index.embedder import Embedder
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
    from numpy.typing import NDArray
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


def graph_vectors(index: Any, labels: list[int], dim: int) -> Vector:
    """The exact float32 vectors the graph holds for `labels` (~25 us each)."""
    found = index.get_items(np.asarray(labels, dtype=np.uint64), return_type="numpy")
    vectors: Vector = np.asarray(found, dtype=np.float32).reshape(-1, dim)
    return vectors


def checked_rows(rows: HalfRows, index: Any, dim: int, labels: list[int]) -> HalfRows:
    """`rows` if a sample of them matches the graph's own vectors; else rows read through
    ``get_items`` for every label (slow, but right whatever hnswlib's layout)."""
    if not labels:
        return rows
    sample = labels[:: max(1, len(labels) // 16)]
    expected = graph_vectors(index, sample, dim).astype(np.float16)
    if not np.array_equal(rows[sample], expected):
        for at in range(0, len(labels), COPY_BATCH):
            part = labels[at : at + COPY_BATCH]
            rows[part] = graph_vectors(index, part, dim)
    return rows


def fill_from_state(rows: HalfRows, state: dict[str, Any], dim: int) -> bool:
    """Copy live vectors out of hnswlib's serialized element table into `rows`; False when
    a label falls outside `rows`.

    Raises:
        KeyError, TypeError, ValueError: a layout not understood.
    """
    table = ElementTable.parse(state)
    level0 = level0_bytes(state)[: table.count * table.width].reshape(table.count, table.width)
    whole = True
    for at in range(0, table.count, COPY_BATCH):
        whole &= table.file_elements(rows, level0[at : at + COPY_BATCH], dim)
    return whole


def level0_bytes(state: dict[str, Any]) -> NDArray[np.uint8]:
    # A view, not a conversion: asarray(dtype=uint8) of hnswlib's int8 array copied ~200 MB.
    level0 = np.asarray(state["data_level0"])
    if level0.dtype.itemsize != 1:
        raise ValueError("hnswlib's element table is not a byte array")
    return level0.view(np.uint8)


@dataclass(frozen=True)
class ElementTable:
    """The layout of hnswlib's element table (one fixed-width element per graph node) and,
    for the second pass of `VectorIndex.load`, where it lies in a file's plaintext."""

    start: int
    count: int
    width: int
    data_at: int
    label_at: int

    @classmethod
    def parse(cls, params: dict[str, Any]) -> ElementTable:
        """The layout named by hnswlib's serialized parameters.

        Raises:
            KeyError, TypeError, ValueError: a layout not understood.
        """
        count, width = int(params["cur_element_count"]), int(params["size_data_per_element"])
        return cls(0, count, width, int(params["offset_data"]), int(params["label_offset"]))

    @classmethod
    def of(cls, state: Any, data: bytes | bytearray) -> ElementTable | None:
        """The table's layout and place, when the state's element table is a view of `data`
        (format 2); None otherwise."""
        try:
            params = state[0]
            level0 = level0_bytes(params)
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
class GraphSource:
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


class CountedPieces:
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
class PlaintextLayout:
    """A format-2 plaintext as far as it was read: `head` (through the pickle stream at
    least), its header and meta, where the stream lies, the graph's state unpickled against
    blank buffers, where the element table lies, and the plaintext's whole length."""

    head: bytearray
    header: dict[str, Any]
    meta: IndexMeta
    body_at: int
    stream_end: int
    state: Any
    table: ElementTable
    length: int


def rows_layout(pieces: Iterator[bytes], size: int) -> PlaintextLayout | None:
    """Read a format-2 plaintext up to the end of its pickle stream and locate its element
    table. None for format 1, a layout not understood, or lengths a file of `size` bytes
    (sealed uncompressed) cannot hold: nothing read here is authentic until the rest of the
    pieces passed without an error, so nothing is sized from it unchecked.

    The stream is unpickled against untouched zero buffers (calloc'd, so not resident) of
    the out-of-band lengths: only the parameters and the element table's place are read.
    """
    read = read_head(pieces)
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
    state = safe_unpickle(stream, [blank.data for blank in blanks])
    try:
        params = state[0]
        table = ElementTable.parse(params)
        at = int(level0_bytes(params).ctypes.data)
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    for blank, start, end in zip(blanks, ends, ends[1:], strict=True):
        base = int(blank.ctypes.data)
        if base <= at < base + len(blank):
            table = replace(table, start=start + at - base)
            if table.start + table.count * table.width > end:
                return None
            return PlaintextLayout(head, header, meta, body_at, stream_end, state, table, ends[-1])
    return None


def rewrite_scrubbed(
    source: GraphSource, codec: Codec, meta: IndexMeta, gone: set[str], file_id: str
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
    aad = aad_of(path)
    with sealed_file_handle(path, "vector index") as (handle, size):
        pieces = CountedPieces(source.codec.pieces_from(handle, size, aad))
        layout = rows_layout(pieces, size)
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
        stream = stream_with_deletions(layout, bool(scrubbed))
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


class IndexPickler(pickle.Pickler):
    """Pickles a blank hnswlib.Index as `pickle.dumps` pickles one holding `state`."""

    def __init__(self, out: io.BytesIO, state: Any) -> None:
        super().__init__(out, protocol=5, buffer_callback=lambda _buffer: None)
        self._state = state

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is hnswlib.Index:
            return _NEWOBJ, (hnswlib.Index,), self._state
        return NotImplemented


def stream_with_deletions(layout: PlaintextLayout, deletions: bool) -> bytes | None:
    """The graph's pickle stream with hnswlib's `has_deletions` set when `deletions` (a
    graph loaded with it unset would not skip elements marked deleted); None unless the
    stream as read is reproduced byte for byte first, so nothing but that flag can change.
    The arrays stay the blank buffers they were read against (out of band, not copied)."""
    params = layout.state[0]
    if not isinstance(params, dict) or not isinstance(params.get("has_deletions"), bool):
        return None

    def dumped() -> bytes:
        out = io.BytesIO()
        IndexPickler(out, layout.state).dump(hnswlib.Index.__new__(hnswlib.Index))
        return out.getvalue()

    if dumped() != bytes(layout.head[layout.body_at : layout.stream_end]):
        return None
    if deletions:
        params["has_deletions"] = True
    return dumped()


def read_head(pieces: Iterator[bytes]) -> tuple[bytearray, dict[str, Any], int, int] | None:
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


def stamp_of(path: Path) -> tuple[int, int, int] | None:
    try:
        found = path.stat()
    except OSError:
        return None
    return (found.st_ino, found.st_size, found.st_mtime_ns)


def aad_of(path: Path) -> Aad:
    return Aad(AAD_TABLE, path.name, AAD_FIELD)


def graph_state_of(data: bytes | bytearray) -> tuple[dict[str, Any], Any, IndexMeta]:
    """The header, the graph's pickled state (not yet an hnswlib index) and the meta of a
    file's plaintext. In format 2 the state's arrays are views of `data`, not copies."""
    header, body_at = unframe(data, MAGIC, READABLE_VERSIONS, "vector index")
    meta = IndexMeta.from_json(header.get("meta"))
    view = memoryview(data)
    if frame_version(data, MAGIC) == 1:
        return header, safe_unpickle(io.BytesIO(view[body_at:]), None), meta
    try:
        stream_end = body_at + int(header["pickle"])
        ends = list(accumulate((int(n) for n in header["buffers"]), initial=stream_end))
    except (KeyError, TypeError, ValueError) as exc:
        raise IntegrityError(f"vector index header is malformed: {exc}") from None
    if ends[-1] != len(data) or any(b < a for a, b in pairwise(ends)):
        raise IntegrityError("vector index buffers do not add up to the file's length")
    buffers = [view[a:b] for a, b in pairwise(ends)]
    return header, safe_unpickle(io.BytesIO(view[body_at:stream_end]), buffers), meta


class GraphState:
    """Stands in for hnswlib.Index while unpickling: it keeps the state, so rows can be read
    from it before hnswlib copies it (and so nothing is copied twice)."""

    state: Any = None

    def __setstate__(self, state: Any) -> None:
        self.state = state


class SafeUnpickler(pickle.Unpickler):
    """Only hnswlib.Index (captured as `GraphState`) and numpy arrays may be reconstructed."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _SAFE_GLOBALS:
            raise IntegrityError(f"vector index contains a forbidden object {module}.{name}")
        if (module, name) == ("hnswlib", "Index"):
            return GraphState
        return super().find_class(module, name)


def safe_unpickle(body: io.BytesIO, buffers: list[memoryview] | None) -> Any:
    try:
        found = SafeUnpickler(body, buffers=buffers).load()
    except IntegrityError:
        raise
    except Exception as exc:  # any unpickling failure of authenticated bytes is corruption
        raise IntegrityError(f"vector index graph cannot be read: {exc}") from None
    if not isinstance(found, GraphState) or not isinstance(found.state, tuple):
        raise IntegrityError("vector index graph is not an hnswlib index")
    return found.state


def graph_from_state(state: Any) -> Any:
    """An hnswlib index holding `state` (hnswlib copies the arrays into its own memory)."""
    index = hnswlib.Index.__new__(hnswlib.Index)
    try:
        index.__setstate__(state)
    except Exception as exc:  # hnswlib rejects a state it cannot use with various errors
        raise IntegrityError(f"vector index graph cannot be read: {exc}") from None
    return index
