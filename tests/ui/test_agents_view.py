"""Agents: per client what it wrote and read, with a pause per agent (#14 usage trace)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from core import MemoryService, NewEvent
from tests.ui.conftest import TIMEOUT, find

from ui.main_window import AGENTS, MainWindow

MCP_SESSION = "mcp-20261201-090000-4242"


def _row_of(window: MainWindow, name: str) -> int:
    view = window.agents
    return next(i for i, a in enumerate(view.agents) if a.name == name)


def _agent_named(qtbot: QtBot, window: MainWindow, name: str) -> Any:
    """The Agents page's entry for `name`, once the page (opened with Ctrl+5) shows it."""
    window.refresh_all()
    qtbot.keyClick(window.nav, Qt.Key.Key_5, Qt.KeyboardModifier.ControlModifier)
    view = window.agents
    qtbot.waitUntil(lambda: any(a.name == name for a in view.agents), timeout=TIMEOUT)
    return view.agents[_row_of(window, name)]


def test_agents_list_writes_and_reads_and_pause_one_agent(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """An MCP client's session appears as its own agent with what it read; Pause turns memory
    off for that agent (its new sessions too) and no other, Resume turns it on again."""
    scope = {"user": "alice", "project": "web-shop"}
    demo.events.append_event(
        NewEvent(MCP_SESSION, "user", "user", scope, "Which package manager for web-shop?")
    )
    demo.retrieval.inject(scope, "Set up the web-shop build", 400, session=MCP_SESSION)
    qtbot.keyClick(window.nav, Qt.Key.Key_5, Qt.KeyboardModifier.ControlModifier)
    assert window.stack.currentIndex() == AGENTS
    view = window.agents
    qtbot.waitUntil(lambda: any(a.name == "an MCP client" for a in view.agents), timeout=TIMEOUT)
    mcp = view.agents[_row_of(window, "an MCP client")]
    assert mcp.sessions == [MCP_SESSION] and mcp.events == 1 and mcp.calls == 1
    assert mcp.memories_read  # it was given memories
    others = [a for a in view.agents if a.name != "an MCP client"]
    assert others and all(MCP_SESSION not in a.sessions for a in others)
    row = _row_of(window, "an MCP client")
    rect = view.table.visualItemRect(view.table.item(row, 0))
    qtbot.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert view.pause_button.isEnabled()
    qtbot.mouseClick(view.pause_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "mcp" in demo.agents.paused(), timeout=TIMEOUT)
    qtbot.waitUntil(lambda: view.pause_button.text().startswith("Resume"), timeout=TIMEOUT)
    # The pause covers the agent, not only its sessions so far: a new MCP session gets
    # nothing, with the reason in its snapshot; another agent's session still gets memory.
    later = demo.retrieval.inject(
        scope, "Set up the web-shop build", 400, session=MCP_SESSION + "-2"
    ).value
    assert later.items == () and later.text == ""
    dropped = demo.retrieval.get_snapshot(later.snapshot_id).dropped
    assert [d.reason for d in dropped] == ["agent mcp is paused"]
    assert demo.retrieval.inject(
        scope, "Set up the web-shop build", 400, session="web-shop-ci"
    ).value.items
    assert not demo.events.get_session(
        MCP_SESSION
    ).opted_out  # the sessions themselves are untouched
    qtbot.mouseClick(view.pause_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "mcp" not in demo.agents.paused(), timeout=TIMEOUT)
    qtbot.waitUntil(lambda: view.pause_button.text().startswith("Pause"), timeout=TIMEOUT)
    again = demo.retrieval.inject(
        scope, "Set up the web-shop build", 400, session=MCP_SESSION + "-3"
    )
    assert again.value.items


def test_agents_are_named_by_what_they_said_they_are(
    qtbot: QtBot, window: MainWindow, demo: MemoryService, tmp_path
) -> None:
    """#43 item 3: an MCP client that introduced itself as claude-desktop 0.9.2, on a
    session whose name says nothing, is its own agent under that name (not "an agent (SDK or
    tool)", not lumped with a CLI call), on the Agents page and in a memory's usage trace."""
    from app.mcp_server import Caller, Gateway, ServerSettings
    from core import Scope

    scope = {"user": "alice", "project": "web-shop"}
    settings = ServerSettings(tmp_path, Scope.of(scope), "desk-webshop")
    gateway = Gateway(settings, opener=lambda _path: demo)
    gateway.get_context(Caller("claude-desktop", "0.9.2"), "which package manager?", 400, None)
    qtbot.waitUntil(lambda: bool(demo.events.list_events(session="desk-webshop")), timeout=TIMEOUT)
    demo.retrieval.inject(scope, "cli call: package manager", 400, session="cli-webshop-7")
    memory = find(demo, "pnpm for every").id
    qtbot.waitUntil(
        lambda: any(
            s == "desk-webshop" for _i, s, _t in demo.memories.adoption_chain(memory).injections
        ),
        timeout=TIMEOUT,
    )
    qtbot.waitUntil(lambda: bool(demo.retrieval.list_snapshots("cli-webshop-7")), timeout=TIMEOUT)
    desktop = "claude-desktop 0.9.2 (MCP client)"
    agent = _agent_named(qtbot, window, desktop)
    view = window.agents
    assert agent.sessions == ["desk-webshop"] and agent.calls == 1
    assert all("desk-webshop" not in a.sessions for a in view.agents if a.name != desktop)
    shown = [view.table.item(r, 0).text() for r in range(view.table.rowCount())]
    assert desktop in shown
    # The usage trace of a memory it was given names it too.
    from tests.ui.test_detail import _show

    panel = _show(qtbot, window, demo, "pnpm for every")
    qtbot.waitUntil(lambda: "claude-desktop 0.9.2" in panel.usage.text(), timeout=TIMEOUT)


def test_an_sdk_runtime_is_named_by_the_name_it_was_given(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """#43 item 3, the SDK's part: a runtime that called itself support-bot, on a session whose
    name says nothing, is its own agent under that name; the events it wrote say so."""
    from core.sdk import MemoryRuntime

    scope = {"user": "alice", "project": "web-shop"}
    with MemoryRuntime(demo, scope, "conv-0042", agent="support-bot") as runtime:
        runtime.sync_turn([{"role": "user", "text": "Which package manager for web-shop?"}])
        runtime.inject("Set up the web-shop build")
    (event,) = demo.events.list_events(session="conv-0042")
    assert event.data["runtime"] == "support-bot"
    bot = "support-bot (SDK runtime)"
    agent = _agent_named(qtbot, window, bot)
    assert agent.sessions == ["conv-0042"] and agent.events == 1
    assert all("conv-0042" not in a.sessions for a in window.agents.agents if a.name != bot)
