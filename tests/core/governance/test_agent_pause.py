"""Agent-level pause (#14, R26): a paused agent gets no memory, in every session it opens."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import AgentInfo, InvalidInputError, MemoryService, NewEvent
from tests.conftest import PASSPHRASE

SCOPE = {"user": "alice", "project": "garden"}
GOAL = "When should the tomatoes be watered?"


@pytest.fixture
def remembered(service: MemoryService) -> MemoryService:
    service.memories.remember(SCOPE, "Water the tomatoes every morning before 9")
    service.memories.remember(SCOPE, "番茄每天早上九点前浇水")
    return service


def _reasons(service: MemoryService, snapshot_id: str) -> list[str]:
    return [d.reason for d in service.retrieval.get_snapshot(snapshot_id).dropped]


def test_a_new_session_of_a_paused_agent_gets_nothing(remembered: MemoryService) -> None:
    svc = remembered
    assert svc.retrieval.inject(SCOPE, GOAL, 400, session="claude-code:first").value.items
    paused = svc.agents.set_paused("claude-code", True)
    assert paused.value == frozenset({"claude-code"})
    # A session that did not exist when the agent was paused.
    out = svc.retrieval.inject(SCOPE, GOAL, 400, session="claude-code:opened-later").value
    assert out.items == () and out.text == "" and not out.degraded
    assert _reasons(svc, out.snapshot_id) == ["agent claude-code is paused"]
    assert svc.retrieval.search_memory(SCOPE, GOAL, session="claude-code:opened-later") == []
    # Other agents keep their memory.
    assert svc.retrieval.inject(SCOPE, GOAL, 400, session="mcp-20260302-090000-1").value.items
    assert svc.retrieval.inject(SCOPE, GOAL, 400, session="my-script-run").value.items
    svc.agents.set_paused("claude-code", False)
    assert svc.retrieval.inject(SCOPE, GOAL, 400, session="claude-code:opened-later").value.items


def test_an_agent_named_in_the_scope_is_paused_too(remembered: MemoryService) -> None:
    svc = remembered
    svc.agents.set_paused("gardener-bot", True)
    request = {**SCOPE, "agent": "gardener-bot"}
    out = svc.retrieval.inject(request, GOAL, 400).value
    assert out.items == ()
    assert _reasons(svc, out.snapshot_id) == ["agent gardener-bot is paused"]
    assert svc.retrieval.inject({**SCOPE, "agent": "other-bot"}, GOAL, 400).value.items


def test_the_pause_holds_for_another_process_of_the_store(
    remembered: MemoryService, data_dir: Path
) -> None:
    """Stored in the store, not in this process: a second open (another agent's process)
    sees it, and the agent list says so."""
    session = "mcp-20260302-100000-7"
    remembered.events.append_event(NewEvent(session, "user", "user", SCOPE, "water them?"))
    remembered.agents.set_paused("mcp", True)
    other = MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False)
    try:
        assert other.agents.paused() == frozenset({"mcp"})
        out = other.retrieval.inject(SCOPE, GOAL, 400, session=session).value
        assert out.items == ()
        listed = {a.name: a for a in other.agents.list_agents()}
        assert listed["mcp"] == AgentInfo("mcp", 1, True)
    finally:
        other.close()
    # And a resume in this process reaches a read that follows it here.
    remembered.agents.set_paused("mcp", False)
    assert remembered.retrieval.inject(SCOPE, GOAL, 400, session=session).value.items


@pytest.mark.parametrize("bad", ["", "   ", "two\nlines", "x" * 129])
def test_a_bad_agent_name_is_refused_and_writes_nothing(
    remembered: MemoryService, bad: str
) -> None:
    before = remembered.events.revision()
    with pytest.raises(InvalidInputError) as caught:
        remembered.agents.set_paused(bad, True)
    assert caught.value.field == "agent"
    assert remembered.agents.paused() == frozenset()
    assert remembered.events.revision() == before
