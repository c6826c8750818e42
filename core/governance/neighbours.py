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
import sys
import threading
from array import array
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from core.governance.statements import parse
from core.governance.text import squash
from core.model.enums import MemoryStatus
from core.model.memory import MemoryFilter
from core.model.records import MemoryRecord
from core.model.scope import Scope
from core.storage import memories, memory_queries
from core.storage.change_feed import EVERYTHING, changed_memory_ids
from core.storage.store import WriteTx, revision_of

RELATED_STATUSES = (
    MemoryStatus.ACTIVE,
    MemoryStatus.CANDIDATE,
    MemoryStatus.REJECTED,
    MemoryStatus.QUARANTINED,
)
LIMIT = 20
# Above this many postings to score, numpy adds them (a 10k scope's common units: ~1.3 ms
# of a ~7 ms remember in plain Python, #13), importing it if need be; above the second, when
# a long-running process has it loaded already: numpy is 2-6x faster from ~100 postings up,
# but a one-shot CLI call into a small scope should not pay ~70 ms to import it.
NUMPY_FROM = 2000
NUMPY_LOADED_FROM = 100
# Dead slots tolerated before the postings are rebuilt (at least this many, and at most as
# many as there are live records).
COMPACT_AFTER = 1024
FEED_LIMIT = 500
# Scopes kept loaded (decrypted records plus their unit index) by a long-running process.
MAX_SCOPES = 64


def units_for(text: str) -> frozenset[str]:
    """What a text is matched on: its comparison units plus what it says it replaces."""
    st = parse(text)
    return frozenset(st.units) | frozenset(st.replaced)


@dataclass
class _ScopeIndex:
    """One scope's related records and the inverted index of their units.

    Postings hold slots (the order records were filed in), not ids: a record filed again
    (changed) takes a new slot and its old one is dead until the postings are compacted, so
    a posting list only ever grows between compactions and big scopes can be scored with
    numpy over the lists in place (#13).
    """

    records: dict[str, MemoryRecord] = field(default_factory=dict)
    units: dict[str, frozenset[str]] = field(default_factory=dict)
    squashed: dict[str, set[str]] = field(default_factory=dict)
    postings: dict[str, array[int]] = field(default_factory=dict)
    # How many live records hold each unit (the idf's document frequency).
    df: dict[str, int] = field(default_factory=dict)
    slot_of: dict[str, int] = field(default_factory=dict)
    slots: list[str | None] = field(default_factory=list)  # None: a dead slot
    # Dead slots as machine integers: numpy reads them in place (a list of 4k Python ints
    # took ~0.1 ms to convert at every candidate of a 10k scope, #13).
    dead: array[int] = field(default_factory=lambda: array("q"))

    def put(self, record: MemoryRecord) -> None:
        self.drop(record.id)
        self.records[record.id] = record
        units = units_for(record.content)
        self.units[record.id] = units
        self._file(record.id, units)
        self.squashed.setdefault(squash(record.content), set()).add(record.id)

    def _file(self, memory_id: str, units: frozenset[str]) -> None:
        slot = len(self.slots)
        self.slots.append(memory_id)
        self.slot_of[memory_id] = slot
        for unit in units:
            self.postings.setdefault(unit, array("q")).append(slot)
            self.df[unit] = self.df.get(unit, 0) + 1

    def drop(self, memory_id: str) -> None:
        record = self.records.pop(memory_id, None)
        if record is None:
            return
        slot = self.slot_of.pop(memory_id)
        self.slots[slot] = None
        self.dead.append(slot)
        for unit in self.units.pop(memory_id, frozenset()):
            left = self.df[unit] - 1
            if left:
                self.df[unit] = left
            else:
                del self.df[unit], self.postings[unit]
        key = squash(record.content)
        same = self.squashed.get(key)
        if same is not None:
            same.discard(memory_id)
            if not same:
                del self.squashed[key]
        if len(self.dead) > max(COMPACT_AFTER, len(self.records)):
            self._compact()

    def _compact(self) -> None:
        """File every live record again, in slot order (so newer records keep higher slots)."""
        live = [memory_id for memory_id in self.slots if memory_id is not None]
        self.postings, self.df, self.slot_of, self.slots = {}, {}, {}, []
        self.dead = array("q")
        for memory_id in live:
            self._file(memory_id, self.units[memory_id])

    def nearest(self, text: str, limit: int) -> list[MemoryRecord]:
        """The records that can relate to `text`, newest first."""
        if len(self.records) <= limit:
            # A small scope is compared whole: a translation or paraphrase shares no unit
            # with what it restates, and the judge compares by meaning too (#40).
            chosen = set(self.records)
        else:
            chosen = set(self.squashed.get(squash(text), ()))
            chosen.update(self.best(units_for(text), limit))
        found = [self.records[i] for i in chosen]
        found.sort(key=lambda r: (r.updated_at, r.id), reverse=True)
        return found

    def best(self, query: frozenset[str], limit: int) -> list[str]:
        """The `limit` records with the highest idf-weighted sum of units shared with the
        query (ties: the later filed first). Exact; numpy when many postings are scored,
        plain Python otherwise (a short-lived process need not import numpy)."""
        n = len(self.records)
        known = sorted((self.df[u], u) for u in query if u in self.df)
        weighted = [(u, math.log(1 + (n - df + 0.5) / (df + 0.5))) for df, u in known]
        if not weighted:
            return []
        scored = sum(len(self.postings[u]) for u, _ in weighted)
        if scored > NUMPY_FROM or (scored > NUMPY_LOADED_FROM and "numpy" in sys.modules):
            chosen = self._best_numpy(weighted, limit)
        else:
            chosen = self._best_python(weighted, limit)
        return [self.slots[slot] for slot in chosen]  # type: ignore[misc]

    def _best_python(self, weighted: list[tuple[str, float]], limit: int) -> list[int]:
        scores: defaultdict[int, float] = defaultdict(float)
        for unit, weight in weighted:
            for slot in self.postings[unit]:
                scores[slot] += weight
        live = [(score, slot) for slot, score in scores.items() if self.slots[slot] is not None]
        return [slot for _score, slot in heapq.nlargest(limit, live)]

    def _best_numpy(self, weighted: list[tuple[str, float]], limit: int) -> list[int]:
        import numpy as np  # here: a short-lived process with small scopes never needs it

        scores = np.zeros(len(self.slots))
        for unit, weight in weighted:
            # A view of the posting list (no copy); it is released before the list grows.
            scores[np.frombuffer(self.postings[unit], dtype=np.int64)] += weight
        if self.dead:
            scores[np.frombuffer(self.dead, dtype=np.int64)] = 0
        hits = np.flatnonzero(scores)
        if len(hits) > limit:
            values = scores[hits]
            # A sort, not np.partition: scores are sums of a few weights, so most are tied,
            # and introselect over many equal values was slower than sorting (#13).
            cut = np.sort(values)[len(values) - limit]
            above, tied = hits[values > cut], hits[values == cut]
            hits = np.concatenate((above, tied[::-1][: limit - len(above)]))
        order = sorted(zip(scores[hits].tolist(), hits.tolist(), strict=True), reverse=True)
        return [slot for _score, slot in order]


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

    def held(self, tx: WriteTx, scope: Scope, ids: Sequence[str]) -> dict[str, MemoryRecord]:
        """The records of `scope` among these ids, as the index holds them (related statuses)."""
        with self._lock:
            records = self._scope(tx, scope).records
            return {i: records[i] for i in ids if i in records}

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
            self._reload(tx, [i for i in fresh if i not in have])

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
            self._reload(tx, ids | set(previous))
        self._revision = revision

    def _reload(self, tx: WriteTx, ids: Iterable[str]) -> None:
        wanted = [i for i in ids if i != EVERYTHING]
        if not wanted or not self._scopes:
            return  # without touching `tx.conn`, which would send the queued writes
        fresh = {r.id: r for r in memories.load(tx.conn, tx.codec, wanted)}
        for memory_id in wanted:
            record = fresh.get(memory_id)
            if record is None:
                self._drop(memory_id)
            else:
                self._put(record)

    def _put(self, record: MemoryRecord) -> None:
        """File a record in its scope's index (or drop it: another status, another scope)."""
        index = self._scopes.get(record.scope)
        if index is not None and index.records.get(record.id) == record:
            # Filed exactly so already (the next transaction re-reads what this one wrote):
            # filing it again would only leave a dead slot behind, and a batch's records
            # were then half the slots of a big scope's postings (#13).
            return
        self._drop(record.id)
        if index is not None and record.status in RELATED_STATUSES:
            index.put(record)
            self._where[record.id] = record.scope

    def _drop(self, memory_id: str) -> None:
        scope = self._where.pop(memory_id, None)
        index = self._scopes.get(scope) if scope is not None else None
        if index is not None:
            index.drop(memory_id)
