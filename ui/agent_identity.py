"""Who a session's client is, from what it said it is (#43, R27).

Every client writes its identity into the events of its sessions: the MCP server the
`clientInfo` (name, version) its client sent with `initialize` (`data.client`, by
`mcp:<name>`), the Claude Code hooks their agent (`data.agent`, `data.hook`), the importers
their name (`data.importer`), an SDK runtime the name it was given (`data.runtime`). The
session's name is only a guess, used when none of its events says anything (a session with
model calls and no events, or one written by hand).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication

from core import Event, MemoryService, agent_of_session

SCAN = 40  # the first events of a session that are read for its client's identity


@dataclass(frozen=True)
class ClientIdentity:
    """One client: its kind ("mcp", "hook", "import", "sdk", "guess"), name and version."""

    kind: str
    name: str
    version: str = ""

    def label(self) -> str:
        """The client in plain words: "claude-desktop 0.9.2 (MCP client)"."""
        who = f"{self.name} {self.version}".strip()
        if self.kind == "sdk" and self.name == "sdk":  # a runtime given no name of its own
            return QCoreApplication.translate("Agents", "an SDK runtime")
        templates = {
            "sdk": QCoreApplication.translate("Agents", "%1 (SDK runtime)"),
            "mcp": QCoreApplication.translate("Agents", "%1 (MCP client)"),
            "hook": QCoreApplication.translate("Agents", "%1 (hooks)"),
            "import": QCoreApplication.translate("Agents", "%1 (import)"),
        }
        if self.kind in templates:
            return templates[self.kind].replace("%1", who)
        return guessed_label(self.name)


def guessed_label(client: str) -> str:
    """The kind of client a session name suggests (nothing better known)."""
    words = {
        "mcp": QCoreApplication.translate("Usage", "an MCP client"),
        "claude-code": QCoreApplication.translate("Usage", "Claude Code"),
        "chatgpt": QCoreApplication.translate("Usage", "ChatGPT import"),
        "codex": QCoreApplication.translate("Agents", "Codex"),
    }
    return words.get(client, QCoreApplication.translate("Usage", "an agent (SDK or tool)"))


def identity_in(events: Sequence[Event]) -> ClientIdentity | None:
    """The identity the first telling event gives, if any."""
    for e in events:
        data = e.data
        client = data.get("client")
        if isinstance(client, dict) and client.get("name"):
            return ClientIdentity("mcp", str(client["name"]), str(client.get("version") or ""))
        if isinstance(client, str) and client and data.get("via") == "mcp":
            return ClientIdentity("mcp", client, str(data.get("client_version") or ""))
        importer = data.get("importer")
        if isinstance(importer, str) and importer:
            return ClientIdentity("import", importer.removeprefix("import:"))
        if data.get("hook") and isinstance(data.get("agent"), str):
            return ClientIdentity("hook", str(data["agent"]))
        runtime = data.get("runtime")
        if isinstance(runtime, str) and runtime:
            return ClientIdentity("sdk", runtime)
        by = e.by or ""
        if by.startswith("mcp:"):
            return ClientIdentity("mcp", by.removeprefix("mcp:"))
        if by.startswith("import:"):
            return ClientIdentity("import", by.removeprefix("import:"))
    # An event's bare `by` is no identity: the store fills it with the scope's user when a
    # writer gives none, so it names people as often as runtimes.
    return None


def session_identity(service: MemoryService, session: str) -> ClientIdentity:
    """The client of `session`: what its events say, else the guess from its name."""
    events = service.events.list_events(session=session, limit=SCAN) if session else []
    return identity_in(events) or ClientIdentity("guess", agent_of_session(session))
