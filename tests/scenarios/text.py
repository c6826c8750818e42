"""Text matching of the scenario format (README 3.3).

All comparisons are case-insensitive substring checks after NFKC normalisation and case folding
of both sides, so full-width `ｐｎｐｍ` equals `pnpm`. Whitespace is not normalised.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Any

Pattern = str | list[str]


def norm(text: str) -> str:
    """NFKC + casefold: the canonical form both sides of every comparison are put in."""
    return unicodedata.normalize("NFKC", text).casefold()


def pattern_matches(text: str, pattern: Pattern) -> bool:
    """A pattern is a string, or a list of alternatives of which one must occur."""
    alternatives = [pattern] if isinstance(pattern, str) else pattern
    haystack = norm(text)
    return any(norm(alt) in haystack for alt in alternatives)


def as_patterns(value: Any) -> list[Pattern]:
    """`contains` of a matcher: a single string is a one-pattern list."""
    return [value] if isinstance(value, str) else list(value)


def all_match(text: str, patterns: Iterable[Pattern]) -> list[Pattern]:
    """The patterns that do NOT match `text` (empty when all do)."""
    return [p for p in patterns if not pattern_matches(text, p)]


def found_forbidden(texts: Iterable[str], forbidden: Iterable[str]) -> list[str]:
    """The forbidden strings that occur in any of `texts`."""
    haystacks = [norm(t) for t in texts]
    return [f for f in forbidden if any(norm(f) in h for h in haystacks)]


def short(text: str, limit: int = 160) -> str:
    """A one-line excerpt for failure messages."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
