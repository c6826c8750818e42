"""Highlight a memory's words inside its evidence (review queue)."""

from __future__ import annotations

import difflib
import html
import re

_LATIN = re.compile(r"[^\W\d_]{3,}|\d{2,}", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u9fff]+")
STOP = {"the", "and", "that", "for", "with", "this", "remember", "prefer", "user", "are", "you"}


def terms_of(text: str) -> set[str]:
    """Words (Latin, 3+ letters) and two-character CJK pieces of a memory's text."""
    words = {w.casefold() for w in _LATIN.findall(text) if not _CJK.fullmatch(w)}
    terms = {w for w in words if w not in STOP}
    for run in _CJK.findall(text):
        terms.update(run[i : i + 2] for i in range(len(run) - 1))
    return {t for t in terms if t.strip()}


def highlight(evidence: str, memory_text: str) -> str:
    """HTML of `evidence` with the memory's terms wrapped in <b class=mark>."""
    terms = sorted(terms_of(memory_text), key=len, reverse=True)
    if not terms:
        return html.escape(evidence)
    pattern = re.compile("|".join(re.escape(t) for t in terms), re.IGNORECASE)
    out, pos = [], 0
    for m in pattern.finditer(evidence):
        out.append(html.escape(evidence[pos : m.start()]))
        out.append(
            f'<span style="background-color:#ffe082;color:#000">{html.escape(m.group(0))}</span>'
        )
        pos = m.end()
    out.append(html.escape(evidence[pos:]))
    return "".join(out).replace("\n", "<br>")


_TOKEN = re.compile(r"[\u3400-\u9fff]|[^\W_]+|\s+|.", re.UNICODE)
_MARK = '<span style="background-color:#ffe082;color:#000">{}</span>'


def differing_words(text: str, other: str) -> str:
    """HTML of `text` with the words that `other` does not have at that place marked.

    Latin words compare whole and case-insensitively; CJK compares character by character.
    """
    mine = _TOKEN.findall(text)
    theirs = _TOKEN.findall(other)
    matcher = difflib.SequenceMatcher(
        None, [t.casefold() for t in mine], [t.casefold() for t in theirs], autojunk=False
    )
    same = [False] * len(mine)
    for block in matcher.get_matching_blocks():
        for i in range(block.a, block.a + block.size):
            same[i] = True
    out = []
    for token, kept in zip(mine, same, strict=True):
        piece = html.escape(token)
        out.append(piece if kept or token.isspace() else _MARK.format(piece))
    return "".join(out).replace("\n", "<br>")
