"""Agents (#14): pausing memory per agent, the agents seen, and warming the model for one."""

from __future__ import annotations

import time

from core.governance import agents
from core.governance.agents import AgentInfo
from core.model.records import Result, SessionInfo
from core.services.context import Engine
from core.storage.store import changes_of


class AgentControls:
    """Per-agent pause (checked by the retriever on every read) and model warm-up."""

    def __init__(self, engine: Engine) -> None:
        self._e = engine

    def warm_up(self, wait: float) -> bool:
        catalog = self._e.catalog
        catalog.warm_in_background()
        layer = catalog.vectors
        deadline = time.monotonic() + wait
        ready = True
        if layer is not None:
            layer.warm_up()
            ready = layer.model_ready(wait=wait)
        # A caller that waits (a one-shot CLI `inject`) wants the first read to find the
        # catalog and the vector file loaded too: loading is not what the hot-path limit
        # measures (#44).
        while wait > 0 and not (catalog.loaded and (layer is None or layer.file_loaded)):
            if time.monotonic() >= deadline:
                break
            time.sleep(0.01)
        return ready

    def leave_vector_graph_on_disk(self) -> None:
        layer = self._e.catalog.vectors
        if layer is not None:
            layer.graph_on_demand = True

    def paused_agents(self) -> frozenset[str]:
        store = self._e.store
        with store.read("read paused agents") as conn:
            return agents.read_paused(conn, store.codec)

    def set_agent_paused(self, agent: str, paused: bool) -> Result[frozenset[str]]:
        name = agents.valid_name(agent)
        with self._e.store.write("pause agent" if paused else "resume agent") as tx:
            names = agents.set_paused(tx, name, paused)
        self._e.retriever.pauses.forget()
        return Result(names, changes_of(tx))

    def list_agents(self, sessions: list[SessionInfo]) -> list[AgentInfo]:
        return agents.summarise(sessions, self.paused_agents())


__all__ = ["AgentControls"]
