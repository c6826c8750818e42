"""What the command line prints of stored text: never a control sequence for the terminal.

Memory and event text comes from agents. Printed raw, `ESC[2K`, an OSC title or OSC 52
(clipboard) sequence, a carriage return or a bidirectional override rewrites what the user
sees in `memory list` or `candidates list`. Every human listing goes through `shown`
(`Context.emit` applies it to all human output, the error line too); JSON output is escaped
by the encoder already.
"""

from __future__ import annotations

import re

# C0 but newline and tab, DEL, C1; the bidirectional controls (embeddings, overrides,
# isolates, marks) and the invisible characters that hide text (zero-width space, word
# joiner and the invisible operators, BOM, line and paragraph separators). Zero-width
# joiner and non-joiner stay: scripts and emoji sequences need them and they hide nothing.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064"
    "\u2066-\u206f\ufeff\ufff9-\ufffb]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(text: str) -> str:
    """`text` safe to print on a terminal: each control or hiding character becomes its
    visible escape (`\\x1b`, `\\r`, `\\u202e`); newlines and tabs stay."""
    return _UNSAFE.sub(_escape, text)
