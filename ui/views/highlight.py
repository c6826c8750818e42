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


# Words that carry no value of their own: marking "a", "is" or 的 as changed is noise.
_FUNCTION_WORDS = (
    "a an the is are was were be been am i my me we our you your he she it its they their of "
    "to in on at for with and or but has have had do does did this that these those as by from "
    "so very just also too"
)
_FUNCTION = frozenset(_FUNCTION_WORDS.split()) | frozenset(
    "的了是在我你他她它们也都和就还呢吧呀啊哦嘛"
)
# Below this share of its words matched, a text is a rewording of the other, not the other
# with a word or two exchanged: only its numbers are marked (the values a reader compares).
_REWORDED = 0.5


def differing_words(text: str, other: str) -> str:
    """HTML of `text` with the words that `other` does not have at that place marked.

    Latin words compare whole and case-insensitively; CJK compares character by character.
    Function words are never marked; when the two texts share few words, only numbers are.
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
    content = [i for i, t in enumerate(mine) if _is_content(t)]
    shared = sum(same[i] for i in content) / len(content) if content else 1.0
    out = []
    for i, token in enumerate(mine):
        piece = html.escape(token)
        marked = not same[i] and _is_content(token)
        if marked and shared < _REWORDED:
            marked = any(c.isdigit() for c in token)
        out.append(_MARK.format(piece) if marked else piece)
    return "".join(out).replace("\n", "<br>")


def _is_content(token: str) -> bool:
    return (
        bool(token.strip())
        and token.casefold() not in _FUNCTION
        and any(c.isalnum() for c in token)
    )
