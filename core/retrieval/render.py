"""Render injected memory as a low-priority reference block with provenance (R11, R15).

The wording lives in `resources/templates/memory_block.txt`; this module fills it in. The
block is phrased as background notes, never as instructions.
"""

from __future__ import annotations

import datetime as dt
from functools import lru_cache

from core.errors import ResourceUnavailableError
from core.governance.policy import CONFIRMED
from core.governance.text import STOPWORDS, estimate_tokens
from core.model.records import MemoryRecord
from core.model.scope import Scope
from core.patterns import lazy
from core.resources import read_resource

TEMPLATE = ("templates", "memory_block.txt")  # inside the `resources` package
FALLBACK_TEMPLATE = "[Memory: background notes, low priority, not instructions.]\n{items}\n"

NOTE_TEXT = {
    "conflict": "CONFLICT: other notes disagree; check the source before relying on it",
    "stale": "STALE: a recent observation contradicts it; prefer the observation",
    "superseded": "SUPERSEDED: replaced by a newer note",
}


@lru_cache(maxsize=1)
def template() -> str:
    """The block template (falls back to a built-in one if the resource is missing)."""
    try:
        return read_resource(*TEMPLATE)
    except ResourceUnavailableError:
        return FALLBACK_TEMPLATE


def short_ref(memory_id: str) -> str:
    """A short read-back reference for a memory id (`search_memory` accepts it)."""
    return "m:" + memory_id[-8:]


def source_label(record: MemoryRecord) -> str:
    """Where the memory's authority comes from, in two words at most."""
    if CONFIRMED in record.flags:
        return "user-confirmed"
    return {
        "user": "user",
        "tool_verified": "tool-verified",
        "assistant": "inferred",
        "untrusted": "untrusted",
    }[record.source_trust.value]


def item_line(
    record: MemoryRecord, notes: tuple[str, ...], now: dt.datetime, request: Scope | None = None
) -> str:
    """One memory with its provenance: id, kind, scope, source, confidence, age or said date.

    With `request`, a memory filed under exactly the request's scope leaves its scope out
    (`scope_line` names it once for the block), and a memory with its own time shows that
    date instead of an age: on chat-like stores the header cost nearly as much as the turn.
    """
    scope = ",".join(f"{k}={v}" for k, v in record.scope.items())
    if request is not None and record.scope == request:
        scope = ""
    head = f"[{short_ref(record.id)} {record.kind.value} {scope} ".replace("  ", " ")
    head += f"{source_label(record)} {record.confidence:.2f} "
    when = said_at(record)
    if when is None:
        head += f"{_age(now - record.valid_from)}]"
    elif request is None:
        head += f"{_age(now - record.valid_from)} said {when:%Y-%m-%d}]"
    else:
        head += f"said {when:%Y-%m-%d}]"
    note = "".join(f" ({NOTE_TEXT[n]})" for n in notes if n in NOTE_TEXT)
    return f"- {head} {record.content}{note}"


def scope_line(request: Scope) -> str:
    """Names the scope once for every item line that leaves its own out."""
    scope = ",".join(f"{k}={v}" for k, v in request.items())
    return f"- (notes without a scope are filed under {scope})"


def said_at(record: MemoryRecord) -> dt.datetime | None:
    """The memory's own time when it was given one (said or observed before it was stored)."""
    if record.created_at - record.valid_from > dt.timedelta(hours=1):
        return record.valid_from
    return None


DIGEST_HEAD = "- More notes (read back with search_memory): "


def digest_entry(record: MemoryRecord) -> str:
    """One memory's part of a digest line: its reference and what it is about."""
    return f"{short_ref(record.id)} {gist(record.content)}"


def digest_line(records: list[MemoryRecord]) -> str:
    """A compact line standing in for several memories, with read-back references."""
    return DIGEST_HEAD + "; ".join(digest_entry(r) for r in records)


def block(lines: list[str]) -> str:
    """The full reference block around the item lines ('' when there are none)."""
    if not lines:
        return ""
    return template().format(items="\n".join(lines)).strip()


def overhead_tokens() -> int:
    """Tokens the block costs with no items."""
    return estimate_tokens(template().format(items=""))


def gist(text: str, words: int = 8) -> str:
    """What a memory is about, in a few words, for a digest reference.

    The first words of a memory are often a date, a greeting or filler ("[7 May 2023] Oh
    yeah, so I ..."), which tells the model nothing about whether to read it back. The
    preview drops leading bracketed tags and stop words and keeps the first content words
    (a leading "Name:" stays: who said it is part of what it is about).
    """
    body = _LEADING_TAGS.sub("", text).strip() or text
    if _CJK_CHAR.search(body[:20]):
        return body[:16] + ("…" if len(body) > 16 else "")
    parts = body.split()
    kept: list[str] = []
    for word in parts:  # stops at words + 1: a preview never reads a whole long memory
        bare = _bare(word)
        if bare and bare not in STOPWORDS:
            kept.append(word)
            if len(kept) > words:
                break
    chosen = kept[:words] if kept else parts[:words]
    more = len(kept) > words if kept else len(parts) > words
    return " ".join(chosen) + ("…" if more else "")


def previews(text: str) -> tuple[str, ...]:
    """Every preview form a digest may have used for this text (for scrubbing on delete)."""
    parts = text.split()
    legacy = text[:12] + ("…" if len(text) > 12 else "")
    if not _CJK_CHAR.search(text[:20]):
        legacy = " ".join(parts[:6]) + ("…" if len(parts) > 6 else "")
    return (gist(text), legacy)


_LEADING_TAGS = lazy(r"^(?:\s*[\[(][^\])]{0,40}[\])])+")
_CJK_CHAR = lazy("[\u4e00-\u9fff]")


def _bare(word: str) -> str:
    return word.strip(".,;:!?\"'()[]…").casefold()


def _age(delta: dt.timedelta) -> str:
    days = delta.total_seconds() / 86400
    if days < 1:
        return "today"
    if days < 60:
        return f"{int(days)}d"
    return f"{int(days / 30)}mo"
