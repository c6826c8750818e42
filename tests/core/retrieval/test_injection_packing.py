"""Injection packing (R15, R16): the budget decides how much goes in; digests say what they hold.

Through the public service on a real encrypted store with the default embedder.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random

import pytest

from core import MemoryService, Scope
from core.retrieval import packing, render

SCOPE = {"user": "kim", "project": "trip"}
NOTES = [
    "Kim's passport expires in March 2027; renew it before the Lisbon trip.",
    "Kim prefers aisle seats on flights longer than two hours.",
    "Kim's travel insurance policy number is TI-55821 with Allianz.",
    "Kim is vegetarian and asks for vegetarian meals on long-haul flights.",
    "Kim booked the Hotel Avenida in Lisbon for 12 to 15 May.",
    "Kim's frequent flyer number with TAP is TP-440918.",
    "Kim wants a train, not a taxi, from Lisbon airport to the hotel.",
    "Kim's sister Ana lives in Porto and wants to meet on 16 May.",
    "Kim packs a travel adapter for Portuguese sockets (type F).",
    "Kim needs a window seat for the return flight to take photos.",
    "Kim's budget for the Lisbon trip is 1,800 euros including hotel.",
    "Kim has a museum pass reservation for the Gulbenkian on 13 May.",
]


def test_budget_not_a_fixed_cap_decides_how_many_full_items(service: MemoryService) -> None:
    """With room in the budget, more than eight relevant notes go in whole; less room, fewer."""
    for text in NOTES:
        service.memories.remember(SCOPE, f"Remember: {text}")
    goal = "plan Kim's Lisbon trip: flights, hotel, train, passport, budget, meeting Ana in Porto"
    assert len(service.memories.list_memories()) == len(NOTES)
    # The first query loads the model; inject's hot-path guard must not time out on it.
    assert service.retrieval.search_memory(SCOPE, goal)
    roomy = service.retrieval.inject(SCOPE, goal, 1000).value
    assert not roomy.degraded
    full = [i for i in roomy.items if not i.in_digest]
    assert len(full) > 8
    assert roomy.tokens <= 1000
    tight = service.retrieval.inject(SCOPE, goal, 200).value
    tight_full = [i for i in tight.items if not i.in_digest]
    assert 0 < len(tight_full) < len(full)
    assert tight.tokens <= 200


def test_digest_preview_says_what_the_memory_is_about(service: MemoryService) -> None:
    """A dated turn's digest reference shows its content words, not only its date."""
    long_tail = " ".join(
        f"Filler sentence number {n} about nothing in particular." for n in range(12)
    )
    for day in range(1, 8):
        service.memories.remember(
            SCOPE,
            f"Remember: [{day} May 2023] Kim: I signed up for the pottery class in Lisbon "
            f"on day {day}. {long_tail}",
        )
    assert service.retrieval.search_memory(SCOPE, "pottery class in Lisbon")
    result = service.retrieval.inject(SCOPE, "pottery class in Lisbon", 160).value
    digest = [i for i in result.items if i.in_digest]
    assert digest, result.text
    line = next(x for x in result.text.splitlines() if "search_memory" in x)
    assert "pottery" in line and "May 2023]" not in line


def test_lines_too_long_to_fit_are_left_unrendered_with_the_same_result(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """#13: `_pack` skips rendering a candidate whose line cannot fit what is left; every
    budget packs exactly what rendering every candidate packed (long and short notes,
    Chinese ones counted one token a character, headers that state their own scope, kind,
    speaker or date)."""
    rng = random.Random(3)
    texts = [*NOTES, *(f"Kim's note {i}: " + "word " * rng.randint(1, 60) for i in range(40))]
    texts += [f"金的笔记{i}：" + "里斯本" * rng.randint(1, 30) for i in range(20)]
    items: list[dict[str, object]] = [{"scope": SCOPE, "text": text} for text in texts]
    for i, item in enumerate(items):
        if i % 3 == 1:
            item["scope"] = {"user": "kim"}  # broader than the request: its header names it
        if i % 4 == 2:
            item["speaker"] = "Ana"
        if i % 5 == 3:
            item["said_at"] = f"2023-05-{1 + i % 28:02d}"
        if i % 7 == 4:
            item["kind"] = "preference"
    service.memories.remember_many(items)
    retriever = service._engine.retriever
    request = Scope.of(SCOPE)
    found = retriever.retrieve(request, "Kim's Lisbon trip note 里斯本", None, fill=True)
    assert len(found.ranked) > 40
    now = service._engine.store.clock.now()
    for budget in range(40, 1600, 7):
        packed = packing.pack(found.ranked, request, budget, now)
        with monkeypatch.context() as every_line:
            every_line.setattr(packing, "cost_floor", lambda *_: 0)
            assert packing.pack(found.ranked, request, budget, now) == packed, budget


def test_line_floor_never_exceeds_the_rendered_line(service: MemoryService) -> None:
    """#13: the length `_pack` decides on without rendering is a lower bound of the line,
    whatever the block shares, the notes, the speaker, the scope (double spaces included)
    and the age."""
    service.memories.remember_many(
        [
            {"scope": SCOPE, "text": NOTES[0]},
            {"scope": {"user": "kim"}, "text": NOTES[1], "speaker": "Ana"},
            {"scope": SCOPE, "text": NOTES[2], "said_at": "2023-05-07", "kind": "preference"},
            {"scope": {"user": "kim", "project": "a  b   c"}, "text": "金的笔记：里斯本"},
        ]
    )
    request = Scope.of(SCOPE)
    records = [r for r in service.memories.list_memories() if r.status.value == "active"]
    assert len(records) == 4
    variants = [
        dataclasses.replace(r, confidence=c, speaker=sp)
        for r in records
        for c in (r.confidence, 0.5)
        for sp in (r.speaker, None, "Dr. Weiss")
    ]
    provenances = {render.provenance(r) for r in variants}
    shareds = [render.Shared(scope=request, provenance=p) for p in (*provenances, None)]
    shareds += [render.Shared(scope=r.scope, provenance=None) for r in records]
    base = service._engine.store.clock.now()
    nows = [base + dt.timedelta(days=d) for d in (-2, 0, 0.5, 3, 100, 5000)]
    notes_options = [(), ("conflict",), ("stale",), ("conflict", "stale"), ("superseded",)]
    checked = 0
    for rec in variants:
        for shared in shareds:
            for notes in notes_options:
                floor = render.line_floor(rec, notes, shared)
                for now in nows:
                    line = render.item_line(rec, notes, now, shared=shared)
                    assert floor <= len(line), (floor, line)
                    checked += 1
    assert checked > 1000
