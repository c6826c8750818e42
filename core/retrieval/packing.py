"""Packing ranked hits into an injection's token budget (R16): whole items while they fit,
then a digest of references for the rest, and why each hit left out was dropped."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from core.governance.policy import CONFIRMED, CONFLICT, STALE
from core.governance.text import estimate_tokens
from core.model.enums import MemoryKind
from core.model.memory import DroppedHit, InjectedItem
from core.model.records import MemoryRecord
from core.model.scope import Scope
from core.retrieval import render
from core.retrieval.ranking import Scored

MIN_DIGEST_ENTRY = 4  # tokens: a reference alone costs about this much


def notes_of(record: MemoryRecord) -> tuple[str, ...]:
    notes = []
    if CONFLICT in record.flags:
        notes.append("conflict")
    if STALE in record.flags:
        notes.append("stale")
    return tuple(notes)


def pack(
    ranked: Sequence[Scored], request: Scope, budget: int, now: dt.datetime
) -> tuple[list[InjectedItem], list[DroppedHit]]:
    """Fill the budget with whole items, then a digest, and say why the rest was dropped."""
    left = budget - render.overhead_tokens() - 1
    shared = shared_of(ranked, request)
    shared_cost = estimate_tokens(render.shared_line(shared)) + 1
    paid = False  # the shared line is paid for once, by the first item that needs it
    items: list[InjectedItem] = []
    overflow: list[Scored] = []
    for scored in ranked:
        rec = scored.record
        if not injectable(rec):
            continue
        notes = notes_of(rec)
        if cost_floor(rec, notes, shared) > left:
            overflow.append(scored)  # its line cannot fit, whatever its age: not rendered
            continue
        line = render.item_line(rec, notes, now, shared=shared)
        cost = estimate_tokens(line) + 1
        needs_line = render.uses_shared(rec, shared)
        if needs_line and not paid:
            cost += shared_cost
        # The budget alone decides how many whole items go in (a fixed cap of 8 left most
        # of a 1,000-token budget to digest references on chat-like stores).
        if cost <= left:
            items.append(injected_item(scored, request, cost, digest=False))
            left -= cost
            paid = paid or needs_line
        else:
            overflow.append(scored)
    digest: list[Scored] = []
    # Entry by entry: a sum of per-entry estimates (plus one for each "; ") never undercounts
    # the joined line, and it keeps packing linear in the number of hits.
    used = estimate_tokens(render.DIGEST_HEAD) + 1
    for scored in overflow:
        if left - used < MIN_DIGEST_ENTRY:
            break
        cost = estimate_tokens(render.digest_entry(scored.record)) + 1
        if used + cost <= left:
            digest.append(scored)
            used += cost
    dropped = [
        DroppedHit(s.record.id, "token budget: did not fit, not in the digest", s.score)
        for s in overflow
        if s not in digest
    ]
    items += [injected_item(s, request, 0, digest=True) for s in digest]
    return items, dropped


def cost_floor(rec: MemoryRecord, notes: tuple[str, ...], shared: render.Shared) -> int:
    """A lower bound of what `pack` charges for the memory's line, without rendering it:
    `estimate_tokens` counts at least one token per four characters."""
    return (render.line_floor(rec, notes, shared) + 3) // 4 + 1


def injectable(rec: MemoryRecord) -> bool:
    """Skill suggestions go in only once the user confirmed them."""
    return rec.kind != MemoryKind.SKILL_SUGGESTION or CONFIRMED in rec.flags


def shared_of(ranked: Sequence[Scored], request: Scope) -> render.Shared:
    """What the block states once (see `render.Shared`), from its injectable candidates."""
    return render.shared_for([s.record for s in ranked if injectable(s.record)], request)


def injected_item(scored: Scored, request: Scope, tokens: int, *, digest: bool) -> InjectedItem:
    rec = scored.record
    return InjectedItem(
        memory_id=rec.id,
        content=rec.content,
        kind=rec.kind.value,
        scope=rec.scope,
        why_visible=rec.scope.why_visible(request),
        score=scored.score,
        tokens=tokens,
        notes=notes_of(rec),
        in_digest=digest,
        revision=rec.revision,
    )
