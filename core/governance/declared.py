"""Relations the writer declares (#40): "this replaces m_…", "this says the same as m_…".

The calling model often knows what a new memory replaces (it read the old one in its
injected block a moment ago) when the judge, reading two sentences, cannot tell. So
`remember` and `suggest` take `replaces` and `same_as`: ids (or `m:` references) of live
memories of the same scope, which the ledger checks before the policy sees them. A
declaration is a claim, not an order; the policy still decides by trust:

- **replaces**: a new memory that becomes active supersedes the named one when its sources
  have at least the named memory's authority (the user's word replaces the user's word, an
  agent's inference another inference), or when the named one is itself a pending guess.
  Otherwise (an agent names the user's memory, or the new memory waits for review itself)
  nothing is superseded: the new memory goes to review as "possibly replaces m_…", both
  texts side by side, and the user's answer decides. An agent can never take a user's fact
  away on its own say-so.
- **same as**: the new memory merges into the named one as more evidence (its text is kept
  in the event log), unless the judge reads a changed value between the two ("3 pm" named
  the same as "2 pm"): then it goes to review as "possibly the same as m_…". A merge adds
  sources and a little confidence; it never raises the named memory's authority.
- **both**: the new words merge into the memory they restate, and that memory supersedes
  the ones named as replaced, under the same trust rules (a replacement the writer may not
  make sends the new memory to review about it instead).

Declared pairs are not judged again; every other related memory is, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from core.errors import InvalidInputError
from core.governance.authority import authority
from core.governance.judge import judge
from core.governance.verdicts import Candidate, Verdict
from core.model.enums import MemoryFlag, MemoryStatus
from core.model.records import MemoryRecord
from core.model.scope import Scope

DECLARED = "declared by the writer"
LIVE = (MemoryStatus.ACTIVE, MemoryStatus.CANDIDATE)


@dataclass(frozen=True)
class Said:
    """What the declarations decided.

    Attributes:
        settled: the whole verdict (a merge, or the candidate sent to review), or None.
        supersedes: (old id, why) for each declared replacement the policy allows.
        ids: the declared memories (left out of the judge's comparisons).
    """

    settled: Verdict | None = None
    supersedes: tuple[tuple[str, str], ...] = ()
    ids: frozenset[str] = frozenset()


NOTHING = Said()


def fields_of(replaces: Sequence[str], same_as: str | None) -> list[tuple[str, str]]:
    """(field, id) of each memory a writer declares, in the order they are checked."""
    return [("replaces", i) for i in replaces] + (
        [("same_as", same_as)] if same_as is not None else []
    )


def check_named(
    field: str, memory_id: str, record: MemoryRecord | None, scope: Scope
) -> MemoryRecord:
    """The declared memory, if it is a live memory of `scope`; else the refusal naming the
    field. Another scope's memory is refused with the words for an unknown one: the answer
    must not tell a writer that a memory of a scope it cannot see exists."""
    if record is None or record.scope != scope:
        raise InvalidInputError(
            field,
            f"no memory {memory_id} in this scope ({scope}); a memory can only replace or "
            f"restate one of its own scope",
        )
    if record.status not in LIVE:
        later = f", by {record.superseded_by}" if record.superseded_by else ""
        raise InvalidInputError(
            field,
            f"{memory_id} is {record.status.value}{later}; name a memory that is active or "
            f"waiting for review",
        )
    return record


def relations(
    cand: Candidate,
    verdict: Verdict,
    related: Sequence[MemoryRecord],
    similarity: Callable[[str, str], float | None] | None,
) -> Said:
    """Apply `cand.same_as` and `cand.replaces` to the verdict the sources earned."""
    if (not cand.replaces and cand.same_as is None) or verdict.status not in LIVE:
        return NOTHING
    held = {r.id: r for r in related}
    ids = frozenset(i for i in (*cand.replaces, cand.same_as) if i is not None and i in held)
    replaced = _replacements(cand, verdict, held)
    if isinstance(replaced, Verdict):  # a replacement the writer may not make: the user asks
        return Said(settled=replaced, ids=ids)
    if cand.same_as is not None and cand.same_as in held:
        settled = _same_as(cand, verdict, held[cand.same_as], similarity)
        if settled.merge_into is not None:
            # Both declared: the memory it merges into, which says the same, replaces the
            # others (before, the merge dropped `replaces`).
            settled = with_replaced(settled, Said(supersedes=replaced))
        return Said(settled=settled, ids=ids)
    return Said(supersedes=replaced, ids=ids)


def _replacements(
    cand: Candidate, verdict: Verdict, held: dict[str, MemoryRecord]
) -> tuple[tuple[str, str], ...] | Verdict:
    """(old id, why) for each declared replacement the trust rules allow; or, at the first
    one they do not, the candidate sent to review about it."""
    supersedes: list[tuple[str, str]] = []
    for old_id in cand.replaces:
        old = held.get(old_id)
        if old is None or old.status not in LIVE:
            continue
        if verdict.status == MemoryStatus.ACTIVE and _may_replace(cand, old):
            supersedes.append((old.id, f"{DECLARED}: it replaces this memory"))
        else:
            return ask(verdict, "possibly replaces", old.id, _why_not(cand, verdict, old))
    return tuple(supersedes)


def with_replaced(decided: Verdict, said: Said) -> Verdict:
    """The judged verdict, with the declared replacements added; when the judged verdict no
    longer lets the memory be active (it contradicts a higher authority), the first one
    goes to review instead."""
    if not said.supersedes:
        return decided
    if decided.status != MemoryStatus.ACTIVE:
        first = said.supersedes[0][0]
        return ask(decided, "possibly replaces", first, f"{DECLARED}; it waits for review")
    ids = tuple(i for i, _ in said.supersedes)
    reasons = tuple(f"supersedes {i} ({why})" for i, why in said.supersedes)
    return replace(
        decided,
        reasons=(*decided.reasons, *reasons),
        supersedes=(*ids, *(i for i in decided.supersedes if i not in ids)),
        why=(*said.supersedes, *decided.why),
    )


def ask(verdict: Verdict, possibly: str, old_id: str, why: str) -> Verdict:
    """The candidate waits for the user's answer about one named memory (review)."""
    reason = f"{possibly} {old_id} ({why}): please decide"
    return replace(
        verdict,
        status=MemoryStatus.CANDIDATE,
        reasons=(*verdict.reasons, reason),
        flags=verdict.flags | {MemoryFlag.NEEDS_CONFIRMATION},
        supersedes=(),
        conflicts_with=(),
        merge_into=None,
        why=(),
    )


def _same_as(
    cand: Candidate,
    verdict: Verdict,
    old: MemoryRecord,
    similarity: Callable[[str, str], float | None] | None,
) -> Verdict:
    found = judge(cand.content, old.content, _similarity(similarity, cand.content, old.content))
    if found.kind == "contradiction" or (found.kind == "unsure" and found.maybe != "duplicate"):
        why = f"{DECLARED}, but the judge reads: {found.reason or 'a changed value'}"
        return ask(verdict, "possibly the same as", old.id, why)
    reason = f"near-duplicate of {old.id} ({DECLARED}): merged as more evidence"
    return replace(verdict, merge_into=old.id, reasons=(reason,))


def _similarity(
    similarity: Callable[[str, str], float | None] | None, new: str, old: str
) -> float | None:
    return similarity(new, old) if similarity is not None else None


def _may_replace(cand: Candidate, old: MemoryRecord) -> bool:
    """A pending guess may be replaced by any active memory; an active one by sources of at
    least its authority."""
    if old.status == MemoryStatus.CANDIDATE:
        return True
    return cand.source_trust.authority >= authority(old)


def _why_not(cand: Candidate, verdict: Verdict, old: MemoryRecord) -> str:
    if verdict.status != MemoryStatus.ACTIVE:
        return f"{DECLARED}; the new memory itself waits for review"
    return (
        f"{DECLARED}, whose sources ({cand.source_trust.value}) have less authority than "
        f"that memory's"
    )
