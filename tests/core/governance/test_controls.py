"""User controls (R9, R22, R26): each refuses an action its record's status does not allow."""

from __future__ import annotations

import datetime as dt

import pytest

from core import InvalidInputError, InvalidStateError, ManualClock, MemoryService
from tests.core.governance.conftest import SCOPE

API_KEY = "sk-" + "Ab3dE5gH7jK9mN1pQ3rS5tU7vW9xY1zA"


def active(svc: MemoryService, text: str = "remember that web-shop deploys on Fridays") -> str:
    out = svc.memories.remember(SCOPE, text).value
    assert out.record is not None and out.record.status == "active"
    return out.record.id


def candidate(svc: MemoryService, text: str = "Alice prefers pnpm over npm") -> str:
    out = svc.memories.suggest(SCOPE, text).value
    assert out.record is not None and out.record.status == "candidate"
    return out.record.id


def test_approve_deleted_is_invalid_state(service: MemoryService) -> None:
    mid = candidate(service)
    service.review.delete(mid, reason="not needed")
    with pytest.raises(InvalidStateError, match="deleted"):
        service.review.approve(mid)


def test_approve_active_is_invalid_state(service: MemoryService) -> None:
    mid = active(service)
    with pytest.raises(InvalidStateError, match="approve"):
        service.review.approve(mid)


def test_approve_expired_candidate_is_invalid_but_reject_is_allowed(
    service: MemoryService, clock: ManualClock
) -> None:
    mid = candidate(service)
    clock.advance(dt.timedelta(days=30))
    with pytest.raises(InvalidStateError, match="expired"):
        service.review.approve(mid)
    assert service.review.reject(mid).value.status == "rejected"


def test_enable_active_is_invalid_state(service: MemoryService) -> None:
    mid = active(service)
    with pytest.raises(InvalidStateError, match="enable"):
        service.review.enable(mid)


def test_disable_then_enable(service: MemoryService) -> None:
    mid = active(service)
    assert service.review.disable(mid).value.status == "disabled"
    with pytest.raises(InvalidStateError):
        service.review.disable(mid)
    assert service.review.enable(mid).value.status == "active"


def test_reject_active_is_invalid_state(service: MemoryService) -> None:
    mid = active(service)
    with pytest.raises(InvalidStateError, match="reject"):
        service.review.reject(mid)


def test_downgrade_that_widens_names_scope(service: MemoryService) -> None:
    mid = active(service)
    with pytest.raises(InvalidInputError) as err:
        service.review.downgrade(mid, {"user": "alice"})
    assert err.value.field == "scope"
    with pytest.raises(InvalidInputError) as same:
        service.review.downgrade(mid, SCOPE)
    assert same.value.field == "scope"


def test_widen_that_narrows_names_scope(service: MemoryService) -> None:
    mid = active(service)
    with pytest.raises(InvalidInputError) as err:
        service.review.widen(mid, {**SCOPE, "repo": "web-shop-ui"})
    assert err.value.field == "scope"


def test_downgrade_narrows_and_keeps_history(service: MemoryService) -> None:
    out = service.memories.remember({"user": "alice"}, "remember that I prefer pnpm").value
    assert out.record is not None
    record = service.review.downgrade(out.record.id, SCOPE).value
    assert dict(record.scope) == SCOPE
    scopes = [dict(r[3]) for r in service.memories.revisions(out.record.id)]
    assert scopes == [{"user": "alice"}, SCOPE]


def test_edit_rejects_secrets_and_deleted_records(service: MemoryService) -> None:
    mid = active(service)
    with pytest.raises(InvalidInputError) as err:
        service.review.edit(mid, f"the key is {API_KEY}")
    assert err.value.field == "new_text" and API_KEY not in str(err.value)
    service.review.delete(mid, reason="gone")
    with pytest.raises(InvalidStateError):
        service.review.edit(mid, "web-shop deploys on Mondays")


def test_quarantine_twice_is_invalid_state(service: MemoryService) -> None:
    mid = active(service)
    service.review.quarantine(mid, "poisoned source")
    with pytest.raises(InvalidStateError, match="quarantined"):
        service.review.quarantine(mid, "again")


def test_delete_twice_is_invalid_state(service: MemoryService) -> None:
    mid = active(service)
    service.review.delete(mid, reason="gone")
    with pytest.raises(InvalidStateError, match="already deleted"):
        service.review.delete(mid, reason="gone again")


def test_resolve_conflict_needs_a_conflict(service: MemoryService) -> None:
    mid = active(service)
    with pytest.raises(InvalidStateError, match="conflict"):
        service.review.resolve_conflict(mid)


def test_every_control_writes_a_decision_with_actor_and_policy_version(
    service: MemoryService,
) -> None:
    mid = candidate(service)
    service.review.approve(mid, by="alice")
    service.review.disable(mid, by="alice", reason="noisy")
    service.review.enable(mid, by="alice")
    history = service.memories.history(mid)
    assert sorted(d.action for d in history) == ["approve", "disable", "enable", "suggest"]
    assert all(d.policy_version for d in history)
    assert {d.actor for d in history if d.action != "suggest"} == {"alice"}


def test_history_is_in_decision_order(service: MemoryService) -> None:
    mid = candidate(service)
    service.review.approve(mid)
    for n in range(3):
        service.review.edit(mid, f"Alice prefers pnpm over npm (revision {n})")
        service.review.disable(mid)
        service.review.enable(mid)
    actions = [d.action for d in service.memories.history(mid)]
    assert actions == ["suggest", "approve"] + ["edit", "disable", "enable"] * 3
