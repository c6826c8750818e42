"""A BM25 keyword index over memory content (English words, CJK bigrams), packed in memory.

Documents live in numbered slots; terms get numbers too. Per slot the index keeps its term
numbers followed by their counts, per term the slots that hold it: uint32 lists, not a
Python dict of strings per memory. Read from `keyword_file`, all lists sit in two packed
buffers and only the lists changed afterwards become separate arrays (`_Lists`), so a
100k-memory index opens in a fraction of a second and stays a few tens of MB.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from core.retrieval.terms import search_terms

K1 = 1.2
B = 0.75


def _u32() -> array[int]:
    return array("I")


class _Lists:
    """Numbered uint32 lists: a packed base (from a file) plus the lists changed since.

    Reading a base list is a zero-copy slice of one buffer; the first change copies that
    one list into its own array (copy on write).
    """

    def __init__(self, data: array[int] | None = None, offsets: array[int] | None = None) -> None:
        self._data = memoryview(data if data is not None else _u32())
        self._offsets = offsets if offsets is not None else array("I", [0])
        self._base = len(self._offsets) - 1
        self._changed: dict[int, array[int] | None] = {}
        self._count = self._base

    def __len__(self) -> int:
        return self._count

    def get(self, i: int) -> Sequence[int] | None:
        """List `i` (None: an empty slot)."""
        if i in self._changed:
            return self._changed[i]
        if i < self._base:
            return self._data[self._offsets[i] : self._offsets[i + 1]]
        return None

    def mutable(self, i: int) -> array[int]:
        """List `i` as an array that may be changed in place."""
        found = self._changed.get(i)
        if found is None:
            found = array("I", self.get(i) or ())
            self._changed[i] = found
        return found

    def set(self, i: int, value: array[int] | None) -> None:
        """Replace list `i`."""
        self._changed[i] = value

    def append(self, value: array[int] | None) -> int:
        """Add a list; return its number."""
        self._changed[self._count] = value
        self._count += 1
        return self._count - 1


class KeywordIndex:
    """BM25 over documents keyed by memory id; supports incremental add and remove."""

    def __init__(self) -> None:
        self._slot: dict[str, int] = {}
        self._ids: list[str | None] = []
        self._free_slots: list[int] = []
        self._lengths = _u32()
        # Per slot: the document's term numbers, then each one's count (same order).
        self._forward = _Lists()
        # Per document: the stamp it was indexed at (the memory's revision), see `stale`.
        self._stamps = _u32()
        self._term_id: dict[str, int] = {}
        self._terms: list[str | None] = []
        self._free_terms: list[int] = []
        self._postings = _Lists()
        self._total_length = 0

    def __len__(self) -> int:
        return len(self._slot)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._slot

    def ids(self) -> Iterator[str]:
        """Ids of the indexed documents."""
        return iter(list(self._slot))

    def stamp(self, doc_id: str) -> int | None:
        """The stamp a document was indexed with (None: not indexed)."""
        slot = self._slot.get(doc_id)
        return None if slot is None else self._stamps[slot]

    def stamps(self) -> dict[str, int]:
        """Every indexed document's stamp."""
        stamps = self._stamps
        return {doc_id: stamps[slot] for doc_id, slot in self._slot.items()}

    def terms_of(self, doc_id: str) -> list[str]:
        """The distinct terms indexed for a document (tests and audits)."""
        slot = self._slot.get(doc_id)
        if slot is None:
            return []
        forward = self._forward.get(slot) or ()
        half = len(forward) // 2
        return [t for t in (self._terms[i] for i in forward[:half]) if t is not None]

    def knows(self, word: str) -> bool:
        """True when some indexed document holds this word's terms (as the index forms them:
        "pipelines" is held as its stem)."""
        terms = search_terms(word)
        return bool(terms) and all(t in self._term_id for t in terms)

    def add(self, doc_id: str, text: str, stamp: int = 0) -> None:
        """Index (or re-index) one document."""
        self.remove(doc_id)
        counts = Counter(search_terms(text))
        slot = self._new_slot(doc_id, stamp)
        term_ids = [self._term_number(term) for term in counts]
        for tid in term_ids:
            self._postings.mutable(tid).append(slot)
        forward = array("I", term_ids)
        forward.extend(counts.values())
        self._forward.set(slot, forward)
        length = sum(counts.values())
        self._lengths[slot] = length
        self._total_length += length

    def remove(self, doc_id: str) -> bool:
        """Drop a document and its postings; True when it was there."""
        slot = self._slot.pop(doc_id, None)
        if slot is None:
            return False
        forward = self._forward.get(slot) or ()
        for tid in forward[: len(forward) // 2]:
            posting = self._postings.mutable(tid)
            posting.pop(posting.index(slot))
            if not posting:
                self._drop_term(tid)
        self._total_length -= self._lengths[slot]
        self._lengths[slot] = 0
        self._stamps[slot] = 0
        self._forward.set(slot, None)
        self._ids[slot] = None
        self._free_slots.append(slot)
        return True

    def search(self, query: str, allowed: Iterable[str] | None = None) -> dict[str, float]:
        """BM25 scores of documents that share a term with the query (optionally restricted)."""
        q_terms = set(search_terms(query))
        if not q_terms or not self._slot:
            return {}
        allow = set(allowed) if allowed is not None else None
        n = len(self._slot)
        avg = self._total_length / n if n else 1.0
        idf = {self._term_id[t]: self._idf(t, n) for t in q_terms if t in self._term_id}
        if not idf:
            return {}
        postings = {t: self._postings.get(t) or () for t in idf}
        if allow is not None and len(allow) < sum(len(p) for p in postings.values()):
            # Small scopes in a big store: score the few allowed documents directly.
            slots: Iterable[int] = (self._slot[d] for d in allow if d in self._slot)
        else:
            slots = {s for p in postings.values() for s in p}
        scores: dict[str, float] = {}
        for slot in slots:
            doc_id = self._ids[slot]
            if doc_id is None or (allow is not None and doc_id not in allow):
                continue
            total = self._score(slot, idf, avg)
            if total > 0:
                scores[doc_id] = total
        return scores

    def ideal(self, query: str) -> float:
        """The BM25 score of a document matching every query term once at average length.

        Terms the corpus does not know count with the highest possible idf: they are what the
        request says that no memory does. `best score / ideal` is then how much of the
        request the best keyword hit covers (see `ranking.fuse`).
        """
        n = len(self._slot)
        if n == 0:
            return 0.0
        unknown = math.log(1 + (n + 0.5) / 0.5)
        return sum(
            self._idf(t, n) if t in self._term_id else unknown for t in set(search_terms(query))
        )

    def _score(self, slot: int, idf: dict[int, float], avg: float) -> float:
        stored = self._forward.get(slot)
        forward = list(stored) if stored is not None else []
        half = len(forward) // 2
        length = self._lengths[slot]
        total = 0.0
        for tid, weight in idf.items():
            try:
                tf = forward[half + forward.index(tid, 0, half)]
            except ValueError:
                continue
            total += weight * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / avg))
        return total

    def _idf(self, term: str, n: int) -> float:
        df = len(self._postings.get(self._term_id[term]) or ())
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    def _new_slot(self, doc_id: str, stamp: int) -> int:
        if self._free_slots:
            slot = self._free_slots.pop()
            self._ids[slot] = doc_id
            self._stamps[slot] = stamp
        else:
            slot = len(self._ids)
            self._ids.append(doc_id)
            self._forward.append(None)
            self._lengths.append(0)
            self._stamps.append(stamp)
        self._slot[doc_id] = slot
        return slot

    def _term_number(self, term: str) -> int:
        tid = self._term_id.get(term)
        if tid is not None:
            return tid
        if self._free_terms:
            tid = self._free_terms.pop()
            self._terms[tid] = term
        else:
            tid = len(self._terms)
            self._terms.append(term)
            self._postings.append(_u32())
        self._term_id[term] = tid
        return tid

    def _drop_term(self, tid: int) -> None:
        # A term no document holds any more leaves the dictionary (and so the sealed file).
        term = self._terms[tid]
        if term is not None:
            del self._term_id[term]
        self._terms[tid] = None
        self._free_terms.append(tid)

    # --- packed form (for `keyword_file`) ----------------------------------------

    def packed(self) -> Packed:
        """The live documents and terms, renumbered densely: what the sealed file holds."""
        live = [(d, s) for s, d in enumerate(self._ids) if d is not None]
        term_order = [t for t, term in enumerate(self._terms) if term is not None]
        renumber = {old: new for new, old in enumerate(term_order)}
        offsets, data = array("I", [0]), _u32()
        for _, slot in live:
            forward = self._forward.get(slot) or ()
            if self._free_terms:
                half = len(forward) // 2
                data.extend(renumber[t] for t in forward[:half])
                data.extend(forward[half:])
            else:  # no term was dropped: the numbers are already dense
                data.extend(forward)
            offsets.append(len(data))
        return Packed(
            ids=[d for d, _ in live],
            stamps=array("I", (self._stamps[s] for _, s in live)),
            terms=[self._terms[t] or "" for t in term_order],
            offsets=offsets,
            forward=data,
        )

    @classmethod
    def from_packed(cls, packed: Packed) -> KeywordIndex:
        """Rebuild the in-memory index from its packed form (no tokenising).

        The postings are inverted from the forward lists with numpy: a Python loop over
        every (document, term) pair would cost most of the open time at 100k memories.
        """
        # numpy is imported only when a file is read: the CLI's start-up stays lean.
        import numpy as np

        index = cls()
        n, terms = len(packed.ids), len(packed.terms)
        offsets = np.frombuffer(packed.offsets, dtype=np.uint32).astype(np.int64)
        data = np.frombuffer(packed.forward, dtype=np.uint32)
        sizes = np.diff(offsets)
        doc_of = np.repeat(np.arange(n, dtype=np.uint32), sizes)
        position = np.arange(len(data), dtype=np.int64) - np.repeat(offsets[:-1], sizes)
        is_term = position < np.repeat(sizes // 2, sizes)
        tids, slots = data[is_term], doc_of[is_term]
        if len(tids) and int(tids.max()) >= terms:
            raise ValueError("term number out of range")
        lengths = np.bincount(doc_of[~is_term], weights=data[~is_term], minlength=n)
        by_term = array("I", slots[np.argsort(tids, kind="stable")].astype(np.uint32).tobytes())
        bounds = np.concatenate(([0], np.cumsum(np.bincount(tids, minlength=terms))))
        index._postings = _Lists(by_term, array("I", bounds.astype(np.uint32).tobytes()))
        index._forward = _Lists(packed.forward, packed.offsets)
        index._lengths = array("I", lengths.astype(np.uint32).tobytes())
        index._total_length = int(lengths.sum())
        index._terms = list[str | None](packed.terms)
        index._term_id = {t: i for i, t in enumerate(packed.terms)}
        index._ids = list[str | None](packed.ids)
        index._slot = {d: i for i, d in enumerate(packed.ids)}
        index._stamps = array("I", packed.stamps)
        return index


class Packed:
    """The index as flat arrays: ids, stamps, terms, and per document its term numbers
    followed by their counts (`forward[offsets[i]:offsets[i + 1]]`)."""

    __slots__ = ("forward", "ids", "offsets", "stamps", "terms")

    def __init__(
        self,
        ids: list[str],
        stamps: array[int],
        terms: list[str],
        offsets: array[int],
        forward: array[int],
    ) -> None:
        self.ids = ids
        self.stamps = stamps
        self.terms = terms
        self.offsets = offsets
        self.forward = forward
