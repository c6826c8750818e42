"""Detector plumbing: the detector protocol, regex rules with their priority, value spans.

Every detector states how specific each of its detector names is (``priorities``); when
findings overlap, the registry keeps the label of the most specific one. The priority sits on
the rule itself so a new rule cannot be added without deciding where it ranks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Protocol

from core.governance.sensitivity.finding import Finding, FindingType
from core.governance.sensitivity.heuristics import TRAILING_PUNCT
from core.patterns import LazyPattern, lazy

Validator = Callable[[re.Match[str]], bool]

# Higher wins when spans overlap: specific formats beat context heuristics.
DEFAULT_PRIORITY = 50


class Detector(Protocol):
    """Anything that finds sensitive spans in a text and ranks the names it reports."""

    @property
    def priorities(self) -> Mapping[str, int]:
        """Priority of every detector name this detector can put on a finding."""
        ...

    def __call__(self, text: str) -> Iterator[Finding]:
        """Yield findings in any order; the registry merges overlaps."""
        ...


@dataclass(frozen=True)
class FunctionDetector:
    """A detector written as a plain generator function (PEM blocks, IBANs)."""

    name: str
    priority: int
    find: Callable[[str], Iterator[Finding]]

    @property
    def priorities(self) -> Mapping[str, int]:
        """The one name this function reports."""
        return {self.name: self.priority}

    def __call__(self, text: str) -> Iterator[Finding]:
        """Delegate to the wrapped function."""
        return self.find(text)


_VALUE_GROUPS = ("v", "dq", "sq", "cq", "bare")


def _trailing_junk(value: str) -> bool:
    """Sentence punctuation after a value is not part of it, unless it closes a bracket."""
    last = value[-1]
    if last in ")]}":
        return value.count("([{"[")]}".index(last)]) < value.count(last)
    return last in TRAILING_PUNCT + "\"'`"


def match_span(m: re.Match[str]) -> tuple[int, int]:
    """Pick the span of whichever value group matched, trimmed of trailing punctuation."""
    names = m.re.groupindex
    for name in _VALUE_GROUPS:
        if name in names and m.group(name) is not None:
            start, end = m.span(name)
            while end > start and _trailing_junk(m.string[start:end]):
                end -= 1
            return start, end
    return m.span()


def match_value(m: re.Match[str]) -> str:
    """Return the matched value text (validators need it; findings never keep it)."""
    start, end = match_span(m)
    return m.string[start:end]


@dataclass(frozen=True)
class RegexRule:
    """One regex detector; the validator rejects near misses without consuming the text."""

    detector: str
    type: FindingType
    pattern: LazyPattern
    validate: Validator | None = None
    hint: LazyPattern | None = None  # cheap pre-check; skips texts that cannot match
    priority: int = DEFAULT_PRIORITY

    @property
    def priorities(self) -> Mapping[str, int]:
        """The rule's one detector name and its rank."""
        return {self.detector: self.priority}

    def __call__(self, text: str) -> Iterator[Finding]:
        """Yield validated findings; retry one character later after a rejected match."""
        if self.hint is not None and not self.hint.search(text):
            return
        pos = 0
        while pos <= len(text):
            m = self.pattern.search(text, pos)
            if m is None:
                return
            if self.validate is None or self.validate(m):
                start, end = match_span(m)
                if start < end:
                    yield Finding(self.type, start, end, self.detector)
                pos = max(m.end(), m.start() + 1)
            else:
                pos = m.start() + 1


def regex_rule(
    detector: str,
    kind: FindingType,
    pattern: str,
    validate: Validator | None = None,
    hint: str | None = None,
    priority: int = DEFAULT_PRIORITY,
) -> RegexRule:
    """Compile a regex rule; keeps the detector tables readable."""
    return RegexRule(
        detector,
        kind,
        lazy(pattern),
        validate,
        lazy(hint) if hint else None,
        priority,
    )


# A value after a key or phrase: quoted in one of three styles, or bare up to a delimiter.
# The group names are the ones match_span looks for.
QUOTED_VALUE = (
    r"(?:\"(?P<dq>[^\"\n]{1,200})\"|'(?P<sq>[^'\n]{1,200})'|“(?P<cq>[^”\n]{1,200})”"
    r"|(?P<bare>[^\s\"'<>,;`\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]{1,200}))"
)
