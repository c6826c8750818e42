"""The `memory-center` command line (R30), assembled from its verb modules.

`root` holds the group, the per-invocation context and error handling; each verb group lives
in its own module, which imports `root` (never this package). The verbs are registered here
by name with their one-line help and imported only when used (`lazy`), so a call pays for the
engine only when its verb needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.cli.lazy import LazyCommands
from app.cli.root import Context, cli, main

if TYPE_CHECKING:
    from app.serialize import to_jsonable

VERBS: dict[str, tuple[str, str]] = {
    "init": ("app.cli.store:init", "Create the store (and its key) if it does not exist yet."),
    "status": (
        "app.cli.store:status",
        "Show path, revision, schema version, key source and counts.",
    ),
    "verify": (
        "app.cli.store:verify",
        "Check the hash chain and decrypt every row; report the first failure.",
    ),
    "key": ("app.cli.store:key", "Manage the store's encryption key."),
    "event": ("app.cli.events:event", "Append to and read the event log."),
    "remember": (
        "app.cli.review:remember",
        "Remember something, as the user's explicit request (the policy still checks it).",
    ),
    "extract": (
        "app.cli.review:extract",
        "Run extraction over a session: suggested memories land in the review queue.",
    ),
    "candidates": (
        "app.cli.review:candidates",
        "The review queue: suggested and quarantined memories.",
    ),
    "memory": ("app.cli.memory:memory", "Curated memory: list, inspect, change, delete."),
    "search": (
        "app.cli.retrieval:search",
        "Search active memory visible to a scope (the model's search_memory).",
    ),
    "inject": (
        "app.cli.retrieval:inject",
        "Build the memory block for a model call and record its snapshot.",
    ),
    "snapshot": ("app.cli.retrieval:snapshot", "Snapshots of what model calls were given (R18)."),
    "replay": (
        "app.cli.retrieval:replay",
        "Diagnostic replay: what a model call was given, and what changed since (R21).",
    ),
    "resume": (
        "app.cli.retrieval:resume",
        "Live resume through the ResumeGate: what may be injected again now (R21).",
    ),
    "session": ("app.cli.sessions:session", "Sessions: list, opt out of memory."),
    "index": (
        "app.cli.index:index",
        "The derived search indexes (keyword and vector): status and rebuild.",
    ),
    "policy": ("app.cli.policy:policy", "The MemoryPolicy settings (stored in the store)."),
    "member": (
        "app.cli.team:member",
        "Members of a store on a database server: invite, list, remove, invitations, cancel, "
        "password.",
    ),
    "join": (
        "app.cli.team:join",
        "Join a team store from this machine with an invitation file and its code.",
    ),
    "spool": (
        "app.cli.spool:spool",
        "Writes kept on this machine while the database server was away.",
    ),
    "agent": (
        "app.cli.agents:agent",
        "Agents: pause or resume memory for every session of an agent, new ones too.",
    ),
    "mcp": (
        "app.mcp_server:mcp_command",
        "Run the MCP server (stdio) for agents; see docs/mcp.md.",
    ),
    "import": (
        "app.importers.cli:import_group",
        "Import agent transcripts into the event log; suggestions go to the review queue.",
    ),
    "hook": (
        "app.hooks.cli:hook_group",
        "Agent lifecycle hooks: inject memory per prompt, record events as they happen.",
    ),
    "daemon": (
        "app.hooks.daemon_cli:daemon_group",
        "The store's local daemon: keeps the store open so per-turn commands answer at once.",
    ),
    "watch": (
        "app.capture.cli:watch_command",
        "Follow an agent's session files as they grow and record new events.",
    ),
    "history": (
        "app.capture.history_cli:history_group",
        "Past sessions from the event log: what was asked, touched, run, and how it ended.",
    ),
    "eval": (
        "app.evaluation.cli:eval_group",
        "Measure what memory is worth on recorded sessions (R29).",
    ),
}
"""Verb name -> (`module:attribute`, the first sentence of its help)."""

assert isinstance(cli.commands, LazyCommands)
for _name, (_target, _summary) in VERBS.items():
    cli.commands.add_lazy(_name, _target, _summary)


def __getattr__(name: str) -> Any:
    # `to_jsonable` has always been importable from here; it loads the engine's model types.
    if name == "to_jsonable":
        from app.serialize import to_jsonable

        return to_jsonable
    raise AttributeError(f"module 'app.cli' has no attribute {name!r}")


__all__ = ["VERBS", "Context", "cli", "main", "to_jsonable"]
