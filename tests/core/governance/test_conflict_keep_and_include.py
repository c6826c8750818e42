"""R9, R26: keeping every member of a conflict set (split by scope), and undoing exclude."""

from __future__ import annotations

import pytest

from core import InvalidInputError, InvalidStateError, MemoryService

TEAM = {"org": "acme", "project": "checkout"}


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


def test_split_by_scope_keeps_both_and_ends_the_conflict(service: MemoryService) -> None:
    """Each memory is narrowed to its own environment; neither is superseded or flagged."""
    eu, us = _conflict(service)
    result = service.review.keep_conflicting(
        {eu: {**TEAM, "environment": "eu"}, us: {**TEAM, "environment": "us"}},
        reason="two staging stacks",
    ).value
    assert {r.status.value for r in result} == {"active"}
    assert all("conflict" not in r.flags for r in result)
    eu_view = {**TEAM, "environment": "eu", "user": "carol"}
    text = service.retrieval.inject(eu_view, "Deploy checkout to staging", 400).value.text
    assert "eu-west-1" in text and "us-east-2" not in text and "CONFLICT" not in text
    assert [d.action for d in service.memories.history(eu)][-2:] == [
        "downgrade",
        "resolve_conflict",
    ]


def test_keep_both_without_rescoping(service: MemoryService) -> None:
    eu, us = _conflict(service)
    service.review.keep_conflicting({eu: None, us: None})
    hits = service.retrieval.search_memory({**TEAM, "user": "carol"}, "checkout staging region")
    assert {h.memory_id for h in hits} == {eu, us} and all(not h.notes for h in hits)


def test_keep_requires_every_member_and_a_real_conflict(service: MemoryService) -> None:
    eu, us = _conflict(service)
    with pytest.raises(InvalidInputError, match="missing"):
        service.review.keep_conflicting({eu: None})
    service.review.resolve_conflict(eu)
    with pytest.raises(InvalidStateError):
        service.review.keep_conflicting({eu: None, us: None})


def test_include_undoes_exclude(service: MemoryService) -> None:
    """R26: excluded from one session, then included again."""
    mid = service.memories.remember(
        TEAM, "Checkout uses feature flags from LaunchDarkly."
    ).value.record
    assert mid is not None
    service.review.exclude(mid.id, "s1")
    assert (
        service.retrieval.inject(TEAM, "checkout feature flags", 300, session="s1").value.items
        == ()
    )
    service.review.include(mid.id, "s1")
    assert service.retrieval.inject(TEAM, "checkout feature flags", 300, session="s1").value.items
    with pytest.raises(InvalidStateError):
        service.review.include(mid.id, "s1")
    assert [d.action for d in service.memories.history(mid.id)][-2:] == ["exclude", "include"]
