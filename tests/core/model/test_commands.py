"""#39: commands are typed, frozen and survive the wire; the edge's stamp holds for every
entry point."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from typing import Any

import pytest

from core.errors import InvalidInputError
from core.model import commands as c
from core.model.capture import CaptureCursor
from core.model.enums import Actor, TrustLevel
from core.model.origin import ENTRIES, stamp
from core.model.records import NewEvent
from core.model.scope import Scope

EVENT = NewEvent(
    "s1",
    Actor.USER,
    TrustLevel.USER,
    Scope.of({"user": "ann"}),
    "hello",
    said_at=dt.datetime(2026, 1, 2, 3, 4, tzinfo=dt.UTC),
)
BY_NAME: dict[str, Any] = {
    "item": EVENT,
    "cursor": CaptureCursor("k", "codex", 10, {"a": 1}, 2),
    "scope": Scope.of({"user": "ann", "project": "p"}),
    "scopes": {"m1": Scope.of({"user": "ann"}), "m2": None},
    "document": {"memories": [{"text": "t"}]},
    "state": {"memories": [{"text": "t"}]},
    "changes": {"budget": 400},
    "said_at": dt.datetime(2026, 5, 6, tzinfo=dt.UTC),
    "evidence": ("e1", "e2"),
    "event_ids": ("e1", "e2"),
    "memory_ids": ("e1", "e2"),
    "sessions": ("e1", "e2"),
}
BY_TYPE = (("bool", True), ("float", 2.5), ("int", 7))


def _value(name: str, kind: str) -> Any:
    if name == "items":
        return ({"scope": {"user": "ann"}, "text": "t"},) if "Mapping" in kind else (EVENT, EVENT)
    if name in BY_NAME:
        return BY_NAME[name]
    return next((v for k, v in BY_TYPE if kind.startswith(k) or f" {k}" in kind), f"{name}-1")


def _sample(cls: type[c.Command[Any]]) -> c.Command[Any]:
    """One instance with every field set (not left at its default)."""
    return cls(**{f.name: _value(f.name, str(f.type)) for f in dataclasses.fields(cls)})


@pytest.mark.parametrize("name", sorted(c.COMMANDS))
def test_every_command_survives_the_wire(name: str) -> None:
    command = _sample(c.COMMANDS[name])
    wire = json.loads(json.dumps(command.to_wire()))
    assert c.from_wire(wire["command"], wire["arguments"]) == command
    with pytest.raises(dataclasses.FrozenInstanceError):
        command.by = "x"  # type: ignore[misc]


def test_the_wire_refuses_what_it_does_not_know() -> None:
    with pytest.raises(InvalidInputError, match="unknown command 'format_disk'"):
        c.from_wire("format_disk", {})
    with pytest.raises(InvalidInputError, match="approve cannot take them"):
        c.from_wire("approve", {"memory_id": "m", "colour": "red"})
    with pytest.raises(InvalidInputError, match="cannot be kept"):
        c.Approve(memory_id=object()).to_wire()  # type: ignore[arg-type]


def test_the_stamp_caps_trust_by_actor_for_every_entry() -> None:
    """A hook, an importer or capture cannot record a tool's output as the user's word."""
    forged = dataclasses.replace(EVENT, actor=Actor.TOOL, trust=TrustLevel.USER)
    for entry in ENTRIES:
        with pytest.raises(InvalidInputError, match=r"items\[1\].trust: an event by the tool"):
            stamp(c.AppendEvents(items=(EVENT, forged)), c.Origin(entry))
    assistant = dataclasses.replace(EVENT, actor=Actor.ASSISTANT, trust=TrustLevel.TOOL_VERIFIED)
    with pytest.raises(InvalidInputError, match="an event by the assistant may claim at most"):
        stamp(c.AppendEvent(item=assistant), c.Origin("capture"))


def test_the_stamp_makes_outside_content_untrusted_and_signs_agents_commands() -> None:
    page = dataclasses.replace(
        EVENT, actor=Actor.TOOL, trust=TrustLevel.TOOL_VERIFIED, source="web_page"
    )
    out = stamp(c.AppendEvent(item=page), c.Origin("hook", "claude-code"))
    assert isinstance(out, c.AppendEvent)
    assert out.item.trust == TrustLevel.UNTRUSTED and out.item.by == "claude-code"
    remembered = stamp(c.Remember(scope={"user": "ann"}, text="t"), c.Origin("mcp", "cursor"))
    assert isinstance(remembered, c.Remember) and remembered.by == "cursor"
    deleted = stamp(c.Delete(memory_id="m", reason="r"), c.Origin("sdk", "bot"))
    assert isinstance(deleted, c.Delete) and deleted.requested_by == "bot"
    # The user at the keyboard is not an agent: nothing is filled in.
    assert stamp(c.Approve(memory_id="m"), c.Origin("desktop", "x")) == c.Approve(memory_id="m")
    many = c.RememberMany(items=({"scope": {"user": "ann"}, "text": "t"},))
    assert stamp(many, c.Origin("importer", "codex")) == many
    with pytest.raises(InvalidInputError, match="unknown entry point 'fax'"):
        stamp(c.Approve(memory_id="m"), c.Origin("fax"))
