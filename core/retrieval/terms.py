"""The terms of the keyword index: search tokens with English words reduced to their stem.

`tokens()` folds plurals only, so "researching" never met "research" and "agencies" never
met "agency". On the conversation set (#17) the Snowball English stemmer (Porter2, the
`snowballstemmer` package) took BM25 alone from R@10 0.590 to 0.625 (docs/retrieval.md).
Only pure ASCII words of four letters or more are stemmed; identifiers (ports, versions,
paths), CJK bigrams and other scripts keep `tokens()`'s own form. The index and every query
must use the same terms: the keyword file's format version names this analyzer.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

from core.governance.text import stem, tokens

_lock = threading.Lock()  # a Snowball stemmer object keeps its state between calls
_stemmer: Any = None


@functools.lru_cache(maxsize=65536)
def english_stem(word: str) -> str:
    """A word's Snowball English stem; other words as `core.governance.text.stem` folds them."""
    if len(word) < 4 or not word.isascii() or not word.isalpha():
        return stem(word)
    global _stemmer
    with _lock:
        if _stemmer is None:
            # Imported on first use: the package loads every language (~20 ms), which a CLI
            # call that never searches should not pay.
            from snowballstemmer.english_stemmer import EnglishStemmer

            _stemmer = EnglishStemmer()
        return str(_stemmer.stemWord(word))


def search_terms(text: str) -> list[str]:
    """The keyword index's terms of a text (a memory or a query)."""
    return tokens(text, english_stem)
