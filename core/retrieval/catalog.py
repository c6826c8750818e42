"""The process-local catalog of active memory, kept in step with the store's change feed.

It is a derived cache: rebuilt from the store at any time, caught up incrementally by
reading the change feed after the revision it last saw (so changes made by other processes
are visible before answering), and purged of a memory in the same call that deletes it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from core.model.enums import ChangeKind, MemoryStatus
from core.model.memory import MemoryFilter
from core.model.records import MemoryRecord
from core.model.scope import Scope
from core.retrieval.keyword import KeywordIndex
from core.retrieval.render import said_at
from core.retrieval.vectors import VectorLayer
from core.storage import memories
from core.storage.damage import Damage
from core.storage.store import EVERYTHING, Store

FULL_RELOAD_AFTER = 500


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
    """What the keyword index sees: the content, plus the date words of its own time.

    A memory given a `said_at` keeps the date out of its text (so similarity is not distorted
    by it), but "what did Mei say in May 2023" should still match it by keyword.
    """
    when = said_at(record)
    if when is None:
        return record.content
    return f"{record.content} {when.day} {when:%B %Y}"


class Catalog:
    """Active records by id plus a keyword index over them.

    Args:
        store: the store to mirror.
    """

    def __init__(self, store: Store, vectors: VectorLayer | None = None) -> None:
        self._store = store
        self.vectors = vectors
        self._lock = threading.RLock()
        self.records: dict[str, MemoryRecord] = {}
        self.keywords = KeywordIndex()
        self.by_scope: dict[Scope, set[str]] = {}
        self.revision = -1
        # Per-session opt-out and exclusions, valid until a session or memory change.
        self._sessions: dict[str, tuple[bool, frozenset[str]]] = {}
        # Damaged rows met while loading: skipped, and reported once by the service.
        self.damage = DamageNotes()

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
                    old = self.records.get(memory_id)
                    if old is None or old.content != record.content:
                        changed.append(record)
                    self._put(record)
                else:
                    self.forget(memory_id)
        # Embedding happens in the background, in batches: neither writers nor readers wait
        # for the model (keyword search already sees the new records).
        if self.vectors is not None and changed:
            self.vectors.put_soon(changed, embed_now)

    def advance(self, own_revision: int) -> None:
        """Our own write produced `own_revision`; if nothing else came between, skip its feed."""
        with self._lock:
            if self.revision == own_revision - 1:
                self.revision = own_revision

    def session_state(self, session: str | None) -> tuple[bool, frozenset[str]]:
        """(opted out?, excluded memory ids) of a session, cached until sessions change."""
        if session is None:
            return False, frozenset()
        with self._lock:
            cached = self._sessions.get(session)
            if cached is not None:
                return cached
            with self._store.read("read session state") as conn:
                state = memories.session_state(conn, session)
            self._sessions[session] = state
            return state

    def forget(self, memory_id: str) -> bool:
        """Drop a memory from the catalog and its keyword index (deletion, R19)."""
        with self._lock:
            old = self.records.pop(memory_id, None)
            if old is not None:
                self._unindex_scope(old)
            if self.vectors is not None:
                self.vectors.remove(memory_id)
            return self.keywords.remove(memory_id) or old is not None

    def visible_ids(self, request: Scope) -> set[str]:
        """Ids of catalogued memories whose scope the request may see.

        A memory scoped M is visible to Q iff M is a subset of Q, so the candidates are
        exactly the memories filed under one of Q's subsets: at most 2^8 look-ups, however
        large the store.
        """
        items = list(request.items_)
        out: set[str] = set()
        with self._lock:
            for mask in range(1 << len(items)):
                key = Scope(tuple(items[i] for i in range(len(items)) if mask >> i & 1))
                out |= self.by_scope.get(key, set())
        return out

    def invalidate(self) -> None:
        """Forget everything; the next `sync` reloads from the store (restart, key change)."""
        with self._lock:
            self.records.clear()
            self.by_scope.clear()
            self._sessions.clear()
            self.keywords = KeywordIndex()
            self.revision = -1

    def _reload(self, revision: int) -> None:
        with self._store.read("load catalog") as conn:
            active = memories.query(
                conn,
                self._store.codec,
                MemoryFilter(statuses=(MemoryStatus.ACTIVE.value,), limit=10_000_000),
            )
        self.damage.note(active.damaged)
        self.records = {}
        self.by_scope = {}
        self._sessions = {}
        self.keywords = KeywordIndex()
        for record in active:
            self._put(record)
        if self.vectors is not None:
            self.vectors.reconcile(self.records, revision)
        self.revision = revision

    def _put(self, record: MemoryRecord) -> None:
        old = self.records.get(record.id)
        if old is not None:
            self._unindex_scope(old)
        self.records[record.id] = record
        self.by_scope.setdefault(record.scope, set()).add(record.id)
        self.keywords.add(record.id, keyword_text(record))

    def _unindex_scope(self, record: MemoryRecord) -> None:
        ids = self.by_scope.get(record.scope)
        if ids is not None:
            ids.discard(record.id)
            if not ids:
                del self.by_scope[record.scope]
