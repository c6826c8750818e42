"""#39: every change is journalled and can be undone, and the undo redone, on both backends.

For each kind of change: make it, undo it (every memory it touched is as before), undo the
undo (as after), and `verify` still finds the store whole. Refusals name what stands in the
way and change nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from core import InvalidStateError, MemoryService
from core.errors import DamagedRowError
from core.model.records import Result
from tests.conftest import ManualClock
from tests.support.pg_fixtures import ServiceOpener

ANN = {"user": "ann"}
TEAM = {"org": "acme", "project": "checkout"}


@pytest.fixture
def svc(backend: ServiceOpener, data_dir: Path, clock: ManualClock) -> Iterator[MemoryService]:
    service = backend(data_dir, clock)
    yield service
    service.close()


def _view(service: MemoryService, mid: str) -> tuple[Any, ...]:
    """What a user sees of a memory, plus the sessions it is kept out of."""
    r = service.memories.get_memory(mid)
    excluded = service.review.changes(memory_id=mid, limit=1)
    sessions = tuple(excluded[0].entries[0].after["excluded"]) if excluded else ()
    return (
        r.status.value,
        tuple(sorted(r.flags)),
        r.expires_at,
        r.scope,
        r.content,
        r.conflict_set,
        r.superseded_by,
        sessions,
    )


def _round_trip(
    service: MemoryService, mids: list[str], change: Callable[[], Result[Any]]
) -> tuple[str, str]:
    """Make `change`, undo it, redo it; return (its command id, the undo's)."""
    before = {m: _view(service, m) for m in mids}
    result = change()
    command = result.changes.command_id
    assert command is not None, "the change was not journalled"
    after = {m: _view(service, m) for m in mids}
    assert after != before, "the change changed nothing"
    undone = service.review.undo_change(command)
    assert {m: _view(service, m) for m in mids} == before
    assert undone.changes.command_id is not None
    service.review.undo_change(undone.changes.command_id)  # redo
    assert {m: _view(service, m) for m in mids} == after
    report = service.verify()
    assert report.ok, report
    return command, undone.changes.command_id


def _candidate(service: MemoryService, words: str) -> str:
    record = service.memories.suggest(ANN, words).value.record
    assert record is not None and record.status.value == "candidate"
    return record.id


def _active(service: MemoryService, words: str, scope: dict[str, str] = ANN) -> str:
    record = service.memories.remember(scope, words).value.record
    assert record is not None and record.status.value == "active"
    return record.id


def test_review_decisions_round_trip(svc: MemoryService) -> None:
    a = _candidate(svc, "Ann seems to prefer window seats on long flights.")
    _round_trip(svc, [a], lambda: svc.review.approve(a))
    b = _candidate(svc, "Ann might like aisle seats for short hops.")
    _round_trip(svc, [b], lambda: svc.review.reject(b, reason="not true"))
    c = _candidate(svc, "Ann may want vegetarian meals on flights.")
    _round_trip(svc, [c], lambda: svc.review.edit_and_approve(c, "Ann wants vegetarian meals."))
    d = _candidate(svc, "Ann probably books trains for trips under four hours.")
    _round_trip(svc, [d], lambda: svc.review.rescope_and_approve(d, {**ANN, "project": "travel"}))
    e, f = (_candidate(svc, w) for w in ("Ann likes early flights.", "Ann packs light."))
    _round_trip(svc, [e, f], lambda: svc.review.approve_many([e, f]))


def test_memory_controls_round_trip(svc: MemoryService) -> None:
    mid = _active(svc, "Remember that Ann's passport expires in 2031.")
    _round_trip(svc, [mid], lambda: svc.review.edit(mid, "Ann's passport expires in March 2031."))
    _round_trip(svc, [mid], lambda: svc.review.downgrade(mid, {**ANN, "project": "travel"}))
    _round_trip(svc, [mid], lambda: svc.review.disable(mid))  # redone: disabled again
    _round_trip(svc, [mid], lambda: svc.review.enable(mid))
    _round_trip(svc, [mid], lambda: svc.review.exclude(mid, "s1"))  # redone: excluded again
    _round_trip(svc, [mid], lambda: svc.review.include(mid, "s1"))
    _round_trip(svc, [mid], lambda: svc.review.quarantine(mid, "checking a report"))
    narrow = _active(svc, "Ann's frequent flyer tier is gold.", {**ANN, "project": "travel"})
    _round_trip(svc, [narrow], lambda: svc.review.widen(narrow, ANN))


def test_undo_of_a_change_puts_back_what_the_change_brought_in(svc: MemoryService) -> None:
    """A new memory is withdrawn by undo (kept, never injected), and comes back on redo; a
    memory it superseded is active again meanwhile."""
    old = _active(svc, "Ann's office is in room 12.")
    result = svc.memories.remember(ANN, "Ann's office moved to room 14.")
    new = result.value.record
    assert new is not None
    assert svc.memories.get_memory(old).status.value == "superseded"
    undone = svc.review.undo_change(str(result.changes.command_id))
    assert svc.memories.get_memory(old).status.value == "active"
    assert svc.memories.get_memory(new.id).status.value == "rejected"
    assert "room 14" not in svc.retrieval.inject(ANN, "where is Ann's office", 300).value.text
    svc.review.undo_change(str(undone.changes.command_id))
    assert svc.memories.get_memory(new.id).status.value == "active"
    assert svc.memories.get_memory(old).status.value == "superseded"
    assert svc.verify().ok


def test_conflict_settlements_round_trip(svc: MemoryService) -> None:
    eu = _active(svc, "Staging for checkout runs in AWS region eu-west-1.", TEAM)
    us_record = svc.memories.remember(
        TEAM, "Staging for checkout runs in AWS region us-east-2."
    ).value
    assert us_record.record is not None and "conflict" in us_record.record.flags
    us = us_record.record.id
    _round_trip(
        svc,
        [eu, us],
        lambda: svc.review.keep_conflicting(
            {eu: {**TEAM, "environment": "eu"}, us: {**TEAM, "environment": "us"}}
        ),
    )
    undo_of_keep = svc.review.changes(limit=2)[1]  # the undo sits under its redo
    assert undo_of_keep.undoes is not None
    svc.review.undo_change(svc.review.changes(limit=1)[0].id)  # back to the open conflict set
    _round_trip(svc, [eu, us], lambda: svc.review.resolve_conflict(eu))


def test_refusals_name_the_obstacle_and_change_nothing(svc: MemoryService) -> None:
    mid = _active(svc, "Remember that Ann's car is a blue Volvo.")
    disabled = svc.review.disable(mid).changes.command_id
    svc.review.enable(mid)
    with pytest.raises(InvalidStateError, match=r"changed since \(status\)"):
        svc.review.undo_change(str(disabled))
    assert svc.memories.get_memory(mid).status.value == "active"

    undone = svc.review.undo_change(
        str(svc.review.edit(mid, "Ann's car is a green Volvo.").changes.command_id)
    )
    first = undone.changes.command_id
    with pytest.raises(InvalidStateError, match="already undone"):
        svc.review.undo_change(str(svc.review.changes(limit=2)[1].id))
    assert first is not None

    deleted = svc.review.delete(mid, reason="sold").changes.command_id
    with pytest.raises(InvalidStateError, match="a deletion is final"):
        svc.review.undo_change(str(deleted))
    assert svc.memories.get_memory(mid).status.value == "deleted"
    with pytest.raises(Exception, match="change"):
        svc.review.undo_change("cmd_unknown")
    assert svc.verify().ok


def test_a_journal_entry_changed_by_sql_is_refused(data_dir: Path, clock: ManualClock) -> None:
    """A writer with the database file but not the keys cannot make undo restore what he
    wants: the entry's MAC no longer matches."""
    service = MemoryService.open(
        data_dir, passphrase="pw-journal", clock=clock, prefer_keyring=False
    )
    try:
        mid = _candidate(service, "Ann perhaps likes jazz.")
        command = service.review.reject(mid).changes.command_id
        forged = '{"status": "active"}'
        with service._store.write_engine.begin() as conn:
            conn.execute(
                text("UPDATE transitions SET before_json = :b WHERE command_id = :c"),
                {"b": forged, "c": command},
            )
        with pytest.raises(DamagedRowError, match="changed outside"):
            service.review.undo_change(str(command))
        assert service.memories.get_memory(mid).status.value == "rejected"
        report = service.verify()
        assert not report.ok and report.first_failure is not None
        assert report.first_failure.table == "transitions"
    finally:
        service.close()


def test_the_changes_of_an_unknown_memory_are_not_found(svc: MemoryService) -> None:
    """A mistyped id is named, not answered with an empty history; a memory with no
    journalled change yet, and a deleted one, answer with what there is."""
    from core import NotFoundError

    with pytest.raises(NotFoundError, match="mem_nothing_here"):
        svc.review.changes(memory_id="mem_nothing_here")
    kept = svc.memories.remember({"user": "ana"}, "Ana takes the 7:40 train.").value.record
    assert kept is not None
    assert isinstance(svc.review.changes(memory_id=kept.id), list)
    svc.review.delete(kept.id, reason="moved", purge=True)
    assert isinstance(svc.review.changes(memory_id=kept.id), list)
