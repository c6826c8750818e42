"""The process-local catalog of active memory, kept in step with the store's change feed.

It is a derived cache: rebuilt from the store at any time, caught up incrementally by
reading the change feed after the revision it last saw (so changes made by other processes
are visible before answering), and purged of a memory in the same call that deletes it.

Opening does not decrypt every memory (#13). The scope index comes from the clear columns
(id, scope, revision of the active rows); the keyword index from its sealed file, checked
entry by entry against those revisions (only the entries that differ are decrypted and
re-indexed); records themselves are decrypted and binding-checked when retrieval needs them
(`RecordCache`), and a bounded number stay cached.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from collections.abc import Iterable
from pathlib import Path

from core.errors import MemoryCenterError, StoreVersionError
from core.model.enums import ChangeKind, MemoryStatus
from core.model.records import MemoryRecord
from core.model.scope import Scope
from core.retrieval import context, keyword_file
from core.retrieval.keyword import KeywordIndex
from core.retrieval.record_cache import LOAD_BATCH, RecordCache
from core.retrieval.vectors import VectorLayer, remove_stale_temp_files
from core.storage import memories, tombstones
from core.storage.change_feed import EVERYTHING
from core.storage.checkup import PURGE_JOURNAL
from core.storage.damage import Damage
from core.storage.store import Store
from core.storage.text_index import TextIndex

log = logging.getLogger(__name__)

FULL_RELOAD_AFTER = 500
# Catch-up reads up to this many records through the cache (retrieval needs them next).
CACHE_THROUGH = 2_000
# A catch-up that re-indexed this many memories saves the keyword file at once, so the next
# process does not repeat it.
SAVE_AFTER = 1_000


class DamageNotes:
    """Damaged rows seen by this process, and those not yet reported (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: set[tuple[str, str]] = set()
        self._pending: list[Damage] = []

    def note(self, found: Iterable[Damage]) -> None:
        """Remember damaged rows; each (table, row) is queued for reporting once."""
        with self._lock:
            for damage in found:
                key = (damage.table, damage.row_id)
                if key not in self._seen:
                    self._seen.add(key)
                    self._pending.append(damage)

    def take(self) -> list[Damage]:
        """The damage not reported yet (and forget it was pending)."""
        with self._lock:
            out, self._pending = self._pending, []
            return out

    def forget(self, damage: Damage) -> None:
        """Let a row be reported again (its report could not be written)."""
        with self._lock:
            self._seen.discard((damage.table, damage.row_id))


def keyword_text(record: MemoryRecord) -> str:
    """What the keyword index sees: the content, plus its speaker and the date words of its
    own time.

    A memory given a `said_at` and a `speaker` keeps them out of its text (so similarity is
    not distorted by them), but "what did Mei say in May 2023" should still match it by
    keyword.
    """
    text = record.spoken()
    when = record.own_time()
    if when is None:
        return text
    return f"{text} {when.day} {when:%B %Y}"


def pending_purges(path: Path) -> set[str]:
    """The memory ids a purge journal names (an unreadable journal names none)."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    return {str(v) for v in value} if isinstance(value, list) else set()


class Catalog:
    """Active memory ids by scope, their records on demand, and a keyword index over them.

    Args:
        store: the store to mirror.
        vectors: the vector layer kept in step (None: keyword only).
    """

    def __init__(self, store: Store, vectors: VectorLayer | None = None) -> None:
        self._store = store
        self._lock = threading.RLock()
        self._warm_guard = threading.Lock()
        self._warming = False
        self._scope_of: dict[str, Scope] = {}
        self.records = RecordCache(self._scope_of, self._read_records)
        self.keywords = KeywordIndex()
        # Text of memories in every status for the memory center's substring search.
        self.texts = TextIndex(store.index_dir)
        self._keywords_read = False
        self._keywords_dirty = False
        self._pending_save = 0
        self.by_scope: dict[Scope, set[str]] = {}
        # Active ids by conflict set (R9): the partners of a ranked member without reading
        # the rest of its scope (#13). Filled from the clear column at load and from the
        # verified record at each change; the injector checks every partner's record.
        self._set_of: dict[str, str] = {}
        self.by_conflict_set: dict[str, set[str]] = {}
        self.revision = -1
        # Per-session opt-out and exclusions, valid until a session or memory change.
        self._sessions: dict[str, tuple[bool, frozenset[str]]] = {}
        # Damaged rows met while loading: skipped, and reported once by the service.
        self.damage = DamageNotes()
        # The turns around each memory of a conversation (#17), for ranking and windows.
        self.neighbours = context.Neighbours(store)
        self._vectors: VectorLayer | None = None
        self.vectors = vectors

    @property
    def vectors(self) -> VectorLayer | None:
        """The vector layer kept in step (None: keyword only)."""
        return self._vectors

    @vectors.setter
    def vectors(self, layer: VectorLayer | None) -> None:
        # A layer embeds the conversation windows its new vectors make due (#17).
        if layer is not None:
            layer.windows_for = self._windows_for
        self._vectors = layer

    def _windows_for(self, records: list[MemoryRecord]) -> dict[str, str]:
        return context.windows_of(records, self.records, self.neighbours)

    @property
    def keyword_path(self) -> Path | None:
        """The sealed keyword index file (None: a store without a data directory)."""
        folder = self._store.index_dir
        return folder / keyword_file.FILE_NAME if folder else None

    def sync(self) -> int:
        """Catch up with the store; return the revision now mirrored."""
        with self._lock:
            current = self._store.revision()
            if current == self.revision:
                return current
            if self.revision < 0:
                self._reload(current)
                return current
            feed = self._store.changes_since(self.revision, limit=FULL_RELOAD_AFTER + 1)
            if len(feed) > FULL_RELOAD_AFTER:
                self._reload(current)
                return current
            changed: set[str] = set()
            for entry in feed:
                if EVERYTHING in entry.memory_ids:  # a big transaction: reload everything
                    self._reload(current)
                    return current
                changed.update(entry.memory_ids)
                if entry.kinds & {ChangeKind.SESSIONS, ChangeKind.MEMORIES}:
                    self._sessions.clear()
            self.refresh(changed)
            self.revision = max([current, *(e.revision for e in feed)])
            return self.revision

    def refresh(self, memory_ids: Iterable[str], *, embed_now: int = 0) -> None:
        """Reload these records from the store (after a change to them); up to `embed_now`
        changed records are embedded before returning if the model is ready, the rest (or
        all) in the background."""
        ids = list(memory_ids)
        if not ids:
            return
        with self._store.read("refresh catalog") as conn:
            loaded = memories.load(conn, self._store.codec, ids)
        self.damage.note(loaded.damaged)
        fresh = {r.id: r for r in loaded}
        changed: list[MemoryRecord] = []
        with self._lock:
            for memory_id in ids:
                record = fresh.get(memory_id)
                if record is not None and record.status == MemoryStatus.ACTIVE:
                    if self.keywords.stamp(memory_id) != record.revision:
                        changed.append(record)
                    self._put(record)
                else:
                    self.forget(memory_id)
        # Embedding happens in the background, in batches: neither writers nor readers wait
        # for the model (keyword search already sees the new records).
        if self.vectors is not None and changed:
            self.vectors.put_soon(changed, embed_now)

    def warm_in_background(self) -> None:
        """Load the catalog, and the vector file, in a background thread (once per catalog),
        so a store opened for an agent serves its first turn instead of degrading while a
        100k store loads (~0.6 s keyword path, ~1.4 s with vectors; #13, R17)."""
        with self._warm_guard:
            if self._warming:
                return
            self._warming = True
        threading.Thread(target=self._warm, name="mc-catalog-load", daemon=True).start()

    def _warm(self) -> None:
        try:
            self.sync()
            if self.vectors is not None:
                self.vectors.load_file()
        except Exception as exc:  # a thread of its own: the first query meets and reports it
            log.warning("background load of the catalog stopped: %s", exc)

    def advance(self, own_revision: int) -> None:
        """Our own write produced `own_revision`; if nothing else came between, skip its feed.

        Never waits: while a first load holds the lock (seconds at 100k), a degraded inject
        must return at once; the feed row is then simply read at the next catch-up.
        """
        if not self._lock.acquire(blocking=False):
            return
        try:
            if self.revision == own_revision - 1:
                self.revision = own_revision
        finally:
            self._lock.release()

    @property
    def loaded(self) -> bool:
        """True once the catalog mirrors the store (its first load is done)."""
        return self.revision >= 0

    def session_state(self, session: str | None) -> tuple[bool, frozenset[str]]:
        """(opted out?, excluded memory ids) of a session, cached until sessions change."""
        if session is None:
            return False, frozenset()
        with self._lock:
            cached = self._sessions.get(session)
            if cached is not None:
                return cached
            with self._store.read("read session state") as conn:
                state = memories.session_state(conn, self._store.codec, session)
            self._sessions[session] = state
            return state

    def forget(self, memory_id: str) -> bool:
        """Drop a memory from the catalog and its keyword index (deletion, R19)."""
        with self._lock:
            scope = self._scope_of.pop(memory_id, None)
            if scope is not None:
                self._unindex_scope(memory_id, scope)
            self._file_conflict(memory_id, None)
            self.records.discard(memory_id)
            if self.vectors is not None:
                self.vectors.remove(memory_id)
            removed = self.keywords.remove(memory_id)
            self._keywords_dirty = self._keywords_dirty or removed
            return removed or scope is not None

    def purge(self, memory_ids: Iterable[str]) -> None:
        """After a compliance purge: rewrite the keyword, text and vector files without them (R19).

        A process that never read the keyword file (a CLI purge) reads and reconciles it
        first: writing its empty in-memory index would throw every other entry away.
        """
        ids = list(memory_ids)
        self.sync()
        with self._lock:
            for memory_id in ids:
                self.forget(memory_id)
            self._keywords_dirty = True
            self.save_keywords()
        self.texts.purge(self._store.codec, ids)
        if self.vectors is not None:
            self.vectors.purge(ids)
        self._journal_done(ids)

    # A purge commits in the store, then rewrites this machine's index files. The ids it is
    # about to purge are noted first in `index/purge-pending.json` (ids only), so a process
    # killed between the commit and the rewrite has the rewrite finished by the next open
    # (`finish_purges`), and `verify` names a rewrite that is still owed (#38).

    @property
    def purge_journal(self) -> Path | None:
        """The file of purges whose index rewrite is not done (None: no data directory)."""
        folder = self._store.index_dir
        return folder / PURGE_JOURNAL if folder else None

    def expect_purge(self, memory_id: str) -> None:
        """Before a purge commits: note its id (written whole and synced to disk)."""
        path = self.purge_journal
        if path is None:
            return
        ids = sorted(pending_purges(path) | {memory_id})
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        with temp.open("w", encoding="utf-8") as handle:
            json.dump(ids, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)

    def finish_purges(self) -> list[str]:
        """At open: rewrite the index files without the memories a purge committed but did
        not get to remove from them; return those ids."""
        path = self.purge_journal
        ids = pending_purges(path) if path is not None else set()
        if not ids:
            return []
        with self._store.read("read purged memories") as conn:
            purged = sorted(tombstones.purged_among(conn, ids))
        if purged:
            self.purge(purged)
        self._journal_done(ids)
        return purged

    def purge_abandoned(self, memory_id: str) -> None:
        """The purge noted by `expect_purge` did not commit: nothing is owed."""
        self._journal_done([memory_id])

    def _journal_done(self, ids: Iterable[str]) -> None:
        path = self.purge_journal
        if path is None or not path.exists():
            return
        left = pending_purges(path) - set(ids)
        if left:
            temp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            temp.write_text(json.dumps(sorted(left)), encoding="utf-8")
            os.replace(temp, path)
        else:
            path.unlink(missing_ok=True)

    def reseal(self) -> None:
        """Rewrite the derived index files under the current key (after a key rotation)."""
        self.sync()
        with self._lock:
            self._keywords_read = True
            self._keywords_dirty = True
            self.save_keywords()
        self.texts.reseal(self._store.codec)
        if self.vectors is not None:
            self.vectors.reseal()

    def save(self) -> None:
        """Write the derived index files that changed (at close)."""
        with contextlib.suppress(MemoryCenterError):
            self.save_keywords()
        with contextlib.suppress(MemoryCenterError):
            self.texts.save(self._store.codec)
        if self.vectors is not None:
            self.vectors.save()

    def save_keywords(self) -> None:
        """Write the sealed keyword file if the index changed since it was read."""
        path = self.keyword_path
        with self._lock:
            if not self._keywords_dirty or path is None:
                return
            if not self._keywords_read:
                # Writes made before any read: merge them into the file's index first.
                self.sync()
            keyword_file.save(path, self._store.codec, self.keywords, max(self.revision, 0))
            self._keywords_dirty = False

    def conflict_members(self, sets: Iterable[str]) -> set[str]:
        """Ids of the active memories filed under any of these conflict sets."""
        with self._lock:
            return set().union(*(self.by_conflict_set.get(c, ()) for c in sets))

    def visible_ids(self, request: Scope) -> set[str]:
        """Ids of catalogued memories whose scope the request may see.

        A memory scoped M is visible to Q iff M is a subset of Q, so the candidates are
        exactly the memories filed under one of Q's subsets: at most 2^8 look-ups, however
        large the store.
        """
        out: set[str] = set()
        with self._lock:
            for key in request.subsets():
                out |= self.by_scope.get(key, set())
        return out

    def invalidate(self) -> None:
        """Forget everything; the next `sync` rebuilds from the store (rebuild, key change)."""
        with self._lock:
            self._scope_of.clear()
            self.records.clear()
            self.by_scope.clear()
            self._set_of.clear()
            self.by_conflict_set.clear()
            self._sessions.clear()
            self.keywords = KeywordIndex()
            # Rebuilt from the store, not read back from the file, then written anew.
            self._keywords_read = True
            self._keywords_dirty = True
            self.revision = -1

    def _records_for(self, ids: list[str]) -> list[MemoryRecord]:
        """Records by id: a few through the cache (the first read ranks them next), a
        store-sized batch straight from the store (it would only evict the cache)."""
        if len(ids) > CACHE_THROUGH:
            return self._read_records(ids)
        self.records.ensure(ids)
        return [r for r in map(self.records.get, ids) if r is not None]

    def _read_records(self, ids: list[str]) -> list[MemoryRecord]:
        """Verified, decrypted active records (damaged ones noted and left out)."""
        with self._store.read("load memories") as conn:
            loaded = memories.load(conn, self._store.codec, ids)
        self.damage.note(loaded.damaged)
        return [r for r in loaded if r.status == MemoryStatus.ACTIVE]

    def _reload(self, revision: int) -> None:
        with self._store.read("load catalog") as conn:
            rows = memories.active_rows(conn)
        self._scope_of.clear()
        self.records.clear()
        self.by_scope = {}
        self._set_of, self.by_conflict_set = {}, {}
        self._sessions = {}
        for memory_id, _, _, conflict_set in rows:
            self._file_conflict(memory_id, conflict_set)
        stamps = self._index_scopes(rows)
        self._catch_up_keywords(stamps)
        if self.vectors is not None:
            self.vectors.reconcile(list(stamps), self._records_for, revision)
        self.revision = revision
        if self._keywords_dirty and self._pending_save >= SAVE_AFTER:
            with contextlib.suppress(MemoryCenterError):
                self.save_keywords()

    def _index_scopes(self, rows: list[tuple[str, str, int, str | None]]) -> dict[str, int]:
        """Fill the scope index from clear columns; return each active id's revision."""
        by_json: dict[str, list[str]] = {}
        for memory_id, scope_json, *_ in rows:
            by_json.setdefault(scope_json, []).append(memory_id)
        unreadable: list[str] = []
        for scope_json, ids in by_json.items():
            try:
                scope = Scope.from_json(scope_json)
            except Exception:  # an invalid stored scope: the checked read names it
                unreadable += ids
                continue
            self._scope_of.update(dict.fromkeys(ids, scope))
            self.by_scope.setdefault(scope, set()).update(ids)
        if unreadable:
            self._read_records(unreadable)  # notes the damage
        skip = set(unreadable)
        return {mid: rev for mid, _, rev, _ in rows if mid not in skip}

    def _catch_up_keywords(self, stamps: dict[str, int]) -> None:
        """Make the keyword index hold exactly the active memories at their revisions."""
        if not self._keywords_read:
            self._keywords_read = True
            self.keywords = self._read_keyword_file()
        for memory_id in self.keywords.ids():
            if memory_id not in stamps:
                self.keywords.remove(memory_id)
                self._keywords_dirty = True
        known = self.keywords.stamps()
        todo = [m for m, rev in stamps.items() if known.get(m) != rev]
        self._pending_save = len(todo)
        read = self._records_for if len(todo) <= CACHE_THROUGH else self._read_records
        for start in range(0, len(todo), LOAD_BATCH):
            for record in read(todo[start : start + LOAD_BATCH]):
                self.keywords.add(record.id, keyword_text(record), record.revision)
            self._keywords_dirty = True

    def _read_keyword_file(self) -> KeywordIndex:
        path = self.keyword_path
        if path is None:
            return KeywordIndex()
        remove_stale_temp_files(path)
        if not path.exists():
            return KeywordIndex()
        try:
            index, _meta = keyword_file.load(path, self._store.codec)
        except StoreVersionError as exc:
            # Expected once after an upgrade that changed the terms (a new analyzer).
            log.info("keyword index file from another version, rebuilding: %s", exc)
            self._keywords_dirty = True
            return KeywordIndex()
        except MemoryCenterError as exc:
            # Tampered, damaged, or from another key: never trusted, rebuilt from the store.
            log.warning("keyword index file unusable, rebuilding from the store: %s", exc)
            self._keywords_dirty = True
            return KeywordIndex()
        return index

    def _put(self, record: MemoryRecord) -> None:
        old = self._scope_of.get(record.id)
        if old is not None:
            self._unindex_scope(record.id, old)
        self._scope_of[record.id] = record.scope
        self.by_scope.setdefault(record.scope, set()).add(record.id)
        self._file_conflict(record.id, record.conflict_set)
        self.records.put(record)
        if self.keywords.stamp(record.id) != record.revision:
            self.keywords.add(record.id, keyword_text(record), record.revision)
            self._keywords_dirty = True

    def _file_conflict(self, memory_id: str, conflict_set: str | None) -> None:
        """File a memory under its conflict set (None: under none)."""
        old = self._set_of.pop(memory_id, None)
        if old is not None and old != conflict_set:
            members = self.by_conflict_set.get(old)
            if members is not None:
                members.discard(memory_id)
                if not members:
                    del self.by_conflict_set[old]
        if conflict_set is not None:
            self._set_of[memory_id] = conflict_set
            self.by_conflict_set.setdefault(conflict_set, set()).add(memory_id)

    def _unindex_scope(self, memory_id: str, scope: Scope) -> None:
        ids = self.by_scope.get(scope)
        if ids is not None:
            ids.discard(memory_id)
            if not ids:
                del self.by_scope[scope]
