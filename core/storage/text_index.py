"""Substring search without decrypting the store: memory text kept sealed beside the indexes.

The memory center's full-text search is a case-insensitive substring match over memory
content in every status, which BM25 terms cannot answer exactly ("port 12" inside "port
1234"). Decrypting and binding-checking every row for it cost 3.4 s at 100k memories (#13).
`TextIndex` keeps each memory's casefolded content with the revision it was read at,
sealed as `index/texts.mcidx` with the store's codec (``Aad("index_files", "texts.mcidx",
"texts")``), written atomically. A search reads only `(id, revision)` of the rows its
metadata filter admits, matches the cached text of the rows whose revision it holds,
decrypts the rest (new or edited since), and then loads and verifies only the matches, so
a result is always a checked record re-matched on its verified content.

What it holds and does not:
* Only text this process decrypted through the binding check; a row sealed with a member's
  personal key (a private scope on a team store) is never cached here, because this file
  is sealed with the team key: such rows are decrypted at every search.
* It is derived: a missing, stale, tampered or foreign file is rebuilt (one full read).
* A compliance purge rewrites it without the purged memories (`purge`), a key rotation
  reseals it (`reseal`), `index rebuild` drops it (`reset`).
"""

from __future__ import annotations

import contextlib
import threading
from array import array
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from core.crypto.codec import Aad, Codec, is_personal
from core.crypto.keys import atomic_write
from core.errors import IntegrityError, MemoryCenterError, ResourceUnavailableError
from core.storage.framing import frame, from_le_uint32, le_uint32, unframe

FILE_NAME = "texts.mcidx"
AAD_TABLE = "index_files"
AAD_FIELD = "texts"
MAGIC = b"MCTX"
FORMAT_VERSION = 1
# A search that had to decrypt this many rows writes the file at once (the first search of a
# large store, an import); fewer new rows wait for `save` at close.
SAVE_AFTER_NEW = 500


def aad(path: Path) -> Aad:
    """The AAD a text file is sealed with (its file name is the row id)."""
    return Aad(AAD_TABLE, path.name, AAD_FIELD)


class TextIndex:
    """Casefolded memory content by id and revision, for substring search. Thread-safe."""

    def __init__(self, folder: Path | None) -> None:
        self.path = folder / FILE_NAME if folder else None
        self._lock = threading.Lock()
        self._texts: dict[str, tuple[int, str]] = {}
        self._read = False
        self._dirty = False
        self._new = 0

    # --- matching -----------------------------------------------------------------------

    def split(
        self, codec: Codec, rows: Sequence[tuple[str, int]], needle: str
    ) -> tuple[list[str], list[str]]:
        """For `(id, revision)` rows: the ids whose cached text holds `needle` (casefolded),
        and the ids this index cannot answer (not cached at that revision)."""
        self._ensure_read(codec)
        hits: list[str] = []
        unknown: list[str] = []
        with self._lock:
            texts = self._texts
            for memory_id, revision in rows:
                cached = texts.get(memory_id)
                if cached is None or cached[0] != revision:
                    unknown.append(memory_id)
                elif needle in cached[1]:
                    hits.append(memory_id)
        return hits, unknown

    def learn(self, codec: Codec, rows: Iterable[tuple[Mapping[Any, Any], str]]) -> None:
        """Remember verified content: `(raw row, decrypted content)` pairs.

        Rows under a personal key are skipped (see the module docstring); purged rows (no
        ciphertext) are cached as empty text, which matches nothing.
        """
        self._ensure_read(codec)
        added = 0
        with self._lock:
            for row, content in rows:
                blob = row["content"]
                if blob and is_personal(blob):
                    continue
                entry = (int(row["revision"]), content.casefold())
                if self._texts.get(str(row["id"])) != entry:
                    self._texts[str(row["id"])] = entry
                    added += 1
            self._new += added
            self._dirty = self._dirty or added > 0
            due = self._new >= SAVE_AFTER_NEW
        if due:
            with contextlib.suppress(MemoryCenterError):
                self.save(codec)

    def __len__(self) -> int:
        with self._lock:
            return len(self._texts)

    # --- the file -----------------------------------------------------------------------

    def save(self, codec: Codec) -> None:
        """Seal and atomically write the index if it changed since it was read.

        Raises:
            ResourceUnavailableError: the file cannot be written.
        """
        if self.path is None:
            return
        with self._lock:
            if not self._dirty:
                return
            data = _plaintext(self._texts)
            self._dirty, self._new = False, 0
        blob = codec.seal(data, aad(self.path), compress=False)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            atomic_write(self.path, blob)
        except OSError as exc:
            with self._lock:
                self._dirty = True
            raise ResourceUnavailableError(
                f"cannot write text index {self.path}: {exc.strerror or exc}"
            ) from exc

    def purge(self, codec: Codec, memory_ids: Iterable[str]) -> None:
        """Drop purged memories and rewrite the file at once (R19).

        A process that never read the file (a CLI purge) reads it first, so that the other
        entries survive; a file that does not open is removed instead.
        """
        self._ensure_read(codec)
        with self._lock:
            for memory_id in memory_ids:
                self._texts.pop(memory_id, None)
            self._dirty = True
        self.save(codec)

    def reseal(self, codec: Codec) -> None:
        """Rewrite the file under the codec's active key (after a key rotation)."""
        self._ensure_read(codec)
        with self._lock:
            self._dirty = bool(self._texts) or self._dirty
        self.save(codec)

    def reset(self) -> None:
        """Forget everything and delete the file (`index rebuild`)."""
        with self._lock:
            self._texts.clear()
            self._read, self._dirty, self._new = True, False, 0
            if self.path is not None:
                self.path.unlink(missing_ok=True)

    def _ensure_read(self, codec: Codec) -> None:
        with self._lock:
            if self._read:
                return
            self._read = True
            if self.path is None or not self.path.exists():
                return
            try:
                self._texts.update(load(self.path, codec))
            except MemoryCenterError:
                # Derived: a file that does not open (tampered, another key, a newer format)
                # is replaced by what this process reads, and removed meanwhile so that a
                # purge never leaves an unreadable copy of content behind.
                self.path.unlink(missing_ok=True)


def load(path: Path, codec: Codec) -> dict[str, tuple[int, str]]:
    """The entries of a file written by `TextIndex.save`.

    Raises:
        ResourceUnavailableError: the file cannot be read.
        IntegrityError: wrong key, tampered, renamed or malformed content.
        KeyUnavailableError: sealed with a key the codec does not hold.
        StoreVersionError: written by another format version.
    """
    try:
        blob = path.read_bytes()
    except OSError as exc:
        raise ResourceUnavailableError(
            f"cannot read text index {path}: {exc.strerror or exc}"
        ) from exc
    return unpack(codec.open(blob, aad(path)))


def _plaintext(texts: Mapping[str, tuple[int, str]]) -> bytes:
    ids = list(texts)
    revisions = array("I", (texts[i][0] for i in ids))
    lengths = array("I", (len(texts[i][1]) for i in ids))
    sections = [
        "\n".join(ids).encode("utf-8"),
        le_uint32(revisions),
        le_uint32(lengths),
        "".join(texts[i][1] for i in ids).encode("utf-8"),
    ]
    header = {"entries": len(ids), "sizes": [len(x) for x in sections]}
    return frame(MAGIC, FORMAT_VERSION, header, b"".join(sections))


def unpack(data: bytes) -> dict[str, tuple[int, str]]:
    """The entries in a text file's plaintext.

    Raises:
        IntegrityError: malformed content.
        StoreVersionError: another format version.
    """
    header, at = unframe(data, MAGIC, FORMAT_VERSION, "text index")
    try:
        count = int(header["entries"])
        sizes = [int(x) for x in header["sizes"]]
        if len(sizes) != 4 or min(sizes) < 0 or at + sum(sizes) != len(data):
            raise ValueError("section sizes do not match the body")
        parts = []
        for size in sizes:
            parts.append(data[at : at + size])
            at += size
        ids = parts[0].decode("utf-8").split("\n") if parts[0] else []
        revisions, lengths = from_le_uint32(parts[1]), from_le_uint32(parts[2])
        text = parts[3].decode("utf-8")
        if not len(ids) == len(revisions) == len(lengths) == count or sum(lengths) != len(text):
            raise ValueError("entry counts or lengths disagree")
        out: dict[str, tuple[int, str]] = {}
        start = 0
        for memory_id, revision, length in zip(ids, revisions, lengths, strict=True):
            out[memory_id] = (revision, text[start : start + length])
            start += length
        return out
    except (KeyError, TypeError, ValueError, UnicodeDecodeError) as exc:
        raise IntegrityError(f"text index content is malformed: {exc}") from None
