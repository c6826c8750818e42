"""R13: no memory from a scope the request may not see is ever returned or injected.

Property-based: random stores (memories under random scopes, some deleted, disabled or
downgraded) and thousands of random requests against them, through the public service.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import ManualClock, MemoryService, Scope
from tests.conftest import PASSPHRASE, START

USERS = ["alice", "bob", "li.na"]
ORGS = ["acme", "globex"]
PROJECTS = ["web-shop", "billing", "ops-console"]
TOPICS = ["deploy", "database port", "package manager", "code review", "lunch", "release"]

scopes = st.fixed_dictionaries(
    {},
    optional={
        "user": st.sampled_from(USERS),
        "org": st.sampled_from(ORGS),
        "project": st.sampled_from(PROJECTS),
        "environment": st.sampled_from(["staging", "prod"]),
    },
).filter(bool)

memory_specs = st.lists(
    st.tuples(scopes, st.sampled_from(TOPICS), st.sampled_from(["keep", "disable", "delete"])),
    min_size=1,
    max_size=12,
)


def _store(specs: list[tuple[dict[str, str], str, str]], root: Path) -> MemoryService:
    svc = MemoryService.open(
        root, passphrase=PASSPHRASE, clock=ManualClock(START), prefer_keyring=False
    )
    for i, (scope, topic, fate) in enumerate(specs):
        text = f"Remember: note {i} about the {topic} for {' '.join(scope.values())} (m{i}x)."
        record = svc.memories.remember(scope, text).value.record
        assert record is not None
        if fate == "disable" and record.status.value == "active":
            svc.review.disable(record.id)
        elif fate == "delete":
            svc.review.delete(record.id, reason="test")
    return svc


def _check(svc: MemoryService, request: dict[str, str], query: str) -> None:
    req = Scope.of(request)
    for hit in svc.retrieval.search_memory(request, query, limit=50):
        assert hit.scope.visible_to(req), f"{hit.scope} leaked into {req}"
        record = svc.memories.get_memory(hit.memory_id)
        assert record.status.value == "active"
    result = svc.retrieval.inject(request, query, 2000).value
    for item in result.items:
        assert item.scope.visible_to(req), f"{item.scope} injected into {req}"
        assert svc.memories.get_memory(item.memory_id).status.value == "active"


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    specs=memory_specs,
    requests=st.lists(st.tuples(scopes, st.sampled_from(TOPICS)), min_size=5, max_size=40),
)
def test_random_stores_never_leak_across_scopes(
    specs: list[tuple[dict[str, str], str, str]], requests: list[tuple[dict[str, str], str]]
) -> None:
    """Every returned or injected memory is visible to the request and effectively active."""
    with tempfile.TemporaryDirectory() as tmp:
        svc = _store(specs, Path(tmp) / "store")
        try:
            for request, topic in requests:
                _check(svc, request, f"what about the {topic}")
        finally:
            svc.close()


@settings(max_examples=3000, deadline=None)
@given(memory=scopes, request=scopes)
def test_visibility_is_containment(memory: dict[str, str], request: dict[str, str]) -> None:
    """The rule itself: M is visible to Q exactly when every key of M is in Q with its value."""
    expected = all(request.get(k) == v for k, v in memory.items())
    assert Scope.of(memory).visible_to(Scope.of(request)) is expected
