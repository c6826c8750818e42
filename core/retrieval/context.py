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
from collections.abc import Callable, Container, Mapping
from typing import TYPE_CHECKING, Any

from core.retrieval import windows
from core.storage import neighbours

if TYPE_CHECKING:
    from core.model.records import MemoryRecord
    from core.retrieval.record_cache import RecordCache
    from core.retrieval.vectors import VectorLayer
    from core.storage.store import Store

# Measured on benchmarks/conversation_eval.py (docs/retrieval.md).
NEIGHBOUR_SHARE = 0.35
NEIGHBOUR_SEEDS = 3
CACHE_LIMIT = 50_000
# Injection only: in a search, neighbours push real hits down the first page (R@10 fell).
IN_SEARCH = False
# Keyword evidence of the turns around a memory, in search and injection (`widen`).
KEYWORD_CONTEXT_SHARE = 0.5
KEYWORD_CONTEXT_SEEDS = 100
VECTOR_CONTEXT_SHARE = 0.5


class Neighbours:
    """Neighbour look-ups with a cache: a memory's place in its conversation never moves, so
    a memory with both neighbours is cached for good; one with fewer (the conversation may
    go on) until the store's revision changes."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._known: dict[str, tuple[str, ...]] = {}
        self._partial: dict[str, tuple[str, ...]] = {}
        self._partial_revision = -1

    def of(self, records: list[MemoryRecord], revision: int = -1) -> dict[str, tuple[str, ...]]:
        """Neighbours of these memories at store `revision` (-1: do not cache partial ones)."""
        with self._lock:
            if revision != self._partial_revision:
                self._partial.clear()
                self._partial_revision = revision
            out: dict[str, tuple[str, ...]] = {}
            for r in records:
                pair = self._known.get(r.id) or self._partial.get(r.id)
                if pair is not None:
                    out[r.id] = pair
        missing = {
            r.id: r.source_event_ids[0] for r in records if r.id not in out and r.source_event_ids
        }
        if not missing:
            return out
        with self._store.read("neighbour turns") as conn:
            found = neighbours.adjacent(conn, missing)
        with self._lock:
            if len(self._known) + len(self._partial) > CACHE_LIMIT:
                self._known.clear()
                self._partial.clear()
            for mid in missing:
                pair = found.get(mid, ())
                if len(pair) == 2 and all(pair):
                    self._known[mid] = pair
                elif revision >= 0 and revision == self._partial_revision:
                    self._partial[mid] = pair
        return {**out, **found}

    def forget(self, memory_id: str) -> None:
        """Drop a deleted memory from the cache (its neighbours' entries are filtered at use)."""
        with self._lock:
            self._known.pop(memory_id, None)
            self._partial.pop(memory_id, None)


def is_recorded_turn(record: MemoryRecord) -> bool:
    """True for a turn of a conversation recorded after it was said (imported history, a
    transcript): its meaning may live in the turns around it. A memory written when it was
    said (a `remember`, a note extracted live, an exported list of facts) stands on its own;
    its neighbours are merely the notes written before and after it."""
    return record.own_time() is not None


def widen(
    keyword: Mapping[str, float],
    records: RecordCache,
    allowed: set[str],
    finder: Neighbours,
    revision: int = -1,
) -> dict[str, float]:
    """Add to each recorded turn's BM25 score a share of its neighbouring turns' scores.

    A question's words often sit in the turn before its answer ("What did you paint?" /
    "A sunset by the lake"), so a turn is matched with the words of the conversation
    around it, as if its neighbours were part of it. Scores are summed at query time,
    nothing is indexed under another memory's words: a neighbour the request may not see
    has no score here (the keyword search ran over `allowed` only), and a deleted memory's
    words leave with it. The best `KEYWORD_CONTEXT_SEEDS` hits pass their share on; only
    between recorded turns (`is_recorded_turn`), so a `remember`ed note never lends its
    words to the unrelated note written after it.
    """
    seeds = heapq.nlargest(KEYWORD_CONTEXT_SEEDS, keyword.items(), key=lambda kv: (kv[1], kv[0]))
    wanted = [mid for mid, value in seeds if value > 0]
    out = dict(keyword)
    for mid, around in _turn_neighbours(wanted, records, allowed, finder, revision).items():
        for other in filter(None, around):
            out[other] = out.get(other, 0.0) + KEYWORD_CONTEXT_SHARE * keyword[mid]
    return out


def widen_vectors(
    vector: Mapping[str, float],
    query_vector: Any,
    layer: VectorLayer,
    records: RecordCache,
    allowed: set[str],
    finder: Neighbours,
    revision: int = -1,
) -> dict[str, float]:
    """Mix each recorded turn's cosine with that of its conversation window (#17).

    The window is the turn with its visible neighbours (the turns said just before and
    after), embedded as one text (`core/retrieval/windows.py`): `VECTOR_CONTEXT_SHARE` of
    the score is the query's cosine to it. Until a window is embedded (no read waits for
    it: it is queued), the mean of the three turns' stored vectors stands in.
    Only vector hits are rescored, and a window is keyed by every turn it holds, so one
    naming a memory the request may not see is never used.
    """
    around = _turn_neighbours(list(vector), records, allowed, finder, revision)
    keys, turns = _windows(around, records.get)
    # A window's text is built only when it is missing (queued), not for every hit.
    found = layer.window_vectors(list(keys.values()), lambda key: windows.text(*turns[key]))
    vectors = layer.index.get_vectors({*around, *(o for pair in around.values() for o in pair)})
    out = dict(vector)
    for mid, pair in around.items():
        window = found.get(keys.get(mid, ""))
        if window is None:
            own = vectors.get(mid)
            if own is None:
                continue
            window = own + sum((vectors[o] for o in pair if o in vectors), 0 * own)
        norm = float((window * window).sum()) ** 0.5
        if norm > 0:
            mixed = float((query_vector * window).sum()) / norm
            out[mid] = (1 - VECTOR_CONTEXT_SHARE) * vector[mid] + VECTOR_CONTEXT_SHARE * mixed
    return out


def windows_of(
    changed: list[MemoryRecord], records: RecordCache, finder: Neighbours
) -> dict[str, str]:
    """The windows (key -> text) that embedding these memories makes due: each recorded
    turn's own, and its neighbours' (a new turn is their new neighbour), over active
    memories, as a request that sees the whole conversation builds them (#17)."""
    ids = [r.id for r in changed if r.id in records]
    around = _turn_neighbours(ids, records, records, finder, -1)
    near = [o for pair in around.values() for o in pair if o and o not in around]
    around.update(_turn_neighbours(near, records, records, finder, -1))
    # The records just embedded, not the cache's copy: it may still hold the words before an
    # edit, and a window of those would come back under the old revision.
    fresh = {r.id: r for r in changed}
    # A turn with nobody after it yet may get a neighbour as the conversation goes on: its
    # window waits for that (or for a query), so an import embeds each window once.
    complete = {mid: pair for mid, pair in around.items() if pair[1]}
    _, turns = _windows(complete, lambda m: fresh.get(m) or records.get(m))
    return {key: windows.text(*three) for key, three in turns.items()}


Window = tuple["MemoryRecord | None", "MemoryRecord", "MemoryRecord | None"]


def _windows(
    around: Mapping[str, tuple[str, str]], record: Callable[[str], MemoryRecord | None]
) -> tuple[dict[str, str], dict[str, Window]]:
    """For each turn with a neighbour: its window's key, and each key's turns in order."""
    keys: dict[str, str] = {}
    turns: dict[str, Window] = {}
    for mid, (before, after) in around.items():
        turn = record(mid)
        if turn is not None and (before or after):
            three = (record(before) if before else None, turn, record(after) if after else None)
            keys[mid] = windows.key(*three)
            turns[keys[mid]] = three
    return keys, turns


def _turn_neighbours(
    ids: list[str],
    records: RecordCache,
    allowed: Container[str],
    finder: Neighbours,
    revision: int,
) -> dict[str, tuple[str, str]]:
    """For each recorded turn among `ids`, its neighbours `(before, after)` that are
    recorded turns the request may see, "" for a side with none (two batch reads of
    records at most)."""
    records.ensure(ids)
    turns = [r for r in map(records.get, ids) if r is not None and is_recorded_turn(r)]
    if not turns:
        return {}
    around = finder.of(turns, revision)
    near = {o for pair in around.values() for o in pair if o in allowed}
    records.ensure(near)
    near = {o for o in near if (rec := records.get(o)) is not None and is_recorded_turn(rec)}
    return {
        mid: (pair[0] if pair[0] in near else "", pair[1] if pair[1] in near else "")
        for mid, pair in around.items()
        if len(pair) == 2
    }


def spread(
    relevance: Mapping[str, float],
    records: RecordCache,
    allowed: set[str],
    finder: Neighbours,
    revision: int = -1,
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
    for mid, around in finder.of(chosen, revision).items():
        share = NEIGHBOUR_SHARE * relevance[mid]
        for other in around:
            if other in allowed and other in records and out.get(other, 0.0) < share:
                out[other] = share
    return out
