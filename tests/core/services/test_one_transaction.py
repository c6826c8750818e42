"""#15.2: every user action is one core operation, one write transaction, one change set.

Edit-and-approve, change-scope-and-approve, keep-one and keep-all of a conflict set (with
the suggested members confirmed) each bump the store revision by exactly one and append one
row to the change feed; a refused step writes nothing at all."""

from __future__ import annotations

import pytest

from core import InvalidInputError, MemoryService

ALICE = {"user": "alice"}
TEAM = {"org": "acme", "project": "checkout"}


def _candidate(service: MemoryService, text: str, scope: dict[str, str] = ALICE) -> str:
    out = service.memories.suggest(scope, text, by="agent").value
    assert out.record is not None and out.record.status.value == "candidate", out
    return out.record.id


def _one_change(service: MemoryService, before: int) -> None:
    assert service.events.revision() == before + 1
    feed = service.events.changes_since(before)
    assert len(feed) == 1, feed


def test_edit_and_approve_is_one_transaction(service: MemoryService) -> None:
    mid = _candidate(service, "I take my coffee with oat milk.")
    before = service.events.revision()
    result = service.review.edit_and_approve(mid, "I take my coffee with oat milk, no sugar.")
    _one_change(service, before)
    assert result.changes.revision == before + 1
    record = service.memories.get_memory(mid)
    assert record.status.value == "active"
    assert record.content == "I take my coffee with oat milk, no sugar."
    assert [d.action for d in service.memories.history(mid)][-2:] == ["edit", "approve"]
    # The approval is the latest decision, so the user can still undo it.
    service.review.undo(mid, "approve")
    assert service.memories.get_memory(mid).status.value == "candidate"


def test_edit_and_approve_with_unchanged_text_writes_no_revision(service: MemoryService) -> None:
    text = "我每天早上七点跑步。"
    mid = _candidate(service, text)
    revisions = len(service.memories.revisions(mid))
    before = service.events.revision()
    service.review.edit_and_approve(mid, text)
    _one_change(service, before)
    assert len(service.memories.revisions(mid)) == revisions
    assert service.memories.get_memory(mid).status.value == "active"


def test_a_refused_edit_approves_nothing(service: MemoryService) -> None:
    mid = _candidate(service, "The family doctor is Dr. Lin at the Elm Street clinic.")
    before = service.events.revision()
    with pytest.raises(InvalidInputError, match="new_text"):
        service.review.edit_and_approve(mid, "")
    assert service.events.revision() == before
    assert service.memories.get_memory(mid).status.value == "candidate"


def test_narrowing_scope_and_approving_is_one_transaction(service: MemoryService) -> None:
    mid = _candidate(service, "Book hotels near the train station when travelling.")
    before = service.events.revision()
    narrower = {**ALICE, "project": "kyoto-trip"}
    record = service.review.rescope_and_approve(mid, narrower).value
    _one_change(service, before)
    assert dict(record.scope.items_) == narrower and record.status.value == "active"
    assert [d.action for d in service.memories.history(mid)][-2:] == ["downgrade", "approve"]


def test_widening_scope_and_approving_is_one_transaction(service: MemoryService) -> None:
    scoped = {**ALICE, "project": "budget"}
    mid = _candidate(service, "Monthly savings go to the index fund first.", scoped)
    before = service.events.revision()
    record = service.review.rescope_and_approve(mid, ALICE).value
    _one_change(service, before)
    assert dict(record.scope.items_) == ALICE and record.status.value == "active"
    assert [d.action for d in service.memories.history(mid)][-2:] == ["widen", "approve"]


def test_a_scope_that_neither_narrows_nor_widens_writes_nothing(service: MemoryService) -> None:
    mid = _candidate(service, "Water the tomato plants every second evening.")
    before = service.events.revision()
    with pytest.raises(InvalidInputError, match="scope"):
        service.review.rescope_and_approve(mid, {"user": "bob"})
    assert service.events.revision() == before
    assert service.memories.get_memory(mid).status.value == "candidate"


def _conflict(service: MemoryService) -> tuple[str, str]:
    eu = service.memories.remember(
        TEAM, "Staging for checkout runs in AWS region eu-west-1.", by="alice"
    )
    us = service.memories.remember(
        TEAM, "Staging for checkout runs in AWS region us-east-2.", by="bob"
    )
    a, b = eu.value.record, us.value.record
    assert a is not None and b is not None and "conflict" in b.flags
    return a.id, b.id


def test_resolve_with_approve_is_one_transaction(service: MemoryService) -> None:
    eu, us = _conflict(service)
    before = service.events.revision()
    kept = service.review.resolve_conflict(eu, reason="eu is right", approve=True).value
    _one_change(service, before)
    assert {r.id: r.status.value for r in kept} == {eu: "active", us: "superseded"}


def test_keep_conflicting_with_approve_is_one_transaction(service: MemoryService) -> None:
    eu, us = _conflict(service)
    before = service.events.revision()
    scopes = {eu: {**TEAM, "environment": "eu"}, us: {**TEAM, "environment": "us"}}
    kept = service.review.keep_conflicting(scopes, approve=True).value
    _one_change(service, before)
    assert {r.status.value for r in kept} == {"active"}
    assert all("conflict" not in r.flags for r in kept)
