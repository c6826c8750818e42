"""Render injected memory as a low-priority reference block with provenance (R11, R15).

The wording lives in `resources/templates/memory_block.txt`; this module fills it in. The
block is phrased as background notes, never as instructions.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Shared:
    """What the notes of one block have in common, said once in its first line instead of in
    every header: the request's scope, and the most common provenance (kind, source,
    confidence) of the best hits. On a chat-like store every note shares both, and a header
    that repeats them cost nearly as many tokens as the turn it labels (#17)."""

    scope: Scope | None = None
    provenance: tuple[str, str, str] | None = None


SHARED_SAMPLE = 20
"""How many of the best hits decide the block's shared provenance."""


def provenance(record: MemoryRecord) -> tuple[str, str, str]:
    """A note's kind, source and confidence as its header shows them."""
    return record.kind.value, source_label(record), f"{record.confidence:.2f}"


def shared_for(records: Sequence[MemoryRecord], request: Scope) -> Shared:
    """The scope and provenance a block states once, from its best candidates (in rank
    order): the provenance at least two of the first `SHARED_SAMPLE` share, the most common."""
    counts = Counter(provenance(r) for r in records[:SHARED_SAMPLE])
    common = [p for p, n in counts.most_common(1) if n >= 2]
    return Shared(scope=request, provenance=common[0] if common else None)


def uses_shared(record: MemoryRecord, shared: Shared) -> bool:
    """True when the note's header leaves out something the block's first line states."""
    return record.scope == shared.scope or provenance(record) == shared.provenance


def item_line(
    record: MemoryRecord,
    notes: tuple[str, ...],
    now: dt.datetime,
    request: Scope | None = None,
    shared: Shared | None = None,
) -> str:
    """One memory with its provenance: id, kind, scope, source, confidence, age or said date.

    With `request` (or `shared`), a memory filed under exactly the request's scope leaves its
    scope out, one with the block's shared kind, source and confidence leaves those out
    (`shared_line` names them once for the block), and a memory with its own time shows that
    date instead of an age. Without either (replay, resume) every header is complete.
    """
    if shared is None and request is not None:
        shared = Shared(scope=request)
    scope = scope_text(record.scope)
    if shared is not None and record.scope == shared.scope:
        scope = ""
    own = provenance(record)
    kind, source, confidence = own
    head = f"[{short_ref(record.id)} "
    if shared is None or own != shared.provenance:
        head += f"{kind} {scope} {source} {confidence} ".replace("  ", " ")
    elif scope:
        head += f"{scope} "
    when = record.own_time()
    if when is None:
        head += f"{_age(now - record.valid_from)}]"
    elif shared is None:
        head += f"{_age(now - record.valid_from)} said {when:%Y-%m-%d}]"
    else:
        head += f"said {when:%Y-%m-%d}]"
    note = "".join(f" ({NOTE_TEXT[n]})" for n in notes if n in NOTE_TEXT)
    # Who said it comes first (#17): kept out of the stored text, the model must still know
    # whose words these are.
    return f"- {head} {record.spoken()}{note}"


# The fewest characters a header's time can take: an age ("5d", "today", "3mo") and "]".
_TIME_FLOOR = len("5d]")


def line_floor(record: MemoryRecord, notes: tuple[str, ...], shared: Shared) -> int:
    """A lower bound of `len(item_line(record, notes, now, shared=shared))` at any `now`,
    from lengths alone: the injector skips rendering a candidate whose line cannot fit
    what is left of the budget (#13: rendering candidates only to drop them was a quarter
    of an injection on a big scope)."""
    chars = len("- [") + len(short_ref(record.id)) + len(" ") + _TIME_FLOOR + len(" ")
    chars += len(record.content) + (len(record.speaker) + len(": ") if record.speaker else 0)
    chars += sum(len(NOTE_TEXT[n]) + len(" ()") for n in notes if n in NOTE_TEXT)
    own = provenance(record)
    if own != shared.provenance:
        # The scope in this part is not counted: collapsing double spaces may shorten it.
        return chars + sum(len(part) + len(" ") for part in own)
    if record.scope != shared.scope and record.scope:
        chars += len(scope_text(record.scope)) + len(" ")
    return chars


def scope_text(scope: Scope) -> str:
    """A scope as headers and the block's first line write it: `project=x,user=y`."""
    return ",".join(f"{k}={v}" for k, v in scope.items())


def scope_line(request: Scope) -> str:
    """Names the scope once for every item line that leaves its own out."""
    return shared_line(Shared(scope=request))


def shared_line(shared: Shared) -> str:
    """The block's first line: what a header that leaves it out means."""
    parts = []
    if shared.scope is not None:
        parts.append("filed under " + scope_text(shared.scope))
    if shared.provenance is not None:
        kind, source, confidence = shared.provenance
        parts.append(f"{kind}, {source}, confidence {confidence}")
    return f"- (unless its header says otherwise, a note is {'; '.join(parts)})"


DIGEST_HEAD = "- More notes (read back with search_memory): "


def digest_entry(record: MemoryRecord) -> str:
    """One memory's part of a digest line: its reference and what it is about."""
    return f"{short_ref(record.id)} {gist(record.spoken())}"


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
