"""Text normalisation, tokens and keyed fingerprints shared by policy, dedupe and retrieval."""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
import unicodedata
from collections.abc import Callable

from core.patterns import lazy

_WORD = lazy(r"[a-z0-9][a-z0-9_.+#/-]*[a-z0-9+#]|[a-z0-9]", re.IGNORECASE)
_CJK = lazy(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_PUNCT = lazy(r"[\W_]+", re.UNICODE)

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "then",
        "so",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "with",
        "by",
        "from",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "he",
        "she",
        "they",
        "them",
        "their",
        "his",
        "her",
        "do",
        "does",
        "did",
        "not",
        "no",
        "yes",
        "please",
        "can",
        "could",
        "would",
        "should",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "have",
        "has",
        "had",
        "just",
        "also",
        "very",
        "really",
        "about",
        "into",
        "over",
        "under",
        "than",
        "too",
        "up",
        "down",
        "out",
        "more",
        "most",
        "some",
        "any",
        "all",
        "what",
        "which",
        "who",
        "whom",
        "when",
        "where",
        "why",
        "how",
        "remember",
        "note",
        "that's",
        "it's",
        "i'm",
        "don't",
    ]
)


def normalize(text: str) -> str:
    """NFKC, case-folded, whitespace collapsed: how two texts are compared."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(folded.split())


@functools.lru_cache(maxsize=16384)
def squash(text: str) -> str:
    """Normalised text without punctuation or spaces: the duplicate key (cached: the policy
    squashes each neighbour's text for every candidate it is compared with).

    Symbols stay: they carry values ("C#" / "C++" / "C", "5 €" / "5 $", "50%", 🟢 / 🔴); once
    they were dropped with the punctuation and such a pair merged as the same text."""
    return _PUNCT.sub(_symbols_of, normalize(text))


@functools.lru_cache(maxsize=16384)
def words_of(text: str) -> str:
    """Normalised text without punctuation, spaces or symbols: its words alone."""
    return _PUNCT.sub("", normalize(text))


def _symbols_of(found: re.Match[str]) -> str:
    kept = (c for c in found.group() if c in _VALUE_MARKS or unicodedata.category(c)[0] == "S")
    return "".join(kept)


_VALUE_MARKS = frozenset("#%@&")


def tokens(text: str, stemmer: Callable[[str], str] | None = None) -> list[str]:
    """Search tokens: Latin words (minus stop words) and CJK character bigrams.

    Chinese has no spaces; character bigrams match well without a segmenter and keep
    single-character words reachable through unigrams for short texts. `stemmer` reduces
    each Latin word (default: `stem`, plural folding only; the keyword index passes a
    fuller English stemmer, `core.retrieval.terms`).
    """
    norm = normalize(text)
    fold = stemmer or stem
    out = [fold(w) for w in _WORD.findall(norm) if w not in STOPWORDS]
    out.extend(w.rstrip(".") for w in list(out) if w.endswith(".") and len(w) > 1)
    for run in _CJK.findall(norm):
        if len(run) == 1:
            out.append(run)
        out.extend(run[i : i + 2] for i in range(len(run) - 1))
    return out


def stem(word: str) -> str:
    """Fold simple English plurals ('hotels' -> 'hotel'); identifiers stay as they are."""
    if len(word) > 4 and word.isalpha() and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def token_set(text: str) -> frozenset[str]:
    """Distinct search tokens of a text."""
    return frozenset(tokens(text))


def fingerprint(key: bytes, text: str) -> str:
    """Keyed fingerprint of normalised content (HMAC-SHA256).

    Keyed, so the stored value cannot be used to confirm a guess about deleted content.
    """
    return hmac.new(key, squash(text).encode("utf-8"), hashlib.sha256).hexdigest()


def estimate_tokens(text: str) -> int:
    """Token estimate for budgets: ~4 Latin characters per token, 1 per CJK character.

    Deliberately conservative (it over-counts rather than under-counts), documented in
    docs/retrieval.md; a real tokenizer can replace it behind the same function.
    """
    cjk = sum(len(run) for run in _CJK.findall(text))
    other = len(text) - cjk
    return cjk + (other + 3) // 4
