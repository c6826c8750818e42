"""The usage trace answers "who used this, for what", and opens a call's replay (#14)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from core import MemoryService
from tests.ui.conftest import TIMEOUT
from tests.ui.test_detail import _show

from ui.main_window import SESSIONS, MainWindow


def test_usage_names_the_call_the_goal_and_the_rest_of_the_block(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """Each injection shows its goal, who made the call, the other memories of the same block
    and a replay link that opens exactly that call."""
    panel = _show(qtbot, window, demo, "pnpm for every")
    text = panel.usage.text()
    assert "Injected 2 times" in text
    assert "Add a lint step to the web-shop JavaScript build" in text  # the goal
    assert "web-shop-ci" in text  # the session
    assert "with " in text and "Node 20" in text  # another memory of the same block
    assert "an agent" in text  # who (no agent in the scope, no client-specific session)
    uses = panel.data.uses  # type: ignore[union-attr]
    assert len(uses) == 2 and all(u.others for u in uses)
    older = uses[-1]
    panel._link(f"replay:{older.session}#{older.snapshot_id}")  # the link's target
    assert window.stack.currentIndex() == SESSIONS
    view = window.sessions
    qtbot.waitUntil(lambda: view.snapshot_box.currentData() == older.snapshot_id, timeout=TIMEOUT)
    qtbot.waitUntil(lambda: older.goal[:30] in view.snapshot_text.text(), timeout=TIMEOUT)
