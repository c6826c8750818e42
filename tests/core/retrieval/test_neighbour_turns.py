"""Injection brings a chosen turn's neighbours along when the budget allows (#17)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import event

from core import ManualClock, MemoryService
from core.retrieval import windows
from core.storage import neighbours
from tests.conftest import PASSPHRASE
from tests.support.conversation import import_turns, own_and_mixed

A = {"user": "ana"}
B = {"user": "bo"}


def test_the_turn_before_the_answer_comes_along(service: MemoryService) -> None:
    """The question's words are in one turn; the answer next to it shares none of them."""
    ids = import_turns(
        service,
        [
            (A, "Ana: We finally booked the kayak trip on the fjord!"),
            (A, "Ana: Mostly because the forecast finally cleared up."),
            (A, "Ana: Oh, and Saturday works for the barbecue."),
            (A, "Ana: My cousin adopted a grey parrot called Pip."),
            (A, "Ana: Chemistry homework is due on Monday."),
        ],
    )
    block = service.retrieval.inject(A, "what kayak trip did Ana book on the fjord", 400).value
    chosen = [i.memory_id for i in block.items if not i.in_digest]
    # In a store this small every memory is a faint vector hit; the neighbour must come
    # right after the turn that chose it, ahead of turns that merely share a word or two.
    assert chosen[:2] == [ids[0], ids[1]]
    assert chosen.index(ids[4]) > 1


def test_a_neighbour_in_another_scope_never_comes_along(service: MemoryService) -> None:
    """Neighbours obey the scope contract: a turn filed under another user stays out (R13)."""
    ids = import_turns(
        service,
        [
            (A, "Ana: We finally booked the kayak trip on the fjord!"),
            (B, "Bo: My bank PIN is on the fridge note."),
            (A, "Ana: Chemistry homework is due on Monday."),
        ],
    )
    block = service.retrieval.inject(A, "what kayak trip did Ana book on the fjord", 400).value
    chosen = {i.memory_id for i in block.items}
    assert ids[0] in chosen
    assert ids[1] not in chosen
    assert "PIN" not in block.text


def test_a_small_budget_keeps_the_best_hit_not_its_neighbour(service: MemoryService) -> None:
    """Neighbours compete for the budget; they never displace the hit that chose them."""
    ids = import_turns(
        service,
        [
            (A, "Ana: We finally booked the kayak trip on the fjord!"),
            (A, "Ana: Mostly because the forecast finally cleared up after weeks of rain."),
        ],
    )
    block = service.retrieval.inject(A, "what kayak trip did Ana book on the fjord", 90).value
    chosen = [i.memory_id for i in block.items if not i.in_digest]
    assert chosen == [ids[0]]


# --- the words of the turns around a memory (`context.widen`) ---------------------------

SHED = [
    (A, "Bo: Which colour did you paint the garden shed in the end?"),
    (A, "Ana: Sage green, after three coats."),
    (A, "Bo: My cousin adopted a grey parrot called Pip."),
    (A, "Ana: Chemistry homework is due on Monday."),
]
SHED_QUESTION = "what colour is the garden shed painted"
LAST_SPRING = "2023-05-08T13:56:00+00:00"  # the history below was said then


def _same(a: list[tuple[str, float]], b: list[tuple[str, float]]) -> bool:
    """The same hits in the same order with the same scores, up to the float noise of
    embedding conversation windows in batches of another size."""
    return [t for t, _ in a] == [t for t, _ in b] and all(
        abs(x - y) < 1e-3 for (_, x), (_, y) in zip(a, b, strict=True)
    )


def _ranking(service: MemoryService, query: str) -> list[tuple[str, float]]:
    """A's search results as (text, score) once the conversation windows the search asks
    for are embedded: comparable across stores (ids differ)."""
    service.retrieval.search_memory(A, query, limit=10)
    layer = service.index.catalog.vectors
    assert layer is not None and layer.wait_idle(30)
    return [(h.content, h.score) for h in service.retrieval.search_memory(A, query, limit=10)]


@contextmanager
def _other_store(root: Path, clock: ManualClock) -> Iterator[MemoryService]:
    svc = MemoryService.open(root, passphrase=PASSPHRASE, clock=clock, prefer_keyring=False)
    try:
        yield svc
    finally:
        svc.close()


def test_an_answer_is_found_by_the_words_of_the_question_before_it(
    service: MemoryService,
) -> None:
    """The answer shares no word with the request; the turn before it does (search, too)."""
    ids = import_turns(service, SHED, LAST_SPRING)
    hits = [h.memory_id for h in service.retrieval.search_memory(A, SHED_QUESTION, limit=10)]
    assert hits[:2] == [ids[0], ids[1]]
    block = service.retrieval.inject(A, SHED_QUESTION, 400).value
    chosen = [i.memory_id for i in block.items if not i.in_digest]
    assert chosen[:2] == [ids[0], ids[1]]


def test_a_hidden_turn_lends_no_words_and_gets_none(
    service: MemoryService, tmp_path: Path, clock: ManualClock
) -> None:
    """A turn the request may not see neither lifts its visible neighbour nor is lifted (R13):
    A's results are the same as in a store where the hidden turns say something else (in as
    many words, so the keyword statistics of A's words stay the same)."""
    turns = [
        (B, "Bo: Which colour did you paint the garden shed in the end?"),
        (A, "Ana: Sage green, after three coats."),
        (A, "Ana: Which bus goes to the harbour market?"),
        (B, "Bo: The number twelve, every ten minutes."),
        (A, "Ana: Chemistry homework is due on Monday."),
    ]
    ids = import_turns(service, turns, LAST_SPRING)
    with _other_store(tmp_path / "other", clock) as other:
        import_turns(
            other,
            [
                (B, "Bo: Which flavour did you bake the birthday cake in the end?"),
                *turns[1:3],
                (B, "Bo: The number seven, every ten seconds."),
                turns[4],
            ],
            LAST_SPRING,
        )
        for query in (SHED_QUESTION, "which bus goes to the harbour market"):
            assert _same(_ranking(service, query), _ranking(other, query))
    found = {
        h.memory_id
        for h in service.retrieval.search_memory(A, "which bus goes to the harbour", limit=10)
    }
    assert ids[2] in found
    assert ids[3] not in found
    block = service.retrieval.inject(A, "which bus goes to the harbour market", 400).value
    assert ids[3] not in {i.memory_id for i in block.items}
    assert "twelve" not in block.text


def test_a_deleted_turn_lends_its_words_no_more(
    service: MemoryService, tmp_path: Path, clock: ManualClock
) -> None:
    """After deletion the question's words leave with it (R19): search ranks as in a store
    where that turn was never written."""
    ids = import_turns(service, SHED, LAST_SPRING)
    before = _ranking(service, SHED_QUESTION)
    assert [text for text, _ in before[:2]] == [SHED[0][1], SHED[1][1]]
    service.review.delete(ids[0], reason="user asked")
    with _other_store(tmp_path / "other", clock) as other:
        import_turns(other, SHED[1:], LAST_SPRING)
        assert _same(_ranking(service, SHED_QUESTION), _ranking(other, SHED_QUESTION))


def test_neighbours_of_many_turns_come_from_two_statements_per_batch(
    service: MemoryService, clock: ManualClock
) -> None:
    """The bulk look-up agrees with the conversation's order, across batches and sessions."""
    first = import_turns(service, [(A, f"Ana: turn {n} of the first talk") for n in range(7)])
    clock.advance(dt.timedelta(minutes=1))  # another import run, another session
    second = import_turns(service, [(A, f"Ana: turn {n} of the second talk") for n in range(3)])
    records = {r.id: r for r in service.memories.list_memories()}
    sources = {mid: records[mid].source_event_ids[0] for mid in first + second}
    statements: list[str] = []
    with service._store.read("test") as conn:

        def count(*args: object) -> None:
            statements.append("x")

        event.listen(conn, "before_cursor_execute", count)
        try:
            found = neighbours.adjacent(conn, sources, batch=4)
        finally:
            event.remove(conn, "before_cursor_execute", count)
    for talk in (first, second):
        for i, mid in enumerate(talk):
            expected = tuple(talk[j] if 0 <= j < len(talk) else "" for j in (i - 1, i + 1))
            assert found[mid] == expected
    assert len(statements) == 2 * 3  # ten memories in batches of four


def test_notes_written_one_after_another_lend_each_other_nothing(
    service: MemoryService,
) -> None:
    """Notes remembered in a row are not a conversation: a search finds the one it names,
    not also the note written after it."""
    first = service.memories.remember(A, "The zanzibar staging box listens on port 7781.").value
    second = service.memories.remember(
        A, "Staging deploys run through the blue pipeline every Tuesday."
    )
    assert first.record is not None and second.value.record is not None
    hits = [h.memory_id for h in service.retrieval.search_memory(A, "zanzibar port", limit=10)]
    assert hits == [first.record.id]


def _cosines_own_and_mixed(
    service: MemoryService, settled: bool = False
) -> tuple[dict[str, float], dict[str, float], np.ndarray]:
    """A's vector hits for the shed question, before and after `widen_vectors`."""
    return own_and_mixed(service, A, SHED_QUESTION, settled=settled)


def _shed_turns(service: MemoryService) -> list[str]:
    return import_turns(
        service,
        [
            (A, "Bo: Which colour did you paint the garden shed in the end?"),
            (A, "Ana: Sage green, after three coats."),
            (B, "Bo: The garden shed paint chart is in the kitchen drawer."),
        ],
        LAST_SPRING,
    )


def _windows_naming(service: MemoryService, memory_id: str) -> list[str]:
    layer = service.index.catalog.vectors
    assert layer is not None
    return [i for i in layer.index.ids() if windows.is_window(i) and memory_id in i]


def test_a_recorded_turns_cosine_is_mixed_with_its_visible_window(service: MemoryService) -> None:
    """`widen_vectors` on the hot path: until the window is embedded, half the score is the
    cosine to the mean of the turn's stored vector and its visible neighbours'; a hidden
    neighbour's vector takes no part (R13). The window is queued, not waited for."""
    question, answer, hidden = ids = _shed_turns(service)
    # The query runs while the turns are still being embedded: a read that embeds the
    # turns it sees itself must still queue the windows they complete (it did not, and the
    # whole conversation's window was missing in ~7 of 100 runs).
    own, mixed, query = _cosines_own_and_mixed(service)
    layer = service.index.catalog.vectors
    stored = layer.index.get_vectors(ids)
    window = stored[answer] + stored[question]  # not the hidden turn said after it
    expected = 0.5 * own[answer] + 0.5 * float(query @ window) / float(np.linalg.norm(window))
    assert mixed[answer] == pytest.approx(expected, abs=1e-5)
    assert mixed[answer] > own[answer]
    assert hidden not in mixed
    assert layer.wait_idle(30)
    records = service.index.catalog.records
    # Queued by the query: the window of what A sees. The whole conversation's windows were
    # queued as the turns were embedded; they name the hidden turn, so A never uses them.
    seen = windows.key(records[question], records[answer], None)
    assert seen in layer.index
    whole = windows.key(records[question], records[answer], records[hidden])
    assert whole in layer.index and whole != seen


def test_the_window_is_embedded_as_one_text_of_the_visible_turns(
    service: MemoryService,
) -> None:
    """#17: once embedded, the window's vector is that of the turns' words in the order they
    were said, each after its speaker, and only the turns the request may see."""
    question, answer, _ = _shed_turns(service)
    own, mixed, query = _cosines_own_and_mixed(service, settled=True)
    layer = service.index.catalog.vectors
    assert layer is not None
    records = service.index.catalog.records
    text = windows.text(records[question], records[answer], None)
    assert text.index("garden shed in the end") < text.index("Sage green")
    assert "kitchen drawer" not in text
    vector = layer.embedder.embed([text], kind="passage")[0]
    expected = 0.5 * own[answer] + 0.5 * float(query @ vector) / float(np.linalg.norm(vector))
    assert mixed[answer] == pytest.approx(expected, abs=1e-3)
    assert windows.key(records[question], records[answer], None) in layer.index
    assert layer.wait_idle(30)
    held = [i for i in layer.index.ids() if windows.is_window(i)]
    assert layer.status()["windows"] == len(held) and layer.status()["vectors"] == 3


def test_deleting_or_editing_a_turn_drops_every_window_that_holds_it(
    service: MemoryService, data_dir: Path
) -> None:
    """R19: a window holds its turns' meaning, so deleting any of them (even without purge)
    removes the window from the index and its file; an edit drops the windows of the old
    words, and those of the new ones are embedded."""
    question, answer, _ = _shed_turns(service)
    _cosines_own_and_mixed(service, settled=True)
    assert _windows_naming(service, question)
    service.review.edit(answer, "Sage green, after four coats.")
    service.index.catalog.sync()
    layer = service.index.catalog.vectors
    assert layer is not None and layer.wait_idle(30)
    # The windows of the old words are gone; those of the new revision were embedded.
    assert not [w for w in _windows_naming(service, answer) if f"{answer}@1" in w]
    assert [w for w in _windows_naming(service, answer) if f"{answer}@2" in w]
    service.review.delete(question, reason="test", purge=True)
    service.index.catalog.sync()
    assert not _windows_naming(service, question)
    service.close()
    again = MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False)
    try:
        layer = again.index.catalog.vectors
        assert layer is not None
        again.index.catalog.sync()
        layer.load_file()
        assert not [i for i in layer.index.ids() if question in i]
    finally:
        again.close()


def test_remembered_notes_keep_their_own_cosine(service: MemoryService) -> None:
    """Notes written when they were said are not turns: their scores are left as they are."""
    for text in ("The garden shed is sage green.", "Chemistry homework is due on Monday."):
        service.memories.remember(A, text)
    own, mixed, _ = _cosines_own_and_mixed(service)
    assert mixed == own
