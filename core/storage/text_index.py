"""Substring search without decrypting the store: memory text kept sealed beside the indexes.

The memory center's full-text search is a case-insensitive substring match over memory
content in every status, which BM25 terms cannot answer exactly ("port 12" inside "port
1234"). Decrypting and binding-checking every row for it cost 3.4-7.5 s at 100k memories
(#13). `TextIndex` keeps every memory's casefolded content (after its speaker's name, when
it records one) with the memory revision and
`updated_at` it was read at, and the store revision up to which it is complete, sealed as
`index/texts.mcidx` with the store's codec (``Aad("index_files", "texts.mcidx", "texts")``),
written atomically.

A search first catches up: the change feed since that store revision names the memories
that changed (a first search, a gap too long, or a bulk change reads every row's id and
revision instead), and only rows whose revision moved are decrypted. Then the cached text is
matched in memory, and only the matching rows are read through the metadata filter, binding
checked and matched again on their verified content, newest first, until the page is full.

What it holds and does not:
* Only text that passed the binding check. A row sealed with a member's personal key (a
  private scope on a team store), another member's row and a damaged row are never cached
  (this file is sealed with the team key): their ids are kept as "opaque" and read at every
  search, so they are found, or reported, as before.
* It is derived: a missing, tampered or foreign file is deleted and rebuilt (one full read).
* A compliance purge rewrites it without the purged memories (`purge`), a key rotation
  reseals it (`reseal`), `index rebuild` drops it (`reset`).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
from array import array
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, select

from core.crypto.codec import Aad, Codec, is_personal
from core.errors import IntegrityError, MemoryCenterError, ResourceUnavailableError
from core.storage import schema as s
from core.storage.change_feed import EVERYTHING
from core.storage.damage import Damage, split
from core.storage.engine import chunks
from core.storage.framing import (
    frame,
    from_le_uint32,
    le_uint32,
    open_sealed_file,
    unframe,
    write_file,
)
from core.storage.memories import checked, record_query, source_ids

FILE_NAME = "texts.mcidx"
AAD_TABLE = "index_files"
AAD_FIELD = "texts"
MAGIC = b"MCTX"
FORMAT_VERSION = 2
# A catch-up that had to decrypt this many rows writes the file at once (the first search
# of a large store, an import); fewer wait for `save` at close.
SAVE_AFTER_NEW = 500
# More changed memories than this since the last catch-up, or more change-feed rows than
# FEED_ROWS_MAX (most rows name no memory: every inject's snapshot is one): read every row's
# revision instead of following the feed.
FULL_PASS_AFTER = 5_000
FEED_ROWS_MAX = 200_000


# What the index knows of one memory: (revision, updated_at, casefolded text). Plain tuples:
# 100k of them are built from a file in C (zip), where objects took a quarter of a second.
Entry = tuple[int, str, str]
LightRow = tuple[str, int, str, bool]  # id, revision, updated_at, content purged


def aad(path: Path) -> Aad:
    """The AAD a text file is sealed with (its file name is the row id)."""
    return Aad(AAD_TABLE, path.name, AAD_FIELD)


class TextIndex:
    """Casefolded memory content kept current with the change feed. Thread-safe."""

    def __init__(self, folder: Path | None) -> None:
        self.path = folder / FILE_NAME if folder else None
        self._lock = threading.Lock()
        self._texts: dict[str, Entry] = {}
        self._opaque: set[str] = set()
        self._complete_at = -1  # the store revision every row is known at (-1: never)
        self._read = False
        self._dirty = False
        self._new = 0
        self.decrypted = 0  # rows this process had to decrypt to catch up (tests, benchmarks)

    def __len__(self) -> int:
        with self._lock:
            return len(self._texts)

    # --- keeping current ----------------------------------------------------------------

    def catch_up(self, conn: Connection, codec: Codec) -> list[Damage]:
        """Bring the index up to the store `conn` reads; returns the damaged rows met."""
        with self._lock:
            self._ensure_read(codec)
            current = int(conn.execute(select(s.store_revision.c.revision)).scalar_one())
            if self._complete_at == current:
                return []
            if self._complete_at >= 0:
                changed = _changed_since(conn, self._complete_at)
                if changed is not None:
                    ids, last = changed
                    damage = self._reconcile(conn, codec, _light_rows(conn, sorted(ids)))
                    self._complete_at = max(self._complete_at, last)
                    self._dirty = True
                    return damage
            # The revision is read before the rows: a change committed meanwhile is newer
            # than it and comes again from the feed next time.
            rows = _light_rows(conn, None)
            present = {r[0] for r in rows}
            for gone in [i for i in self._texts if i not in present]:
                del self._texts[gone]
            self._opaque &= present
            damage = self._reconcile(conn, codec, rows)
            self._complete_at = current
            self._dirty = True
            return damage

    def _reconcile(self, conn: Connection, codec: Codec, rows: Sequence[LightRow]) -> list[Damage]:
        stale: list[str] = []
        for memory_id, revision, updated_at, purged in rows:
            if purged:
                # Purged here or on another device (same revision, content gone): its text
                # leaves this copy too, and an empty text matches nothing (R19).
                self._texts.pop(memory_id, None)
                self._opaque.discard(memory_id)
                continue
            known = self._texts.get(memory_id)
            if known is not None and known[0] == revision:
                if known[1] != updated_at:
                    self._texts[memory_id] = (revision, updated_at, known[2])
            else:
                stale.append(memory_id)
        damage: list[Damage] = []
        self.decrypted += len(stale)
        for chunk in chunks(stale):
            full = conn.execute(record_query().where(s.memories.c.id.in_(chunk))).mappings().all()
            sources = source_ids(conn, [r["id"] for r in full])
            for row in full:
                memory_id = str(row["id"])
                found = split([checked(row, codec, sources.get(memory_id, ()))])
                damage += found.damaged
                blob = row["content"]
                if not found or (blob and is_personal(blob)):
                    self._texts.pop(memory_id, None)
                    self._opaque.add(memory_id)
                    continue
                self._opaque.discard(memory_id)
                record = found[0]
                self._texts[memory_id] = (
                    record.revision,
                    str(row["updated_at"]),
                    record.spoken().casefold(),  # "Melanie" finds Melanie's words
                )
                self._new += 1
        return damage

    # --- matching -----------------------------------------------------------------------

    def candidates(self, needle: str) -> tuple[list[str], list[str]]:
        """Ids whose cached text holds `needle` (casefolded), newest first, and the opaque
        ids a search must read itself. Call `catch_up` first."""
        with self._lock:
            hits = [(e[1], i) for i, e in self._texts.items() if needle in e[2]]
            opaque = sorted(self._opaque)
        hits.sort(reverse=True)
        return [i for _at, i in hits], opaque

    # --- the file -----------------------------------------------------------------------

    def save_if_due(self, codec: Codec) -> None:
        """Write the file when many texts were learnt since the last write; a failed write
        waits for the next chance."""
        with self._lock:
            due = self._new >= SAVE_AFTER_NEW
        if due:
            with contextlib.suppress(MemoryCenterError):
                self.save(codec)

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
            data = _plaintext(self._texts, self._opaque, self._complete_at)
            self._dirty, self._new = False, 0
        blob = codec.seal(data, aad(self.path), compress=False)
        try:
            write_file(self.path, blob, "text index")
        except ResourceUnavailableError:
            with self._lock:
                self._dirty = True
            raise

    def purge(self, codec: Codec, memory_ids: Sequence[str]) -> None:
        """Drop purged memories and rewrite the file at once (R19).

        A process that never read the file (a CLI purge) reads it first, so that the other
        entries survive; a file that does not open is removed instead.
        """
        with self._lock:
            self._ensure_read(codec)
            for memory_id in memory_ids:
                # Purged content is empty: matching nothing, it need not be cached at all.
                self._texts.pop(memory_id, None)
            self._dirty = True
        self.save(codec)

    def reseal(self, codec: Codec) -> None:
        """Rewrite the file under the codec's active key (after a key rotation)."""
        with self._lock:
            self._ensure_read(codec)
            self._dirty = self._dirty or bool(self._texts)
        self.save(codec)

    def reset(self) -> None:
        """Forget everything and delete the file (`index rebuild`)."""
        with self._lock:
            self._texts.clear()
            self._opaque.clear()
            self._complete_at = -1
            self._read, self._dirty, self._new = True, False, 0
            if self.path is not None:
                self.path.unlink(missing_ok=True)

    def _ensure_read(self, codec: Codec) -> None:
        # Called with the lock held.
        if self._read:
            return
        self._read = True
        if self.path is None or not self.path.exists():
            return
        try:
            self._texts, self._opaque, self._complete_at = load(self.path, codec)
        except MemoryCenterError:
            # Derived: a file that does not open (tampered, another key, another format) is
            # relearnt, and removed meanwhile so that a purge never leaves an unreadable copy
            # of content behind.
            self.path.unlink(missing_ok=True)


def _light_rows(conn: Connection, ids: Sequence[str] | None) -> list[LightRow]:
    """(id, revision, updated_at, purged) of these memories, or of all; nothing decrypted."""
    m, r = s.memories.c, s.memory_revisions.c
    query = select(m.id, m.revision, m.updated_at, r.content.is_(None)).join(
        s.memory_revisions, (r.memory_id == m.id) & (r.revision == m.revision)
    )
    found: list[Any] = []
    if ids is None:
        found = list(conn.execute(query))
    for chunk in chunks(ids or ()):
        found += conn.execute(query.where(m.id.in_(chunk)))
    return [(str(i), int(rev), str(u), bool(p)) for i, rev, u, p in found]


def _changed_since(conn: Connection, revision: int) -> tuple[set[str], int] | None:
    """Memory ids the change feed names after `revision`, and its last revision; None when
    only a full pass can tell (too many changes, or a bulk change naming no ids)."""
    c = s.changes.c
    rows: list[Any] = list(
        conn.execute(
            select(c.revision, c.memory_ids)
            .where(c.revision > revision)
            .order_by(c.revision)
            .limit(FEED_ROWS_MAX + 1)
        )
    )
    if len(rows) > FEED_ROWS_MAX:
        return None
    ids: set[str] = set()
    last = revision
    for rev, memory_ids in rows:
        named = json.loads(memory_ids)
        if EVERYTHING in named:
            return None
        ids.update(str(i) for i in named)
        if len(ids) > FULL_PASS_AFTER:
            return None
        last = max(last, int(rev))
    return ids, last


def load(path: Path, codec: Codec) -> tuple[dict[str, Entry], set[str], int]:
    """The entries, opaque ids and completeness revision of a file written by `save`.

    Raises:
        ResourceUnavailableError: the file cannot be read.
        IntegrityError: wrong key, tampered, renamed or malformed content.
        KeyUnavailableError: sealed with a key the codec does not hold.
        StoreVersionError: written by another format version.
    """
    return unpack(open_sealed_file(path, codec, aad(path), "text index"))


_SECTIONS = ("ids", "revisions", "lengths", "updated", "texts", "opaque")


def _plaintext(texts: Mapping[str, Entry], opaque: set[str], complete_at: int) -> bytes:
    ids = list(texts)
    entries = [texts[i] for i in ids]
    sections = {
        "ids": "\n".join(ids).encode("utf-8"),
        "revisions": le_uint32(array("I", (e[0] for e in entries))),
        "lengths": le_uint32(array("I", (len(e[2]) for e in entries))),
        "updated": "\n".join(e[1] for e in entries).encode("utf-8"),
        "texts": "".join(e[2] for e in entries).encode("utf-8"),
        "opaque": "\n".join(sorted(opaque)).encode("utf-8"),
    }
    header = {
        "entries": len(ids),
        "complete_at": complete_at,
        "sizes": [len(sections[name]) for name in _SECTIONS],
    }
    return frame(MAGIC, FORMAT_VERSION, header, b"".join(sections[n] for n in _SECTIONS))


def unpack(data: bytes | bytearray) -> tuple[dict[str, Entry], set[str], int]:
    """The entries, opaque ids and completeness revision in a text file's plaintext.

    Raises:
        IntegrityError: malformed content.
        StoreVersionError: another format version.
    """
    header, at = unframe(data, MAGIC, FORMAT_VERSION, "text index")
    try:
        count, complete_at = int(header["entries"]), int(header["complete_at"])
        sizes = [int(x) for x in header["sizes"]]
        if len(sizes) != len(_SECTIONS) or min(sizes) < 0 or at + sum(sizes) != len(data):
            raise ValueError("section sizes do not match the body")
        parts: dict[str, bytes | bytearray] = {}
        for name, size in zip(_SECTIONS, sizes, strict=True):
            parts[name] = data[at : at + size]
            at += size
        ids, updated = _lines(parts["ids"]), _lines(parts["updated"])
        revisions, lengths = from_le_uint32(parts["revisions"]), from_le_uint32(parts["lengths"])
        text = parts["texts"].decode("utf-8")
        if not len(ids) == len(revisions) == len(lengths) == len(updated) == count:
            raise ValueError("entry counts disagree")
        if sum(lengths) != len(text):
            raise ValueError("text lengths disagree")
        ends = list(itertools.accumulate(lengths))
        texts = [text[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)] if ends else []
        entries = zip(revisions, updated, texts, strict=True)
        out: dict[str, Entry] = dict(zip(ids, entries, strict=True))
        return out, set(_lines(parts["opaque"])), complete_at
    except (KeyError, TypeError, ValueError, UnicodeDecodeError) as exc:
        raise IntegrityError(f"text index content is malformed: {exc}") from None


def _lines(data: bytes | bytearray) -> list[str]:
    return data.decode("utf-8").split("\n") if data else []
