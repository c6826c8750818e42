"""Batches on the write path (#13): remember_many, suggest_many, approve_many, extract_many,
and the neighbour index the policy now compares candidates with."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from core import (
    InvalidInputError,
    InvalidStateError,
    ManualClock,
    MemoryFilter,
    MemoryService,
    NotFoundError,
)
from tests.conftest import PASSPHRASE

SCOPE = {"user": "alice", "project": "web-shop"}
FAMILY = {"user": "alice", "project": "family"}


def _state(service: MemoryService) -> tuple[int, int, int]:
    """Revision, memory count and event count: what a refused batch must leave unchanged."""
    status = service.status()
    return status.revision, sum(status.memory_counts.values()), status.event_count


def _filler(n: int) -> list[str]:
    """Distinct, unrelated facts for one scope (a big scope around the pair under test)."""
    people = ["Mara", "Ivo", "Lena", "Tariq", "Yuki", "Nils", "Ana", "Femi", "Oskar", "Rhea"]
    things = ["piano", "chess", "tennis", "pottery", "sailing", "climbing", "baking", "poetry"]
    return [
        f"{people[i % 10]} takes {things[i % 8]} lessons in room {i} on floor {i % 7 + 1}."
        for i in range(n)
    ]


def test_remember_many_writes_every_item_in_one_transaction(service: MemoryService) -> None:
    """One revision step and one change entry for the whole batch; each item decided."""
    before = service.events.revision()
    texts = [
        "web-shop uses pnpm 9.",
        "The staging database is Postgres 16.",
        "请记住：周五不部署。",
    ]
    out = service.memories.remember_many([{"scope": SCOPE, "text": t} for t in texts])
    assert [o.outcome for o in out.value] == ["active", "active", "active"]
    assert out.changes.revision == before + 1
    assert len(service.events.changes_since(before)) == 1
    stored = {r.content for r in service.memories.list_memories()}
    assert stored == {texts[0], texts[1], "周五不部署。"}  # the request wording is stripped


def test_items_of_a_batch_see_each_other(service: MemoryService) -> None:
    """R9 inside one batch: a repeat merges, a replacement supersedes its predecessor."""
    out = service.memories.remember_many(
        [
            {"scope": SCOPE, "text": "web-shop uses yarn classic (v1.22) as its package manager."},
            {"scope": SCOPE, "text": "web-shop uses yarn classic (v1.22) as its package manager."},
            {"scope": SCOPE, "text": "web-shop now uses pnpm 9 instead of yarn; run pnpm install."},
        ]
    ).value
    first, repeat, replacement = out
    assert first.record is not None and replacement.record is not None
    assert repeat.outcome == "merged" and repeat.record is not None
    assert repeat.record.id == first.record.id
    assert replacement.superseded == (first.record.id,)
    assert service.memories.get_memory(first.record.id).status == "superseded"


def test_a_bad_item_is_named_and_nothing_is_written(service: MemoryService) -> None:
    service.memories.remember(SCOPE, "web-shop uses pnpm 9.")
    before = _state(service)
    items = [
        {"scope": SCOPE, "text": "The build runs on Node 20."},
        {"scope": SCOPE, "text": "Deploys happen on Tuesdays."},
        {"scope": SCOPE, "text": "   "},
    ]
    with pytest.raises(InvalidInputError) as bad:
        service.memories.remember_many(items)
    assert bad.value.field == "items[2].text"
    assert _state(service) == before
    with pytest.raises(InvalidInputError, match=r"items\[1\]\.colour: unknown field"):
        service.memories.remember_many([items[0], {"scope": SCOPE, "text": "x", "colour": "red"}])
    with pytest.raises(InvalidInputError, match=r"items\[0\]"):
        service.memories.remember_many([{"text": "no scope"}])
    with pytest.raises(InvalidInputError, match=r"items\[1\]: must be an object"):
        service.memories.remember_many([items[0], "just text"])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError, match="items: must be a list"):
        service.memories.remember_many("not a list")  # type: ignore[arg-type]
    assert _state(service) == before
    # The refused batches left nothing behind in the neighbour index either.
    again = service.memories.remember(SCOPE, "The build runs on Node 20.").value
    assert again.outcome == "active"


def test_approve_many_is_one_transaction_and_all_or_nothing(service: MemoryService) -> None:
    texts = [f"The {name} worker retries {n} times." for n, name in enumerate("abcdef", 2)]
    ids = [
        o.record.id
        for o in service.memories.suggest_many([{"scope": SCOPE, "text": t} for t in texts]).value
        if o.record is not None
    ]
    assert len(ids) == 6
    active = service.memories.remember(SCOPE, "Releases are tagged on main.").value.record
    assert active is not None
    before = _state(service)
    with pytest.raises(NotFoundError):
        service.review.approve_many([*ids[:3], "mem_does_not_exist"])
    with pytest.raises(InvalidStateError, match=active.id):
        service.review.approve_many([*ids[:3], active.id])
    assert _state(service) == before
    assert {service.memories.get_memory(m).status for m in ids} == {"candidate"}
    done = service.review.approve_many([*ids, ids[0]])  # a repeated id is approved once
    assert [r.id for r in done.value] == ids
    assert {r.status for r in done.value} == {"active"}
    assert done.changes.revision == before[0] + 1
    assert [d.action for d in service.memories.history(ids[0])][-1] == "approve"
    service.review.undo(ids[0], "approve")  # each approval keeps its own undo record
    assert service.memories.get_memory(ids[0]).status == "candidate"


def test_a_duplicate_is_found_in_a_big_scope(service: MemoryService, clock: ManualClock) -> None:
    """The policy compares with index neighbours; in a scope of hundreds the right one is
    still among them: a repeat merges, a changed value conflicts, a replacement supersedes."""
    target = service.memories.remember(
        FAMILY, "Grandma's cardiology check-up is on 12 June at 9:30."
    )
    old = target.value.record
    assert old is not None
    service.memories.remember_many([{"scope": FAMILY, "text": t} for t in _filler(400)])
    clock.advance(dt.timedelta(days=1))
    repeat = service.memories.remember(
        FAMILY, "Grandma's cardiology check-up is on 12 June at 9:30."
    )
    assert repeat.value.outcome == "merged"
    assert repeat.value.record is not None and repeat.value.record.id == old.id
    moved = service.memories.remember(
        FAMILY, "Grandma's cardiology check-up is now on 14 June at 14:00."
    ).value
    assert moved.superseded == (old.id,)


def test_another_process_write_is_seen_by_the_neighbour_index(
    service: MemoryService, data_dir: Path, clock: ManualClock
) -> None:
    """The index follows the change feed inside the write transaction."""
    service.memories.remember(SCOPE, "The CI runs on GitHub Actions.")  # loads the scope's index
    other = MemoryService.open(data_dir, passphrase=PASSPHRASE, clock=clock, prefer_keyring=False)
    try:
        written = other.memories.remember(SCOPE, "The staging server is in Frankfurt.").value.record
        assert written is not None
        other.review.delete(
            service.memories.list_memories(MemoryFilter(text="GitHub Actions"))[0].id,
            reason="moved",
        )
    finally:
        other.close()
    again = service.memories.remember(SCOPE, "The staging server is in Frankfurt.").value
    assert again.outcome == "merged" and again.record is not None
    assert again.record.id == written.id
    fresh = service.memories.remember(SCOPE, "The CI runs on GitHub Actions.").value
    assert fresh.outcome == "active"  # the deleted one is no longer a merge target


def test_a_fence_added_after_the_cache_filled_still_holds(service: MemoryService) -> None:
    """R19: cached fence features are re-read when a fence is added or lifted."""
    service.memories.suggest(SCOPE, "The user likes jazz.")  # fills the (empty) fence cache
    mid = service.memories.remember(SCOPE, "Kim is allergic to penicillin.").value.record
    assert mid is not None
    service.review.delete(mid.id, reason="private")
    fenced = service.memories.suggest(SCOPE, "Kim is allergic to penicillin.").value
    assert fenced.outcome == "rejected" and "deletion fence" in fenced.reasons[0]
    reworded = service.memories.suggest(SCOPE, "Penicillin: Kim is allergic to it.").value
    assert reworded.outcome == "rejected"
    service.memories.lift_fence(mid.id)
    after = service.memories.suggest(SCOPE, "Penicillin: Kim is allergic to it!").value
    # Not the fence any more: what stops it now is the rejected suggestion of the same text.
    assert not any("deletion fence" in r for r in after.reasons), after.reasons


def test_extract_many_decides_every_session_in_one_transaction(
    service: MemoryService,
) -> None:
    from core import NewEvent

    for name in ("s1", "s2"):
        service.events.append_event(
            NewEvent(
                session=name,
                actor="user",
                trust="user",
                scope=SCOPE,
                text=f"We always run make check before pushing ({name}).",
            )
        )
    service.events.set_session_opt_out("s2", True)
    before = service.events.revision()
    out = service.memories.extract_many(["s1", "s2"])
    assert out.value and all(o.record is not None for o in out.value)
    assert {e for o in out.value if o.record for e in o.record.source_event_ids}
    assert out.changes.revision == before + 1
    sources = {
        service.events.get_events([e])[0].session_id
        for o in out.value
        if o.record
        for e in o.record.source_event_ids
    }
    assert sources == {"s1"}  # the opted-out session is not extracted (R26)


def test_scopes_evicted_from_the_neighbour_index_load_again(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long-running process keeps few scopes loaded; an evicted one is read again."""
    from core.governance import neighbours

    monkeypatch.setattr(neighbours, "MAX_SCOPES", 2)
    first = service.memories.remember(SCOPE, "The CI runs on GitHub Actions.").value.record
    assert first is not None
    for project in ("a", "b", "c"):
        service.memories.remember(
            {"user": "alice", "project": project}, f"Project {project} uses Rust."
        )
    again = service.memories.remember(SCOPE, "The CI runs on GitHub Actions.").value
    assert again.outcome == "merged" and again.record is not None
    assert again.record.id == first.id


def test_a_batch_past_the_feed_limit_keeps_the_scope_loaded_and_exact(
    service: MemoryService, data_dir: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch of 600 is fed as "everything"; the neighbour index re-reads the batch's own
    writes instead of loading the scope again (#13), yet still sees another process's."""
    from core.storage import memory_queries

    loads: list[object] = []
    real = memory_queries.query

    def counted(*args: object, **kwargs: object) -> object:
        loads.append(args)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(memory_queries, "query", counted)
    texts = _filler(600)
    service.memories.remember_many([{"scope": FAMILY, "text": t} for t in texts])
    assert len(loads) == 1  # the scope's first use
    repeat = service.memories.remember(FAMILY, texts[123]).value
    assert repeat.outcome == "merged"
    assert len(loads) == 1  # not loaded again after the big batch
    other = MemoryService.open(data_dir, passphrase=PASSPHRASE, clock=clock, prefer_keyring=False)
    try:
        written = other.memories.remember(FAMILY, "The piano tuner comes every March.").value.record
        assert written is not None
    finally:
        other.close()
    again = service.memories.remember(FAMILY, "The piano tuner comes every March.").value
    assert again.outcome == "merged" and again.record is not None
    assert again.record.id == written.id


def test_the_next_batch_files_again_only_what_changed(service: MemoryService) -> None:
    """#13: at its first use in the next transaction the neighbour index re-reads what the
    last one wrote; a record read back exactly as it was filed keeps its slot instead of
    leaving a dead one (which had made a batch's records half the slots of a big scope)."""
    syllables = ["ka", "lo", "mi", "ren", "to", "sa", "vi", "nor", "pel", "du"]
    words = [a + b + c for a in syllables for b in syllables for c in syllables]
    texts = [f"{words[i].capitalize()} owns a {words[i + 500]} kite." for i in range(300)]
    first = service.memories.remember_many(
        [{"scope": FAMILY, "text": t} for t in texts[:200]]
    ).value
    assert {str(o.outcome) for o in first} == {"active"}  # unrelated facts: nothing changed
    neighbours = service._engine.ledger.neighbours  # its slots are what is measured
    scope_index = next(iter(neighbours._scopes.values()))
    assert len(scope_index.slots) == 200 and not scope_index.dead
    # The next batch re-reads the first batch's 200 records; one duplicate merges (its
    # target changes), the rest is new.
    out = service.memories.remember_many(
        [{"scope": FAMILY, "text": t} for t in [texts[5], *texts[200:]]]
    )
    assert [str(o.outcome) for o in out.value] == ["merged"] + ["active"] * 100
    assert len(scope_index.dead) == 1  # the merged record, filed again
    assert len(scope_index.slots) == 200 + 1 + 100
    again = service.memories.remember(FAMILY, texts[250]).value
    assert again.outcome == "merged"


def test_a_long_extraction_is_decided_in_turns_and_other_writers_get_the_store_between(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import's extraction of 3,000 proposals held the write lock for 144 s, and a user's
    `remember` from another process failed with "the store is busy". Now proposals are
    decided in turns of at most `TURN_SECONDS` (here: one proposal per turn)."""
    from core import NewEvent
    from core.services import memories as memory_service

    monkeypatch.setattr(memory_service, "TURN_SECONDS", 0.0)
    monkeypatch.setattr(memory_service, "YIELD_SECONDS", 0.0)
    facts = ["We always run make check before pushing.", "Our staging database is Postgres 15."]
    for text in facts:
        service.events.append_event(
            NewEvent(session="s1", actor="user", trust="user", scope=SCOPE, text=text)
        )
    before = service.events.revision()
    out = service.memories.extract_many(["s1"])
    made = [o.record.id for o in out.value if o.record is not None]
    assert len(made) == 2
    assert out.changes.revision == before + 2  # one transaction per turn
    assert set(made) <= set(out.changes.memory_ids)
    assert out.changes.command_id is None  # each turn is a journal entry of its own
    # Run again: what the turns decided is recognised, nothing is doubled.
    again = service.memories.extract_many(["s1"])
    assert not [o for o in again.value if o.record is not None and o.record.id not in made]
    assert len(service.memories.list_memories()) == 2
