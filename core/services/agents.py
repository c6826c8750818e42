"""`service.agents` (#14): pausing memory per agent, the agents seen in the sessions, and
the folders that speak for a project in the hooks."""

from __future__ import annotations

from collections.abc import Callable

from core.governance import agents, places
from core.governance.agents import AgentInfo
from core.model.records import Result, SessionInfo
from core.services.context import Engine
from core.storage.store import changes_of


class AgentControls:
    """Per-agent pause (checked by the retriever on every read) and the agents seen.

    Args:
        engine: the shared engine.
        sessions: every session of the log (`service.events`), to find the agents in.
    """

    def __init__(self, engine: Engine, sessions: Callable[[], list[SessionInfo]]) -> None:
        self._e = engine
        self._sessions = sessions

    def paused(self) -> frozenset[str]:
        """The agents whose reads get no memory (R26)."""
        store = self._e.store
        with store.read("read paused agents") as conn:
            return agents.read_paused(conn, store.codec)

    def set_paused(self, agent: str, paused: bool) -> Result[frozenset[str]]:
        """Pause (or resume) memory for an agent: every session of it, new ones included.

        `agent` is a client name (`mcp`, `claude-code`, `codex`, `chatgpt`, `sdk`) or the
        value of a request's `agent` scope key. Returns the paused names afterwards.
        """
        name = agents.valid_name(agent)
        with self._e.store.write("pause agent" if paused else "resume agent") as tx:
            names = agents.set_paused(tx, name, paused)
        self._e.retriever.pauses.forget()
        return Result(names, changes_of(tx))

    def places(self) -> dict[str, frozenset[str]]:
        """Each project's confirmed folders (digests of their real paths), for the hooks."""
        store = self._e.store
        with store.read("read project places") as conn:
            return places.read_places(conn, store.codec)

    def bind_place(self, project: str, place: str) -> Result[frozenset[str]]:
        """Confirm that a folder speaks for `project` (`core/governance/places.py`).

        Raises:
            InvalidInputError: a bad project name or digest, or too many folders.
        """
        with self._e.store.write("bind project folder") as tx:
            mine = places.bind(tx, project, place)
        return Result(mine, changes_of(tx))

    def unbind_place(self, project: str, place: str) -> Result[frozenset[str]]:
        """Withdraw a folder's confirmation for `project`: its sessions are kept apart again.

        Raises:
            InvalidInputError: a bad project name or digest.
            InvalidStateError: the folder does not speak for `project`.
        """
        with self._e.store.write("unbind project folder") as tx:
            mine = places.unbind(tx, project, place)
        return Result(mine, changes_of(tx))

    def list_agents(self) -> list[AgentInfo]:
        """The agents seen in the sessions (and any paused ones), with their pause state."""
        return agents.summarise(self._sessions(), self.paused())


__all__ = ["AgentControls"]
