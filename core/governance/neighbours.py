"""The records a new candidate is compared with: index neighbours, not the whole scope (#13).

`conflicts.relate` can only find a duplicate or a contradiction between two statements that
share comparison units (the shared frame) or are the same text after normalisation. So the
policy need not see every memory of a scope: `Neighbours` keeps, per scope, the records in
the related statuses with an inverted index of their units, and hands the policy

- every record whose normalised text equals the candidate's, and
- the `LIMIT` records sharing the most weighted units with it (BM25-like idf: a shared rare
  word such as a project name counts more than a shared "uses"),

in the order the store lists a scope (newest first), so a small scope is judged exactly as
before. A scope is loaded (decrypted once) on its first candidate; afterwards the index
follows the change feed, read inside the write transaction under the write lock, so another
process's writes are seen and nothing is compared with stale text. Records the caller wrote
inside the current transaction are applied at once and re-read from the store at the next
transaction (which drops them again if that transaction rolled back).
"""

from __future__ import annotations

import heapq
import math
import threading
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sqlalchemy import Connection

from core.crypto.codec import Codec
from core.governance.statements import parse
from core.governance.text import squash
from core.model.enums import MemoryStatus
from core.model.memory import MemoryFilter
from core.model.records import MemoryRecord
from core.model.scope import Scope
from core.storage import memories, memory_queries
from core.storage.store import EVERYTHING, WriteTx, changed_memory_ids, revision_of

RELATED_STATUSES = (
    MemoryStatus.ACTIVE,
    MemoryStatus.CANDIDATE,
    MemoryStatus.REJECTED,
    MemoryStatus.QUARANTINED,
)
LIMIT = 20
# Postings scored per candidate before the commonest units stop widening the pool: they then
# only add to the score of records already found (bounded work in a 100k scope).
POSTINGS_BUDGET = 4000
FEED_LIMIT = 500
# Scopes kept loaded (decrypted records plus their unit index) by a long-running process.
MAX_SCOPES = 64


def units_for(text: str) -> frozenset[str]:
    """What a text is matched on: its comparison units plus what it says it replaces."""
    st = parse(text)
    return frozenset(st.units) | frozenset(st.replaced)


@dataclass
class _ScopeIndex:
    """One scope's related records and the inverted index of their units."""

    records: dict[str, MemoryRecord] = field(default_factory=dict)
    units: dict[str, frozenset[str]] = field(default_factory=dict)
    postings: dict[str, set[str]] = field(default_factory=dict)
    squashed: dict[str, set[str]] = field(default_factory=dict)

    def put(self, record: MemoryRecord) -> None:
        self.drop(record.id)
        self.records[record.id] = record
        units = units_for(record.content)
        self.units[record.id] = units
        for unit in units:
            self.postings.setdefault(unit, set()).add(record.id)
        self.squashed.setdefault(squash(record.content), set()).add(record.id)

    def drop(self, memory_id: str) -> None:
        record = self.records.pop(memory_id, None)
        if record is None:
            return
        for unit in self.units.pop(memory_id, frozenset()):
            ids = self.postings.get(unit)
            if ids is not None:
                ids.discard(memory_id)
                if not ids:
                    del self.postings[unit]
        key = squash(record.content)
        same = self.squashed.get(key)
        if same is not None:
            same.discard(memory_id)
            if not same:
                del self.squashed[key]

    def nearest(self, text: str, limit: int) -> list[MemoryRecord]:
        """The records that can relate to `text`, newest first."""
        chosen = set(self.squashed.get(squash(text), ()))
        chosen.update(self._best(units_for(text), limit))
        found = [self.records[i] for i in chosen]
        found.sort(key=lambda r: (r.updated_at, r.id), reverse=True)
        return found

    def _best(self, query: frozenset[str], limit: int) -> list[str]:
        n = len(self.records)
        known = sorted((len(self.postings[u]), u) for u in query if u in self.postings)
        if not known:
            return []
        scores: defaultdict[str, float] = defaultdict(float)
        spent = 0
        late: list[tuple[str, float]] = []
        for df, unit in known:
            weight = math.log(1 + (n - df + 0.5) / (df + 0.5))
            if spent and spent + df > POSTINGS_BUDGET:
                late.append((unit, weight))
                continue
            spent += df
            for memory_id in self.postings[unit]:
                scores[memory_id] += weight
        pool = list(scores)
        if late:
            # The common units can lift a record by at most `bonus`: only records within
            # `bonus` of the provisional limit-th best can still reach the top, so only they
            # are scored on them (the same result, without a pass over thousands, #13).
            late_weight = dict(late)
            late_units = frozenset(late_weight)
            bonus = sum(late_weight.values())
            if len(scores) > limit:
                floor = heapq.nlargest(limit, scores.values())[-1] - bonus
                pool = [memory_id for memory_id, score in scores.items() if score >= floor]
            for memory_id in pool:
                for unit in self.units[memory_id] & late_units:
                    scores[memory_id] += late_weight[unit]
        return heapq.nlargest(limit, pool, key=scores.__getitem__)


class Neighbours:
    """Per-scope candidate finder for the duplicate and contradiction checks.

    Only used inside write transactions, which the store serialises (one writer per process,
    and the write lock across processes), so its state always belongs to one transaction.
    """

    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self._lock = threading.RLock()
        self._scopes: dict[Scope, _ScopeIndex] = {}
        self._where: dict[str, Scope] = {}  # the loaded scope each indexed record is filed in
        self._revision = -1
        # The transaction the index last served, and how many of its changed memories
        # (`tx.memory_ids`) are applied; the next transaction re-reads all of them from
        # the store, so a rolled-back write leaves nothing behind.
        self._tx: WriteTx | None = None
        self._applied = 0

    def nearest(self, tx: WriteTx, scope: Scope, text: str) -> list[MemoryRecord]:
        """The records of `scope` the policy should compare `text` with, newest first."""
        with self._lock:
            return self._scope(tx, scope).nearest(text, self.limit)

    def note(self, tx: WriteTx, known: Sequence[MemoryRecord] = ()) -> None:
        """Apply what this transaction changed so far (records written, merged, superseded);
        `known` are records the caller already holds in their new state."""
        with self._lock:
            self._follow(tx)
            fresh = tx.memory_ids[self._applied :]
            self._applied = len(tx.memory_ids)
            have = {r.id: r for r in known}
            for record in have.values():
                self._put(record)
            self._reload(tx.conn, tx.codec, [i for i in fresh if i not in have])

    def invalidate(self) -> None:
        """Forget everything (key change, rebuild); scopes load again on next use."""
        with self._lock:
            self._scopes.clear()
            self._where.clear()
            self._revision = -1
            self._tx = None
            self._applied = 0

    def _scope(self, tx: WriteTx, scope: Scope) -> _ScopeIndex:
        self._follow(tx)
        found = self._scopes.pop(scope, None)
        if found is not None:
            self._scopes[scope] = found  # most recently used last
        else:
            self._evict()
            index = _ScopeIndex()
            flt = MemoryFilter(
                statuses=tuple(x.value for x in RELATED_STATUSES), scope=scope, limit=10_000_000
            )
            for record in memory_queries.query(tx.conn, tx.codec, flt):
                index.put(record)
                self._where[record.id] = scope
            self._scopes[scope] = index
            return index
        return found

    def _evict(self) -> None:
        """Keep at most `MAX_SCOPES` scopes in memory, dropping the least recently used."""
        while len(self._scopes) >= MAX_SCOPES:
            index = self._scopes.pop(next(iter(self._scopes)))
            for memory_id in index.records:
                self._where.pop(memory_id, None)

    def _follow(self, tx: WriteTx) -> None:
        """At a transaction's first use: catch up with what was committed since."""
        if tx is self._tx:
            return
        last = self._tx
        previous = list(last.memory_ids) if last is not None else []
        self._tx, self._applied = tx, 0
        revision = revision_of(tx.conn)
        if revision == self._revision and not previous:
            return
        ids: set[str] | None = set()
        # When the only commit since is the previous transaction, its own writes (re-read
        # below) are all that changed: no feed read. A batch of more than 500 memories is
        # fed as "everything", which would unload every scope (1.7 s to load one of 10k
        # records again, #13).
        only_ours = (
            last is not None and last.committed and last.revision == revision == self._revision + 1
        )
        if self._scopes and not only_ours:
            ids = changed_memory_ids(tx.conn, self._revision, revision, FEED_LIMIT)
        if ids is None:
            self._scopes.clear()
            self._where.clear()
        else:
            self._reload(tx.conn, tx.codec, ids | set(previous))
        self._revision = revision

    def _reload(self, conn: Connection, codec: Codec, ids: Iterable[str]) -> None:
        wanted = [i for i in ids if i != EVERYTHING]
        if not wanted or not self._scopes:
            return
        fresh = {r.id: r for r in memories.load(conn, codec, wanted)}
        for memory_id in wanted:
            record = fresh.get(memory_id)
            if record is None:
                self._drop(memory_id)
            else:
                self._put(record)

    def _put(self, record: MemoryRecord) -> None:
        """File a record in its scope's index (or drop it: another status, another scope)."""
        self._drop(record.id)
        index = self._scopes.get(record.scope)
        if index is not None and record.status in RELATED_STATUSES:
            index.put(record)
            self._where[record.id] = record.scope

    def _drop(self, memory_id: str) -> None:
        scope = self._where.pop(memory_id, None)
        index = self._scopes.get(scope) if scope is not None else None
        if index is not None:
            index.drop(memory_id)
