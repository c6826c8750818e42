"""Injection brings a chosen turn's neighbours along when the budget allows (#17)."""

from __future__ import annotations

from core import MemoryService

A = {"user": "ana"}
B = {"user": "bo"}


def _import(service: MemoryService, turns: list[tuple[dict[str, str], str]]) -> list[str]:
    doc = {
        "format": "memory-center-export-v1",
        "memories": [{"content": text, "scope": scope} for scope, text in turns],
    }
    ids = []
    for outcome in service.import_memories(doc).value:
        assert outcome.record is not None
        if outcome.outcome == "candidate":
            service.approve(outcome.record.id)
        ids.append(outcome.record.id)
    return ids


def test_the_turn_before_the_answer_comes_along(service: MemoryService) -> None:
    """The question's words are in one turn; the answer next to it shares none of them."""
    ids = _import(
        service,
        [
            (A, "Ana: We finally booked the kayak trip on the fjord!"),
            (A, "Ana: Mostly because the forecast finally cleared up."),
            (A, "Ana: Oh, and Saturday works for the barbecue."),
            (A, "Ana: My cousin adopted a grey parrot called Pip."),
            (A, "Ana: Chemistry homework is due on Monday."),
        ],
    )
    block = service.inject(A, "what kayak trip did Ana book on the fjord", 400).value
    chosen = [i.memory_id for i in block.items if not i.in_digest]
    # In a store this small every memory is a faint vector hit; the neighbour must come
    # right after the turn that chose it, ahead of turns that merely share a word or two.
    assert chosen[:2] == [ids[0], ids[1]]
    assert chosen.index(ids[4]) > 1


def test_a_neighbour_in_another_scope_never_comes_along(service: MemoryService) -> None:
    """Neighbours obey the scope contract: a turn filed under another user stays out (R13)."""
    ids = _import(
        service,
        [
            (A, "Ana: We finally booked the kayak trip on the fjord!"),
            (B, "Bo: My bank PIN is on the fridge note."),
            (A, "Ana: Chemistry homework is due on Monday."),
        ],
    )
    block = service.inject(A, "what kayak trip did Ana book on the fjord", 400).value
    chosen = {i.memory_id for i in block.items}
    assert ids[0] in chosen
    assert ids[1] not in chosen
    assert "PIN" not in block.text


def test_a_small_budget_keeps_the_best_hit_not_its_neighbour(service: MemoryService) -> None:
    """Neighbours compete for the budget; they never displace the hit that chose them."""
    ids = _import(
        service,
        [
            (A, "Ana: We finally booked the kayak trip on the fjord!"),
            (A, "Ana: Mostly because the forecast finally cleared up after weeks of rain."),
        ],
    )
    block = service.inject(A, "what kayak trip did Ana book on the fjord", 90).value
    chosen = [i.memory_id for i in block.items if not i.in_digest]
    assert chosen == [ids[0]]
