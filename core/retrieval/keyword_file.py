"""The keyword index on disk: one sealed file beside the vector index (#13, R19, R24).

Opening a store used to decrypt and re-tokenise every active memory to rebuild BM25 in
memory (4.8 s at 100k). The packed index is instead sealed with the store's codec as
`index/keywords.mcidx`: ``codec.seal(plaintext, Aad("index_files", "keywords.mcidx",
"keyword"))``, written atomically, so a swapped, renamed or altered file fails to open and is
rebuilt from the store rather than trusted. Plaintext = magic, format version, a JSON header
(store revision, counts, section sizes) and the sections: memory ids, their stamps (the
memory revision each was indexed at, which is how the catalog tells a stale entry), the
terms, and the per-document forward lists as little-endian uint32.

The file is derived: deleting it costs one rebuild. It holds the terms of memory content,
so a compliance purge rewrites it at once (see core/workflows/copies.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.crypto.codec import Aad, Codec
from core.errors import IntegrityError
from core.retrieval.keyword import KeywordIndex, Packed
from core.storage.framing import (
    frame,
    from_le_uint32,
    le_uint32,
    open_sealed_file,
    unframe,
    write_file,
)

FILE_NAME = "keywords.mcidx"
AAD_TABLE = "index_files"
AAD_FIELD = "keyword"
MAGIC = b"MCKW"
# 2: English words are stemmed (`core.retrieval.terms`); a version-1 file holds other terms, so
# it is not read but rebuilt from the store.
FORMAT_VERSION = 2
_SECTIONS = ("ids", "stamps", "terms", "offsets", "forward")


@dataclass(frozen=True)
class KeywordMeta:
    """What a keyword file reflects: the store revision it was saved at, and its size."""

    store_revision: int
    documents: int
    terms: int


def aad(path: Path) -> Aad:
    """The AAD a keyword file is sealed with (its file name is the row id)."""
    return Aad(AAD_TABLE, path.name, AAD_FIELD)


def plaintext(index: KeywordIndex, store_revision: int) -> bytes:
    """The exact bytes `save` seals: for tests and audits of what reaches disk."""
    packed = index.packed()
    sections = {
        "ids": "\n".join(packed.ids).encode("utf-8"),
        "stamps": le_uint32(packed.stamps),
        "terms": "\n".join(packed.terms).encode("utf-8"),
        "offsets": le_uint32(packed.offsets),
        "forward": le_uint32(packed.forward),
    }
    header = {
        "store_revision": store_revision,
        "documents": len(packed.ids),
        "terms": len(packed.terms),
        "sizes": [len(sections[name]) for name in _SECTIONS],
    }
    body = b"".join(sections[name] for name in _SECTIONS)
    return frame(MAGIC, FORMAT_VERSION, header, body)


def save(path: Path, codec: Codec, index: KeywordIndex, store_revision: int) -> None:
    """Seal and atomically write the index.

    Raises:
        ResourceUnavailableError: the file cannot be written (disk full, no directory).
    """
    data = plaintext(index, store_revision)
    # Packed integers shrink, but zlib at level 6 costs about a second per 20 MB: the
    # write (at close and after a purge) matters more than a few MB of disk.
    write_file(path, codec.seal(data, aad(path), compress=False), "keyword index")


def load(path: Path, codec: Codec) -> tuple[KeywordIndex, KeywordMeta]:
    """Read, open and unpack a file written by `save`.

    Raises:
        ResourceUnavailableError: the file is missing or unreadable (rebuild instead).
        IntegrityError: wrong key, tampered, renamed, or malformed content.
        KeyUnavailableError: sealed with a key the codec does not hold.
        StoreVersionError: written by a newer format.
    """
    return unpack(open_sealed_file(path, codec, aad(path), "keyword index"))


def unpack(data: bytes | bytearray) -> tuple[KeywordIndex, KeywordMeta]:
    """The index and meta in a file's plaintext.

    Raises:
        IntegrityError: malformed content.
        StoreVersionError: a newer format.
    """
    header, body = _split(data)
    try:
        meta = KeywordMeta(
            int(header["store_revision"]), int(header["documents"]), int(header["terms"])
        )
        sizes = [int(x) for x in header["sizes"]]
        parts = _sections(body, sizes)
        packed = Packed(
            ids=_lines(parts["ids"]),
            stamps=from_le_uint32(parts["stamps"]),
            terms=_lines(parts["terms"]),
            offsets=from_le_uint32(parts["offsets"]),
            forward=from_le_uint32(parts["forward"]),
        )
        _check_shape(packed, meta)
        return KeywordIndex.from_packed(packed), meta
    except (KeyError, TypeError, ValueError, UnicodeDecodeError) as exc:
        raise IntegrityError(f"keyword index content is malformed: {exc}") from None


def _split(data: bytes | bytearray) -> tuple[dict[str, Any], bytes | bytearray]:
    header, body_at = unframe(data, MAGIC, FORMAT_VERSION, "keyword index")
    return header, data[body_at:]


def _sections(body: bytes | bytearray, sizes: list[int]) -> dict[str, bytes | bytearray]:
    if len(sizes) != len(_SECTIONS) or sum(sizes) != len(body) or min(sizes) < 0:
        raise ValueError("section sizes do not match the body")
    out, at = {}, 0
    for name, size in zip(_SECTIONS, sizes, strict=True):
        out[name] = body[at : at + size]
        at += size
    return out


def _check_shape(packed: Packed, meta: KeywordMeta) -> None:
    n = meta.documents
    if len(packed.ids) != n or len(packed.stamps) != n or len(packed.offsets) != n + 1:
        raise ValueError("document counts disagree")
    if len(packed.terms) != meta.terms or packed.offsets[-1] != len(packed.forward):
        raise ValueError("term counts or offsets disagree")
    import numpy as np  # only when a file is read (CLI start-up stays lean)

    if np.any(np.diff(np.frombuffer(packed.offsets, dtype=np.uint32).astype(np.int64)) < 0):
        raise ValueError("offsets are not increasing")


def _lines(data: bytes | bytearray) -> list[str]:
    return data.decode("utf-8").split("\n") if data else []
