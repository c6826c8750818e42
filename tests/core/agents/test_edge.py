"""#15.3: the agent edge holds the rules the SDK and the MCP gateway share."""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import threading

import pytest

from core import EventKind, MemoryService, NotFoundError, Scope, TrustLevel
from core.agents.edge import AgentEdge, HotPathGuard
from core.errors import InvalidInputError, ScopeWidenedError
from core.sdk import MemoryRuntime

ALICE = Scope.of({"user": "alice", "project": "garden"})


def test_scope_may_only_be_narrowed(service: MemoryService) -> None:
    edge = AgentEdge(service, ALICE, "s1")
    assert edge.scope({"repo": "beds"})["repo"] == "beds"
    with pytest.raises(ScopeWidenedError):
        edge.scope({"user": "bob"})


def test_a_call_cannot_add_whose_memory_it_is_to_a_scope_configured_without_it(
    service: MemoryService,
) -> None:
    """A server started with `org=acme` only: adding `user=bob` was taken for narrowing, and
    by the containment rule it showed Bob's private memories and wrote into his scope."""
    service.memories.remember({"user": "bob"}, "Bob's bank PIN hint is his dog's birthday.")
    edge = AgentEdge(service, Scope.of({"org": "acme"}), "s1")
    for owner in ({"user": "bob"}, {"org": "acme", "user": "bob"}):
        with pytest.raises(ScopeWidenedError, match="user=bob is not in the configured scope"):
            edge.scope(owner)
    with pytest.raises(ScopeWidenedError, match="org=other"):
        AgentEdge(service, ALICE, "s1").scope({"org": "other"})
    assert edge.scope({"project": "billing"})["project"] == "billing"  # still narrows


def test_outside_content_is_untrusted_for_every_adapter(service: MemoryService) -> None:
    edge = AgentEdge(service, ALICE, "s1")
    assert edge.trust("tool", None, "web_page")[1] == TrustLevel.UNTRUSTED
    with pytest.raises(InvalidInputError, match="always 'untrusted'"):
        edge.trust("tool", "tool_verified", "email")
    # The SDK goes through the same rule (it did not before the edge existed).
    with MemoryRuntime(service, ALICE, "s1") as rt:
        with pytest.raises(InvalidInputError, match="always 'untrusted'"):
            rt.sync_turn(
                [{"role": "tool", "text": "x", "trust": "tool_verified", "source": "issue"}]
            )
        assert service.events.list_events(session="s1") == []


def test_forget_refuses_a_memory_outside_the_scope(service: MemoryService) -> None:
    other = service.memories.remember({"user": "bob"}, "Bob's allergy: peanuts.").value.record
    assert other is not None
    edge = AgentEdge(service, ALICE, "s1")
    with pytest.raises(NotFoundError):
        edge.forget(other.id, "not mine")
    assert service.memories.get_memory(other.id).status.value == "active"
    mine = service.memories.remember(ALICE, "Tomatoes get water every second evening.").value.record
    assert mine is not None
    stone = edge.forget(mine.id, "outdated", by="agent:test")
    assert stone.requested_by == "agent:test"
    assert service.memories.get_memory(mine.id).status.value == "deleted"


def test_audit_writes_one_agent_call_event_with_clipped_arguments(service: MemoryService) -> None:
    edge = AgentEdge(service, ALICE, "s1", agent="mcp")
    edge.audit("search_memory", {"query": "x" * 500, "scope": None}, client={"name": "c"})
    (event,) = service.events.list_events(session="s1")
    assert event.kind == EventKind.AGENT_CALL
    assert event.data is not None and len(event.data["args"]["query"]) == 201
    assert "scope" not in event.data["args"]


def test_an_injection_records_its_call_with_its_snapshot(service: MemoryService) -> None:
    """#13: an agent's `get_context` hands its `agent_call` event to the injection, which
    writes it in the snapshot's write-behind transaction: the turn waits for neither. Once
    written it is in the log once, like an audited call, and event reads see it at once."""
    service.memories.remember(ALICE, "Tomatoes get water every second evening.")
    edge = AgentEdge(service, ALICE, "s1", agent="mcp")
    event = edge.audit_event(
        "get_context", {"goal": "water the garden", "scope": None}, client={"name": "c"}
    )
    assert event is not None
    result = service.retrieval.inject(
        ALICE, "water the garden", 300, session="s1", record_with=event
    )
    calls = [e for e in service.events.list_events(session="s1") if e.kind == EventKind.AGENT_CALL]
    assert len(calls) == 1 and calls[0].data is not None
    assert calls[0].data["args"] == {"goal": "water the garden"} and calls[0].by == "mcp"
    assert service.retrieval.get_snapshot(result.value.snapshot_id).goal == "water the garden"
    assert service.events.get_session("s1").event_count == 1


def test_an_injection_refuses_a_bad_event_to_record_and_injects_nothing(
    service: MemoryService,
) -> None:
    """Bad input: the event is checked before anything is read or queued."""
    bad = AgentEdge(service, ALICE, "s1").audit_event("get_context", {}, client={"name": "c"})
    assert bad is not None
    bad = dataclasses.replace(bad, session="")
    with pytest.raises(InvalidInputError, match=r"record_with\.session"):
        service.retrieval.inject(ALICE, "water the garden", 300, session="s1", record_with=bad)
    assert (
        service.retrieval.list_snapshots("s1") == []
        and service.events.list_events(session="s1") == []
    )


def test_hot_path_guard_times_out_and_cools_down() -> None:
    guard = HotPathGuard(cooldown_seconds=60)
    release = threading.Event()
    try:
        with pytest.raises(cf.TimeoutError):
            guard.run(lambda: release.wait(5), 0.05)
        assert not guard.cooling()
        guard.trip()
        assert guard.cooling()
        guard.reset()
        assert not guard.cooling()
        assert guard.run(lambda: 42, 1.0) == 42
    finally:
        release.set()
        guard.close()


def test_a_blank_turn_does_not_put_memory_on_hold(service: MemoryService) -> None:
    """An image-only turn's blank goal was counted as a store failure: the next turns got
    no memory for the 5 s cool-down."""
    service.memories.remember(ALICE, "Alice waters the garden beds at 7am.")
    with MemoryRuntime(service, ALICE, "s1") as rt:
        assert rt.inject("   ") == ("", None)
        assert "goal" in (rt.state.last_error or "")
        assert not rt.guard.cooling()
        text, snapshot = rt.inject("when are the garden beds watered")
        assert snapshot is not None and "7am" in text
