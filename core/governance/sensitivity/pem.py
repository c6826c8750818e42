"""Secrets: PEM private key blocks, including truncated ones."""

from __future__ import annotations

import re
from collections.abc import Iterator

from core.governance.sensitivity.finding import Finding, FindingType
from core.governance.sensitivity.heuristics import is_placeholder
from core.governance.sensitivity.rules import FunctionDetector
from core.patterns import lazy

_PEM_BEGIN = lazy(r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----")
_PEM_LINE_END = r"(?=[ \t]*(?:\r?\n|\\[nr]|$|[\-.…\"']))"
_PEM_BODY = lazy(
    r"(?:(?:[ \t]*(?:\r?\n|\\[nr]))*[ \t]*"
    r"(?:[A-Za-z0-9+/=]{4,}|[A-Z][A-Za-z\-]+:[ ][^\n\\]*)" + _PEM_LINE_END + ")*"
)
_PEM_END = lazy(r"(?:\s|\\[nr])*-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----")
_PEM_HEADER_LINE = lazy(r"[A-Z][A-Za-z\-]+:[ ][^\n\\]*")  # e.g. "Version: GnuPG v2"
_PEM_MIN_BODY = 16


def _pem_private_keys(text: str) -> Iterator[Finding]:
    """Find private key blocks, including ones cut off by truncation or log line limits.

    A header alone (``-----BEGIN RSA PRIVATE KEY-----`` quoted in a how-to) is not a secret, so
    at least a little base64 key material must follow it.
    """
    for begin in _PEM_BEGIN.finditer(text):
        body = _PEM_BODY.match(text, begin.end())
        body_end = body.end() if body else begin.end()
        lines = _PEM_HEADER_LINE.sub("", text[begin.end() : body_end])
        material = re.sub(r"\\[nr]|[^A-Za-z0-9+/=]", "", lines)
        if len(material) < _PEM_MIN_BODY or is_placeholder(material):
            continue
        end = _PEM_END.match(text, body_end)
        stop = end.end() if end else len(text[:body_end].rstrip())
        yield Finding(FindingType.PRIVATE_KEY, begin.start(), stop, "pem_private_key")


# A complete key block is unambiguous; it outranks every other label on an overlapping span.
DETECTOR = FunctionDetector("pem_private_key", 100, _pem_private_keys)
