"""Redaction: replace every sensitive span by a marker that keeps its type."""

from __future__ import annotations

from collections.abc import Sequence

from core.governance.sensitivity.finding import Finding
from core.governance.sensitivity.registry import merge, scan


def redact(text: str, findings: Sequence[Finding] | None = None) -> str:
    """Replace each sensitive span by ``[REDACTED:<type>]``.

    Keeping the type in the marker lets a redacted memory stay useful ("uses an API key from
    the vault") while the value itself is gone.

    Args:
        text: The text the findings refer to.
        findings: Findings from an earlier :func:`scan` of the same text; scanned if omitted.

    Returns:
        The text with every finding's span replaced.
    """
    if findings is None:
        spans = scan(text)
    else:
        spans = merge(f for f in findings if 0 <= f.start < f.end <= len(text))
    parts: list[str] = []
    pos = 0
    for f in spans:
        parts.append(text[pos : f.start])
        parts.append(f"[REDACTED:{f.type.value}]")
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts)
