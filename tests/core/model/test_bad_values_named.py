"""Values found by an attacker of the public API that crashed or were misread (#42, R2):
each is now refused with an error naming the field, and nothing is written."""

from __future__ import annotations

import pytest

from core import InvalidInputError, MemoryService, NewEvent

SCOPE = {"user": "kim", "project": "atlas"}


@pytest.mark.parametrize("when", ["0001-01-01T00:00:00+14:00", "0001-01-01T00:00:00+00:01"])
def test_a_time_before_the_first_utc_instant_is_refused_by_name(
    service: MemoryService, when: str
) -> None:
    # Before: OverflowError, a traceback in the CLI and a bare error over MCP.
    with pytest.raises(InvalidInputError, match="said_at: lies before the year 1"):
        service.memories.remember(SCOPE, "The staging port is 5433.", said_at=when)
    assert service.memories.list_memories() == []


def test_a_single_string_where_ids_are_listed_is_refused(service: MemoryService) -> None:
    # Before: refs="abc" entered the append-only log as the references "a", "b", "c".
    bad = NewEvent(
        session="s1",
        actor="user",
        trust="user",
        scope=SCOPE,
        text="hi",
        refs="ev_1",  # type: ignore[arg-type]
    )
    with pytest.raises(InvalidInputError, match=r"event\.refs: must be a list of ids, not a str"):
        service.events.append_event(bad)
    assert service.events.list_events(session="s1") == []
    with pytest.raises(InvalidInputError, match="evidence: must be a list of ids"):
        service.memories.suggest(SCOPE, "The staging port is 5433.", evidence="ev_123")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="ids: must be a list of ids"):
        service.events.get_events("ev_123")  # type: ignore[arg-type]
    assert service.memories.list_memories() == []
