"""An in-memory BM25 keyword index over memory content (English words, CJK bigrams)."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable

from core.governance.text import tokens

K1 = 1.2
B = 0.75


class KeywordIndex:
    """BM25 over documents keyed by memory id; supports incremental add and remove."""

    def __init__(self) -> None:
        self._docs: dict[str, Counter[str]] = {}
        self._lengths: dict[str, int] = {}
        self._postings: dict[str, set[str]] = defaultdict(set)
        self._total_length = 0

    def __len__(self) -> int:
        return len(self._docs)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._docs

    def add(self, doc_id: str, text: str) -> None:
        """Index (or re-index) one document."""
        self.remove(doc_id)
        terms = Counter(tokens(text))
        self._docs[doc_id] = terms
        length = sum(terms.values())
        self._lengths[doc_id] = length
        self._total_length += length
        for term in terms:
            self._postings[term].add(doc_id)

    def remove(self, doc_id: str) -> bool:
        """Drop a document; True when it was there."""
        terms = self._docs.pop(doc_id, None)
        if terms is None:
            return False
        self._total_length -= self._lengths.pop(doc_id)
        for term in terms:
            posting = self._postings.get(term)
            if posting is not None:
                posting.discard(doc_id)
                if not posting:
                    del self._postings[term]
        return True

    def search(self, query: str, allowed: Iterable[str] | None = None) -> dict[str, float]:
        """BM25 scores of documents that share a term with the query (optionally restricted)."""
        q_terms = set(tokens(query))
        if not q_terms or not self._docs:
            return {}
        allow = set(allowed) if allowed is not None else None
        n = len(self._docs)
        avg = self._total_length / n if n else 1.0
        idf = {t: self._idf(t, n) for t in q_terms if t in self._postings}
        if not idf:
            return {}
        if allow is not None and len(allow) < sum(len(self._postings[t]) for t in idf):
            # Small scopes in a big store: score the few allowed documents directly.
            docs: Iterable[str] = (d for d in allow if d in self._docs)
        else:
            docs = {d for t in idf for d in self._postings[t] if allow is None or d in allow}
        scores: dict[str, float] = {}
        for doc_id in docs:
            terms, length = self._docs[doc_id], self._lengths[doc_id]
            total = 0.0
            for term, weight in idf.items():
                tf = terms.get(term, 0)
                if tf:
                    total += weight * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / avg))
            if total > 0:
                scores[doc_id] = total
        return scores

    def ideal(self, query: str) -> float:
        """The BM25 score of a document matching every query term once at average length.

        Terms the corpus does not know count with the highest possible idf: they are what the
        request says that no memory does. `best score / ideal` is then how much of the
        request the best keyword hit covers (see `ranking.fuse`).
        """
        n = len(self._docs)
        if n == 0:
            return 0.0
        unknown = math.log(1 + (n + 0.5) / 0.5)
        return sum(self._idf(t, n) if t in self._postings else unknown for t in set(tokens(query)))

    def _idf(self, term: str, n: int) -> float:
        df = len(self._postings[term])
        return math.log(1 + (n - df + 0.5) / (df + 0.5))
