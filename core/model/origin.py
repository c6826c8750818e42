"""The agent edge's stamp on every command (#39, R2, R11): who asks, and how far what they
record may be believed, whatever the entry point.

The SDK and the MCP gateway build their events through `core.agents.edge.AgentEdge`, which
applies each role's ceiling as the agent is configured. The other entry points (the hooks,
capture, the importers, the CLI, the desktop) build theirs from what they read. Every
command passes through `stamp` on its way in, so no entry point can record more than the
rules allow: an event never claims more trust than its actor may have, content from outside
sources is untrusted, and a command an agent sends is signed with the agent's name.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from core.errors import InvalidInputError
from core.model.commands import (
    COMMANDS,
    AppendCaptured,
    AppendEvent,
    AppendEvents,
    Command,
    Origin,
)
from core.model.enums import Actor, TrustLevel
from core.model.records import NewEvent

ENTRIES = ("cli", "desktop", "mcp", "sdk", "hook", "capture", "importer", "spool", "core")
"""Where a command may come from."""

AGENT_ENTRIES = frozenset({"mcp", "sdk", "hook", "capture", "importer"})
"""Entry points through which an agent (or its transcript), not the user at the keyboard,
speaks: their commands carry the agent's name when they name no one."""

ACTOR_CEILING = {
    Actor.USER: TrustLevel.USER,
    Actor.TOOL: TrustLevel.TOOL_VERIFIED,
    Actor.ASSISTANT: TrustLevel.ASSISTANT,
    Actor.SYSTEM: TrustLevel.TOOL_VERIFIED,
}
"""The most an event of each actor may claim: a tool's output can be verified by the tool,
never the user's word; what the assistant says is the assistant's."""

EXTERNAL_SOURCES = frozenset({"web_page", "search_result", "email", "issue"})
"""Sources whose content is always untrusted, whatever the caller claims (R11)."""

T = TypeVar("T")
_BY_FIELDS = ("by", "requested_by")


def stamp(command: Command[T], origin: Origin) -> Command[T]:
    """`command` as the edge lets it in: events within their actor's ceiling (content from
    outside sources untrusted), and an agent's command signed with its name.

    Raises:
        InvalidInputError: an unknown entry point, or an event claiming more trust than its
            actor may have (named by field).
    """
    if origin.entry not in ENTRIES:
        raise InvalidInputError("origin", f"unknown entry point {origin.entry!r}")
    if type(command).name not in COMMANDS:
        raise InvalidInputError("command", f"{type(command).__name__} is not a command")
    changes: dict[str, Any] = {}
    agent = origin.agent if origin.entry in AGENT_ENTRIES else None
    if isinstance(command, AppendEvent):
        changes["item"] = _event(command.item, "item", agent)
    elif isinstance(command, (AppendEvents, AppendCaptured)):
        changes["items"] = tuple(
            _event(item, f"items[{i}]", agent) for i, item in enumerate(command.items)
        )
    for name in _BY_FIELDS:
        if agent and hasattr(command, name) and getattr(command, name) is None:
            changes[name] = agent
    return dataclasses.replace(command, **changes) if changes else command


def _event(value: object, field: str, agent: str | None) -> NewEvent:
    if not isinstance(value, NewEvent):
        raise InvalidInputError(field, f"expected an event, got {type(value).__name__}")
    item = value
    try:
        actor, trust = Actor(item.actor), TrustLevel(item.trust)
    except ValueError:
        return item  # an unknown actor or trust: the operation's validation names it
    top = ACTOR_CEILING[actor]
    if trust.authority > top.authority:
        raise InvalidInputError(
            f"{field}.trust",
            f"an event by the {actor.value} may claim at most {top.value!r}, not {trust.value!r}",
        )
    source = str(item.source or "")
    if source.strip().lower() in EXTERNAL_SOURCES and trust != TrustLevel.UNTRUSTED:
        item = dataclasses.replace(item, trust=TrustLevel.UNTRUSTED)
    if item.by is None and agent:
        item = dataclasses.replace(item, by=agent)
    return item
