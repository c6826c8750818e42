"""Reading JSON and strings that come from outside: bounded depth, valid Unicode, one-line errors.

Python's `json` decodes `"\\ud800"` into a lone surrogate that no UTF-8 writer (SQLite, a
file, a terminal) can encode, and raises `RecursionError` on deeply nested input. Both used
to surface as tracebacks far from where the input came in. Everything read from a user, a
file, stdin or an agent goes through `parse_json` or `check_tree` first, so a bad input is
refused at the door with the field named and nothing written.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from core.errors import InvalidInputError

MAX_JSON_DEPTH = 64
"""Deepest nesting accepted in outside JSON; real payloads stay far below it."""


def has_lone_surrogate(value: str) -> bool:
    """True when `value` cannot be encoded as UTF-8 (a lone surrogate, e.g. an undecodable byte
    kept by Python's surrogateescape, or a `\\udXXX` JSON escape)."""
    if value.isascii():
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


# Unicode's Cc category is exactly C0, DEL and C1 (fixed since Unicode 1.1): one character
# class instead of a `unicodedata.category` call per character (import hot path, #13).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def has_control(value: str) -> bool:
    """True when `value` holds a control character (Unicode category Cc)."""
    return _CONTROL.search(value) is not None


# Characters that show nothing or reorder what is shown: the bidirectional controls
# (embeddings, overrides, isolates, marks), zero-width characters, word joiner and the
# invisible operators, BOM, soft hyphen, line and paragraph separators.
_INVISIBLE = re.compile(
    "[\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]"
)


def has_invisible(value: str) -> bool:
    """True when `value` holds a bidirectional control or a zero-width/invisible character."""
    return _INVISIBLE.search(value) is not None


# Terminal escape sequences, whole: CSI (`ESC [ ... final`, or the one-byte C1 CSI), OSC and
# the other string commands (`ESC ] ... BEL` or `ESC \`), and two-character escapes.
_ESCAPE_SEQUENCE = re.compile(
    "(?:\x1b\\[|\x9b)[0-?]*[ -/]*[@-~]"
    "|(?:\x1b[\\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\\\|\x9c)?"
    "|\x1b[ -~]"
)


def visible_part(value: str) -> str:
    """`value` without its escape sequences, control and invisible characters and
    surrounding blanks: what a reader actually sees of it on a terminal."""
    bare = _ESCAPE_SEQUENCE.sub("", value)
    return _INVISIBLE.sub("", _CONTROL.sub("", bare)).strip()


def check_string(value: str, field: str) -> str:
    """`value` unchanged, or InvalidInputError naming the field when it is not valid Unicode."""
    if has_lone_surrogate(value):
        raise InvalidInputError(
            field, "is not valid UTF-8 text (it holds a lone surrogate or undecodable bytes)"
        )
    return value


def check_tree(value: object, field: str, max_depth: int = MAX_JSON_DEPTH) -> None:
    """Refuse a decoded JSON value nested deeper than `max_depth` or holding invalid strings.

    Iterative, so it cannot itself run out of stack.

    Raises:
        InvalidInputError: naming the field and the problem.
    """
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            check_string(item, field)
            continue
        if isinstance(item, float) and not math.isfinite(item):
            # NaN and Infinity are not JSON: stored, they made `--json` output invalid.
            raise InvalidInputError(field, f"holds {item!r}, which is not a JSON number")
        if not isinstance(item, (dict, list)):
            continue
        if depth >= max_depth:
            raise InvalidInputError(field, f"is nested deeper than {max_depth} levels")
        if isinstance(item, dict):
            for key, child in item.items():
                check_string(str(key), field)
                stack.append((child, depth + 1))
        else:
            stack.extend((child, depth + 1) for child in item)


def parse_json(raw: str | bytes, field: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Decode outside JSON: valid UTF-8, valid JSON, bounded depth, no lone surrogates.

    Raises:
        InvalidInputError: one line naming the field and the first problem.
    """
    if isinstance(raw, bytes):
        try:
            # utf-8-sig: a leading byte-order mark (Windows editors and PowerShell write one)
            # is not part of the document.
            raw = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InvalidInputError(
                field, f"is not valid UTF-8 (byte {exc.start}: {exc.reason})"
            ) from None
    else:
        check_string(raw, field)
    try:
        doc = json.loads(raw, parse_constant=_not_json)
    except RecursionError:
        raise InvalidInputError(field, f"is nested deeper than {max_depth} levels") from None
    except ValueError as exc:
        raise InvalidInputError(field, f"is not valid JSON: {exc}") from None
    check_tree(doc, field, max_depth)
    return doc


def _not_json(name: str) -> Any:
    """Python's decoder takes NaN, Infinity and -Infinity; JSON does not."""
    raise ValueError(f"{name} is not a JSON number")
