"""Agents: per client (MCP client, SDK runtime, importer) what it wrote and what it read, with
a pause per agent (R26, R27).

An agent is what its client said it is (`ui/agent_identity.py`: the MCP `clientInfo`, the
hooks' and importers' names recorded with their events), one row per client
and version; a session whose events say nothing is placed by its name, as the engine
places it (`agent_of_session`). Pausing an agent is the engine's agent pause:
nothing is injected into any of its sessions, those to come included, until it is resumed.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core import ChangeKind, MemoryService, Result, SessionInfo, agent_of_session
from core.model import commands as c

from ui.agent_identity import session_identity
from ui.context import UiContext
from ui.ops import MutatingOp, mutate, query
from ui.presentation import local_time
from ui.views.base import RefreshingView

DESKTOP = c.Origin("desktop")


INTERNAL_PREFIX = "memory-center:"


@dataclass
class AgentSummary:
    """What one agent wrote and read."""

    name: str
    key: str = ""  # the engine's name of the agent, which pause and resume act on
    sessions: list[str] = field(default_factory=list)
    events: int = 0
    calls: int = 0
    memories_read: set[str] = field(default_factory=set)
    last_active: dt.datetime | None = None
    paused: int = 0  # sessions opted out one by one
    agent_paused: bool = False


def load_agents(service: MemoryService) -> list[AgentSummary]:
    """Every agent with its sessions, events written, model calls and memories read."""
    agents: dict[str, AgentSummary] = {}
    paused = service.agents.paused()
    for info in service.events.list_sessions(limit=1000):
        if info.id.startswith(INTERNAL_PREFIX):
            continue
        key = agent_of_session(info.id)
        who = session_identity(service, info.id)
        name = who.label()
        agent = agents.setdefault(name, AgentSummary(name, key, agent_paused=key in paused))
        _add_session(service, agent, info)
    return sorted(
        agents.values(),
        key=lambda a: a.last_active or dt.datetime.min.replace(tzinfo=dt.UTC),
        reverse=True,
    )


def _add_session(service: MemoryService, agent: AgentSummary, info: SessionInfo) -> None:
    agent.sessions.append(info.id)
    agent.events += info.event_count
    agent.paused += int(info.opted_out)
    if info.last_event_at and (agent.last_active is None or info.last_event_at > agent.last_active):
        agent.last_active = info.last_event_at
    for snap in service.retrieval.list_snapshots(info.id):
        agent.calls += 1
        agent.memories_read.update(i.memory_id for i in snap.injected)


def pause_agent(ctx: UiContext, agent: str, paused: bool) -> MutatingOp[frozenset[str]]:
    """Turn memory off (or on again) for an agent, its sessions to come included."""

    def work(s: MemoryService) -> Result[frozenset[str]]:
        return s.commands.run(c.SetAgentPaused(agent, paused), DESKTOP)

    return mutate(ctx, work)


class AgentsView(RefreshingView):
    """One row per agent; Pause / Resume for the selected one.

    Signals:
        notified: (str, object) status-bar message and undo callable.
    """

    notified = Signal(str, object)
    watched = frozenset({ChangeKind.SESSIONS, ChangeKind.EVENTS, ChangeKind.SNAPSHOTS})

    def __init__(self, ctx: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.setObjectName("AgentsView")
        self.agents: list[AgentSummary] = []
        title = QLabel(self.tr("Agents"))
        title.setObjectName("ViewTitle")
        intro = QLabel(
            self.tr(
                "Each client that used your memory: what it wrote (events) and what it read "
                "(model calls and the memories they were given)."
            )
        )
        intro.setWordWrap(True)
        self.table = QTableWidget(0, 7)
        self.table.setAccessibleName(self.tr("Agents"))
        self.table.setHorizontalHeaderLabels(
            [
                self.tr("Agent"),
                self.tr("Sessions"),
                self.tr("Events written"),
                self.tr("Model calls"),
                self.tr("Memories read"),
                self.tr("Last active"),
                self.tr("Memory"),
            ]
        )
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.pause_button = QPushButton(self.tr("Pause memory for this agent"))
        self.pause_button.setToolTip(
            self.tr(
                "Turns memory off for this agent: nothing is injected into any of its "
                "sessions, new ones included, until you resume it."
            )
        )
        self.pause_button.setEnabled(False)
        self.pause_button.clicked.connect(self.toggle_pause)
        buttons = QHBoxLayout()
        buttons.addWidget(self.pause_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 18, 24, 18)
        layout.addWidget(title)
        layout.addWidget(intro)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)

    def refresh(self) -> None:
        """Reload the agents (in the background)."""
        query(self.ctx, load_agents).on_success(self._loaded).run(self)

    def _loaded(self, agents: list[AgentSummary]) -> None:
        chosen = self.selected()
        self.agents = agents
        self.table.setRowCount(len(agents))
        for row, a in enumerate(agents):
            state = self.tr("paused") if a.agent_paused else self.tr("on")
            values = (
                a.name,
                str(len(a.sessions)),
                str(a.events),
                str(a.calls),
                str(len(a.memories_read)),
                local_time(a.last_active),
                state,
            )
            for col, text in enumerate(values):
                item = QTableWidgetItem(text)
                if col:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                self.table.setItem(row, col, item)
            if chosen is not None and a.name == chosen.name:
                self.table.selectRow(row)
        self._selection_changed()

    def selected(self) -> AgentSummary | None:
        """The agent of the selected row."""
        rows = self.table.selectionModel().selectedRows()
        row = rows[0].row() if rows else -1
        return self.agents[row] if 0 <= row < len(self.agents) else None

    def _selection_changed(self) -> None:
        agent = self.selected()
        self.pause_button.setEnabled(agent is not None)
        self.pause_button.setText(
            self.tr("Resume memory for this agent")
            if agent is not None and agent.agent_paused
            else self.tr("Pause memory for this agent")
        )

    def toggle_pause(self) -> None:
        """Pause the selected agent, or resume it when it is paused."""
        agent = self.selected()
        if agent is None:
            return
        pause = not agent.agent_paused
        message = (
            self.tr("Memory paused for %1.") if pause else self.tr("Memory resumed for %1.")
        ).replace("%1", agent.name)

        def done(_paused: frozenset[str]) -> None:
            self.notified.emit(message, None)
            self.refresh_now()

        pause_agent(self.ctx, agent.key, pause).on_success(done).run(self)
