"""Conversation context for retrieval (#17): a chosen turn brings its neighbours along.

"Yes, last Tuesday!" is the evidence for "when did Mei go to the museum?", but it shares
no word and little meaning with the question: the turn before it does. So a memory that
ranks well passes a share of its relevance to the memories said just before and after it
in the same conversation (`core/storage/neighbours.py`), and they compete for the budget
like any other hit. Neighbours must be visible to the request: the share goes only to ids
in the allowed set (R13), and the post-retrieval check re-verifies every hit.
"""

from __future__ import annotations

import heapq
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING

from core.storage import neighbours

if TYPE_CHECKING:
    from core.model.records import MemoryRecord
    from core.retrieval.catalog import RecordCache
    from core.storage.store import Store

# Measured on benchmarks/conversation_eval.py (docs/retrieval.md).
NEIGHBOUR_SHARE = 0.35
NEIGHBOUR_SEEDS = 3
CACHE_LIMIT = 50_000
# Injection only: in a search, neighbours push real hits down the first page (R@10 fell).
IN_SEARCH = False


class Neighbours:
    """Neighbour look-ups with a cache (a memory's place in its conversation never moves)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._known: dict[str, tuple[str, ...]] = {}

    def of(self, records: list[MemoryRecord]) -> dict[str, tuple[str, ...]]:
        """Neighbours of these memories (cached once both sides are known)."""
        with self._lock:
            out = {r.id: self._known[r.id] for r in records if r.id in self._known}
        missing = {
            r.id: r.source_event_ids[0] for r in records if r.id not in out and r.source_event_ids
        }
        if not missing:
            return out
        with self._store.read("neighbour turns") as conn:
            found = neighbours.adjacent(conn, missing)
        with self._lock:
            if len(self._known) > CACHE_LIMIT:
                self._known.clear()
            for mid, pair in found.items():
                # A memory with no later neighbour may get one when the conversation goes on.
                if len(pair) == 2:
                    self._known[mid] = pair
        return {**out, **found}

    def forget(self, memory_id: str) -> None:
        """Drop a deleted memory from the cache (its neighbours' entries are filtered at use)."""
        with self._lock:
            self._known.pop(memory_id, None)


def spread(
    relevance: Mapping[str, float],
    records: RecordCache,
    allowed: set[str],
    finder: Neighbours,
) -> dict[str, float]:
    """Give the neighbours of the best hits a share of their relevance (never lowering any)."""
    seeds = heapq.nlargest(NEIGHBOUR_SEEDS, relevance.items(), key=lambda kv: (kv[1], kv[0]))
    wanted = [mid for mid, value in seeds if value > 0]
    records.ensure(wanted)  # one batch read for the seeds, not one read each
    # `get`, not `[]`: a lazily read record can turn out damaged (then it is not a seed).
    found = (records.get(mid) for mid in wanted)
    chosen = [r for r in found if r is not None]
    if not chosen:
        return dict(relevance)
    out = dict(relevance)
    for mid, around in finder.of(chosen).items():
        share = NEIGHBOUR_SHARE * relevance[mid]
        for other in around:
            if other in allowed and other in records and out.get(other, 0.0) < share:
                out[other] = share
    return out
