"""The framing the sealed index files share (vectors, keywords, texts): a magic tag, a format
version, a JSON header and a body. Sealing and atomic writing are the callers' own."""

from __future__ import annotations

import contextlib
import json
import os
import struct
import sys
from array import array
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from core.crypto.codec import Aad, Codec
from core.crypto.keys import atomic_write_with
from core.errors import IntegrityError, ResourceUnavailableError, StoreVersionError

_HEADER = struct.Struct(">BI")  # format version, header length


def frame(magic: bytes, version: int, header: dict[str, Any], body: bytes) -> bytes:
    """The plaintext of an index file."""
    head = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return magic + _HEADER.pack(version, len(head)) + head + body


def unframe(
    data: bytes | bytearray, magic: bytes, version: int | tuple[int, ...], what: str
) -> tuple[dict[str, Any], int]:
    """The header of an index file's plaintext and where its body starts.

    `version` may name several formats a reader still accepts (the caller reads which one
    from `frame_version`).

    Raises:
        IntegrityError: not such a file, or its header is not a JSON object.
        StoreVersionError: written in another format version.
    """
    start = len(magic) + _HEADER.size
    if len(data) < start or not data.startswith(magic):
        raise IntegrityError(f"not a Memory Center {what} (bad magic)")
    found, length = _HEADER.unpack_from(data, len(magic))
    accepted = (version,) if isinstance(version, int) else version
    if found not in accepted:
        raise StoreVersionError(f"{what} format {found} is not this version's {accepted[-1]}")
    try:
        header = json.loads(data[start : start + length].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise IntegrityError(f"{what} header is not valid JSON: {exc}") from None
    if not isinstance(header, dict):
        raise IntegrityError(f"{what} header is not an object")
    return header, start + length


def framed_prefix(data: bytes | bytearray, magic: bytes) -> int | None:
    """How many bytes of a plaintext its magic, version and JSON header take, once `data`
    (the plaintext's start, as it is decrypted) holds enough to tell; None before that."""
    start = len(magic) + _HEADER.size
    if len(data) < start:
        return None
    _, length = _HEADER.unpack_from(data, len(magic))
    return start + int(length)


def frame_version(data: bytes | bytearray, magic: bytes) -> int:
    """The format version of a plaintext `unframe` accepted."""
    return int(data[len(magic)])


def le_uint32(values: array[int]) -> bytes:
    """Unsigned 32-bit values as little-endian bytes (the files' byte order on any machine)."""
    if sys.byteorder == "little":
        return values.tobytes()
    swapped = array("I", values)
    swapped.byteswap()
    return swapped.tobytes()


def from_le_uint32(data: bytes | bytearray) -> array[int]:
    """The inverse of `le_uint32`.

    Raises:
        ValueError: the length is not a whole number of values.
    """
    if len(data) % 4:
        raise ValueError("a packed section is not whole uint32 values")
    out = array("I")
    out.frombytes(data)
    if sys.byteorder != "little":
        out.byteswap()
    return out


def open_sealed_file(path: Path, codec: Codec, aad: Aad, what: str) -> bytearray:
    """The plaintext of a sealed index file, read and decrypted in pieces (the sealed bytes
    are never held whole: at 100k vectors that alone was 170-220 MB of a peak, #13).

    Raises:
        ResourceUnavailableError: missing or unreadable (the caller rebuilds instead).
        IntegrityError, KeyUnavailableError: as `Codec.open`.
    """
    with sealed_file_handle(path, what) as (handle, size):
        return codec.open_from(handle, size, aad)


@contextlib.contextmanager
def sealed_file_handle(path: Path, what: str) -> Iterator[tuple[BinaryIO, int]]:
    """An index file open for reading, and its size. Reads through one handle see one file
    even if a writer replaces it meanwhile (writes are atomic renames), so a file may be
    read twice.

    Raises:
        ResourceUnavailableError: missing or unreadable (the caller rebuilds instead).
    """
    try:
        with path.open("rb") as handle:
            yield handle, os.fstat(handle.fileno()).st_size
    except OSError as exc:
        raise ResourceUnavailableError(f"cannot read {what} {path}: {exc.strerror or exc}") from exc


def write_file(path: Path, blob: bytes, what: str, *, make_dir: bool = True) -> None:
    """Write a sealed index file atomically, creating its owner-only folder if asked.

    Raises:
        ResourceUnavailableError: the file cannot be written (disk full, no permission).
    """
    write_file_with(path, lambda handle: handle.write(blob), what, make_dir=make_dir)


def write_file_with(
    path: Path, fill: Callable[[BinaryIO], object], what: str, *, make_dir: bool = True
) -> None:
    """`write_file` for content that `fill` writes piece by piece into the open file."""
    try:
        if make_dir:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        atomic_write_with(path, fill)
    except OSError as exc:
        raise ResourceUnavailableError(
            f"cannot write {what} {path}: {exc.strerror or exc}"
        ) from exc
