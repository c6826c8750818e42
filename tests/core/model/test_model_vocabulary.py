"""The model's vocabularies as callers see them: outcome kinds, flags, internal sessions."""

from __future__ import annotations

from core import (
    DIRECT_SESSION,
    GOVERNANCE_SESSION,
    MemoryFlag,
    MemoryService,
    MemoryStatus,
    OutcomeKind,
    internal_session,
    is_internal_session,
)


def test_outcomes_are_outcome_kinds(service: MemoryService) -> None:
    first = service.memories.remember({"user": "ann"}, "I take the 7:40 train to work").value
    again = service.memories.remember({"user": "ann"}, "I take the 7:40 train to work").value
    assert first.outcome is OutcomeKind.ACTIVE
    assert again.outcome is OutcomeKind.MERGED
    # The enum is still the plain word in every serialisation.
    assert f"{first.outcome}" == "active"


def test_a_rejected_secret_is_an_outcome_kind_too(service: MemoryService) -> None:
    out = service.memories.remember({"user": "ann"}, "my bank password is Hunter2!xq").value
    assert out.outcome is OutcomeKind.REJECTED


def test_direct_writes_are_logged_in_an_internal_session(service: MemoryService) -> None:
    service.memories.remember({"user": "ann"}, "Prefers window seats on long flights")
    ids = {s.id for s in service.events.list_sessions()}
    assert DIRECT_SESSION in ids
    assert all(is_internal_session(i) for i in ids)
    assert is_internal_session(GOVERNANCE_SESSION)
    assert internal_session("direct") == DIRECT_SESSION
    assert not is_internal_session("claude-code:2026-03-02")


def test_a_confirmed_record_carries_the_confirmed_flag(service: MemoryService) -> None:
    record = service.memories.suggest({"user": "ann"}, "Ann is allergic to penicillin").value.record
    assert record is not None and record.status == MemoryStatus.CANDIDATE
    approved = service.review.approve(record.id).value
    assert MemoryFlag.USER_CONFIRMED in approved.flags
