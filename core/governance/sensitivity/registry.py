"""The registry: every detector family in scan order, and the merge that ranks overlaps.

Scan order matters only for ties (same span, same rank: the earlier detector keeps its label),
so families are listed from the most to the least specific.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping

from core.governance.sensitivity import (
    addresses,
    assignments,
    connections,
    contacts,
    identifiers,
    passwords,
    pem,
    providers,
)
from core.governance.sensitivity.finding import Finding
from core.governance.sensitivity.rules import DEFAULT_PRIORITY, Detector

DETECTORS: tuple[Detector, ...] = (
    *providers.RULES,
    pem.DETECTOR,
    *connections.RULES,
    *assignments.DETECTORS,
    *passwords.RULES,
    *contacts.RULES,
    *identifiers.RULES,
    identifiers.IBAN_DETECTOR,
    *addresses.RULES,
)


def _priorities(detectors: Iterable[Detector]) -> Mapping[str, int]:
    """Collect each detector name's rank; one name ranked two ways is a programming error."""
    table: dict[str, int] = {}
    for detector in detectors:
        for name, priority in detector.priorities.items():
            if table.setdefault(name, priority) != priority:
                raise ValueError(f"detector {name!r} is ranked both {table[name]} and {priority}")
    return table


PRIORITIES: Mapping[str, int] = _priorities(DETECTORS)


def _rank(finding: Finding) -> tuple[int, int]:
    """Order overlapping findings: detector specificity first, then span length."""
    return PRIORITIES.get(finding.detector, DEFAULT_PRIORITY), finding.end - finding.start


def merge(findings: Iterable[Finding]) -> list[Finding]:
    """Collapse overlapping spans into one finding so redaction leaves no fragments."""
    merged: list[Finding] = []
    for f in sorted(findings, key=lambda x: (x.start, -x.end)):
        if merged and f.start < merged[-1].end:
            prev = merged[-1]
            best = max(prev, f, key=_rank)
            merged[-1] = Finding(best.type, prev.start, max(prev.end, f.end), best.detector)
        else:
            merged.append(f)
    return merged


def scan(text: str) -> list[Finding]:
    """Scan text for secrets and PII.

    Args:
        text: Any candidate memory content, event text or tool output.

    Returns:
        Findings sorted by start offset with overlapping hits merged; empty when nothing
        sensitive was found. Findings carry spans only, never the matched values.
    """
    if not text:
        return []
    return list(_scan(text))


# A few texts only: a write scans the same words twice in a row (the log's copy, then the
# policy's candidate), and raw secrets should not linger in a big cache.
@functools.lru_cache(maxsize=8)
def _scan(text: str) -> tuple[Finding, ...]:
    return tuple(merge(finding for detector in DETECTORS for finding in detector(text)))
