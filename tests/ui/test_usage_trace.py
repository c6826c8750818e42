"""The usage trace answers "who used this, for what", and opens a call's replay (#14)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from core import MemoryService
from tests.ui.conftest import TIMEOUT, find
from tests.ui.test_detail import _show

from ui.main_window import SESSIONS, MainWindow


def _activate_replay_link(qtbot: QtBot, label: QLabel, *, nth: int) -> None:
    """Move the keyboard focus through the label's links (Tab) to its `nth` "open the
    replay" link and press Enter, as a keyboard user does."""
    label.setFocus()
    qtbot.waitUntil(label.hasFocus, timeout=TIMEOUT)
    seen = 0
    for _ in range(40):
        qtbot.keyClick(label, Qt.Key.Key_Tab)
        if label.selectedText() == "open the replay":
            seen += 1
            if seen == nth:
                qtbot.keyClick(label, Qt.Key.Key_Return)
                return
    raise AssertionError(f"only {seen} replay link(s) reachable by keyboard")


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
    _activate_replay_link(qtbot, panel.usage, nth=len(uses))  # the older call's link
    assert window.stack.currentIndex() == SESSIONS
    view = window.sessions
    qtbot.waitUntil(lambda: view.snapshot_box.currentData() == older.snapshot_id, timeout=TIMEOUT)
    qtbot.waitUntil(lambda: older.goal[:30] in view.snapshot_text.text(), timeout=TIMEOUT)


def test_replay_of_a_session_without_events_opens_that_call(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """#43 item 2: `inject --session cli-webshop-7` records a call in a session with no
    events. Its replay link opens that call (not one of another session), and its session
    link opens that session by name, not an empty page."""
    scope = {"user": "alice", "project": "web-shop"}
    demo.retrieval.inject(
        scope, "which package manager for the web-shop?", 400, session="cli-webshop-7"
    )
    memory = find(demo, "pnpm for every").id
    # The call's record is written behind the answer: wait until the store holds it.
    qtbot.waitUntil(
        lambda: any(
            s == "cli-webshop-7" for _i, s, _t in demo.memories.adoption_chain(memory).injections
        ),
        timeout=TIMEOUT,
    )
    window.refresh_all()
    window.go_to(SESSIONS)  # another session is open first, as it was for the user
    qtbot.waitUntil(lambda: window.sessions.current is not None, timeout=TIMEOUT)
    panel = _show(qtbot, window, demo, "pnpm for every")
    qtbot.waitUntil(lambda: "cli-webshop-7" in panel.usage.text(), timeout=TIMEOUT)
    uses = panel.data.uses  # type: ignore[union-attr]
    nth = next(i for i, u in enumerate(uses, start=1) if u.session == "cli-webshop-7")
    newest = uses[nth - 1]
    _activate_replay_link(qtbot, panel.usage, nth=nth)
    view = window.sessions
    assert window.stack.currentIndex() == SESSIONS
    qtbot.waitUntil(lambda: view.snapshot_box.currentData() == newest.snapshot_id, timeout=TIMEOUT)
    qtbot.waitUntil(lambda: "which package manager" in view.snapshot_text.text(), timeout=TIMEOUT)
    assert view.snapshot_box.count() == 1  # only this session's call
    assert view.title.text() == "cli-webshop-7"
