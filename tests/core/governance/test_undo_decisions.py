"""Undo of approve, reject and quarantine as compensating decisions (#14)."""

from __future__ import annotations

import pytest

from core import InvalidStateError, MemoryService


def _suggested(service: MemoryService, text: str) -> str:
    outcome = service.memories.suggest({"user": "ann"}, text).value
    assert outcome.record is not None
    record = outcome.record
    assert record.status.value == "candidate"
    return record.id


def test_undo_approve_restores_status_flags_and_review_wait(service: MemoryService) -> None:
    """Approve ends the review wait; undo brings back the candidate exactly, and the history
    keeps both decisions."""
    mid = _suggested(service, "Ann seems to prefer window seats on long flights.")
    before = service.memories.get_memory(mid)
    approved = service.review.approve(mid).value
    assert approved.status.value == "active" and approved.flags != before.flags
    result = service.review.undo(mid, "approve")
    after = result.value
    assert after.status.value == "candidate"
    assert after.flags == before.flags and after.expires_at == before.expires_at
    assert result.changes.memory_ids == (mid,)
    actions = [d.action for d in service.memories.history(mid)]
    assert actions[-2:] == ["approve", "undo_approve"]
    assert service.memories.history(mid)[-1].to_status.value == "candidate"


def test_undo_reject_and_quarantine(service: MemoryService) -> None:
    """A rejected suggestion comes back to review; a quarantined memory becomes active again."""
    mid = _suggested(service, "Ann might like aisle seats for short hops.")
    service.review.reject(mid, reason="not true")
    assert service.review.undo(mid, "reject").value.status.value == "candidate"
    active = service.memories.remember(
        {"user": "ann"}, "Remember that Ann's passport expires in 2031."
    )
    assert active.value.record is not None
    aid = active.value.record.id
    service.review.quarantine(aid, "checking")
    assert service.review.undo(aid, "quarantine").value.status.value == "active"
    assert service.memories.history(aid)[-1].action == "undo_quarantine"


def test_undo_refuses_what_it_cannot_undo(service: MemoryService) -> None:
    """Only the latest decision of a memory; nothing changes on refusal."""
    mid = _suggested(service, "Ann may want vegetarian meals on flights.")
    service.review.approve(mid)
    service.review.disable(mid)
    with pytest.raises(InvalidStateError, match="latest decision is disable"):
        service.review.undo(mid, "approve")
    assert service.memories.get_memory(mid).status.value == "disabled"
    assert service.memories.history(mid)[-1].action == "disable"
