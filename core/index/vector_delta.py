"""Vectors added since the vector index's graph file was written, sealed beside it (#13).

A save whose changes are a few additions merges them into this file instead of writing the
graph again (176 MiB at 100k x 384, with hnswlib's pickled copy of it: another 160 MiB and
seconds). The memory center, which leaves the graph in its file, saves its approvals and
edits this way, and so does an agent's close after a few new memories. Every load applies
it; a save that writes the graph includes it and deletes it.

The file names the graph file it extends (the graph header's ``file_id``): beside any other
graph file it is stale and is deleted, since it may hold the vector of a memory deleted
since (R19). Deleting a memory this file holds writes it again without it; deleting one
the graph file holds rewrites the graph file: a save that writes the whole graph deletes
this file, and a rewrite in passing (`vector_file.rewrite_scrubbed`) writes it again for
the new graph file.

Plaintext = magic, a JSON header (``base``: the graph file's id, ``ids``, ``dim``), then
the vectors as little-endian float32 rows; sealed with ``Aad("index_files", <file name>,
"vector-delta")`` and written atomically.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from core.crypto.codec import Aad, Codec
from core.errors import IntegrityError
from core.storage.framing import frame, sealed_file_handle, unframe, write_file

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray
else:
    from core.index.lazy import np

MAGIC = b"MCVD"
FORMAT_VERSION = 1
AAD_FIELD = "vector-delta"


def delta_path(graph_path: Path) -> Path:
    """Where the additions to the graph file at `graph_path` are kept."""
    return graph_path.with_name(f"{graph_path.stem}.delta{graph_path.suffix}")


@dataclass(frozen=True)
class Delta:
    """Additions to one graph file: `vectors[i]` is the unit vector of `ids[i]`."""

    base: str
    ids: list[str]
    vectors: NDArray[np.float32]


def write(path: Path, codec: Codec, delta: Delta) -> None:
    """Seal and atomically write `delta` to `path`.

    Raises:
        ResourceUnavailableError: the file cannot be written.
    """
    rows = np.ascontiguousarray(delta.vectors, dtype="<f4")
    header = {"base": delta.base, "ids": delta.ids, "dim": int(rows.shape[-1])}
    plain = frame(MAGIC, FORMAT_VERSION, header, rows.tobytes())
    write_file(path, codec.seal(plain, _aad(path)), "vector additions", make_dir=False)


def read(path: Path, codec: Codec, dim: int) -> Delta | None:
    """The additions kept at `path`; None when there is no such file.

    Raises:
        IntegrityError: tampered, renamed, sealed under another key, or malformed.
        ResourceUnavailableError: the file exists but cannot be read.
    """
    if not path.exists():
        return None
    with sealed_file_handle(path, "vector additions") as (handle, size):
        plain = codec.open_from(handle, size, _aad(path))
    header, body_at = unframe(plain, MAGIC, FORMAT_VERSION, "vector additions")
    try:
        base, ids, width = str(header["base"]), [str(i) for i in header["ids"]], int(header["dim"])
    except (KeyError, TypeError, ValueError) as exc:
        raise IntegrityError(f"vector additions header is malformed: {exc}") from None
    body = memoryview(plain)[body_at:]
    if width != dim or len(body) != 4 * dim * len(ids) or len(set(ids)) != len(ids):
        raise IntegrityError("vector additions do not match their header")
    rows = np.frombuffer(body, dtype="<f4").reshape(len(ids), dim).astype(np.float32)
    return Delta(base, ids, rows)


def remove(path: Path) -> None:
    """Delete the additions file if there is one."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def net_additions(
    journal: Sequence[tuple[list[str], NDArray[np.float32] | None]],
) -> tuple[list[str], list[NDArray[np.float32]]]:
    """The ids a journal of adds (vectors) and removals (None) leaves added, each with its
    last vector, in the order first added."""
    latest: dict[str, NDArray[np.float32]] = {}
    for ids, vectors in journal:
        if vectors is None:
            latest.pop(ids[0], None)
            continue
        for i, memory_id in enumerate(ids):
            latest[memory_id] = vectors[i]
    return list(latest), list(latest.values())


def _aad(path: Path) -> Aad:
    return Aad("index_files", path.name, AAD_FIELD)
