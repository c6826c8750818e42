"""The replay of a model call says how its memory was found, as the command line's `inject`
and the MCP answer do (#43 item 8, #44): a full search, keywords only (and why), nothing
because the session opted out. Before, it showed only a "degraded" flag, so an opted-out
call or one answered by keywords alone looked like a full one."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from core import MemoryService
from tests.ui.conftest import TIMEOUT

from ui.main_window import MainWindow
from ui.style import DARK, LIGHT, apply_style
from ui.views.snapshot_text import mode_text

SESSION = "web-shop-ci"
SCOPE = {"user": "kim", "project": "web-shop"}


def _replay(qtbot: QtBot, window: MainWindow, snapshot_id: str, expected: str) -> str:
    window.open_replay(SESSION, snapshot_id)
    view = window.sessions
    qtbot.waitUntil(lambda: view.snapshot_box.currentData() == snapshot_id, timeout=TIMEOUT)
    try:
        qtbot.waitUntil(lambda: expected in view.snapshot_text.text(), timeout=TIMEOUT)
    except AssertionError:
        raise AssertionError(f"{expected!r} not in {view.snapshot_text.text()!r}") from None
    return view.snapshot_text.text()


def test_the_replay_names_the_mode_the_call_used(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    full = demo.retrieval.inject(SCOPE, "how do we deploy", 400, session=SESSION).value
    _replay(qtbot, window, full.snapshot_id, f"Memory found by: {mode_text(full.mode)}")
    assert full.mode in ("hybrid", "keyword")
    # The user switches memory off for the session (the switch on its page); the agent's
    # next call gets nothing, and its replay says why instead of looking like a full one.
    view = window.sessions
    assert not view.opt_out.isChecked()
    view.opt_out.click()
    qtbot.waitUntil(lambda: demo.events.get_session(SESSION).opted_out, timeout=TIMEOUT)
    off = demo.retrieval.inject(SCOPE, "how do we deploy", 400, session=SESSION).value
    assert off.mode == "opted_out"
    text = _replay(
        qtbot, window, off.snapshot_id, "Memory found by: no memory: this session opted out"
    )
    assert "the session opted out of memory" in text
    assert "⚠" in text
    # The whole-call entry is said on the mode line, not listed as a dropped memory "*".
    assert 'href="memory:*"' not in text


def test_the_replay_warnings_are_readable_in_the_dark_theme(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """The replay's warnings are coloured inline: with the dark theme they take its colours
    (before, dark brown on the dark background, and light text on a cream highlight)."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    demo.events.set_session_opt_out(SESSION, True)
    off = demo.retrieval.inject(SCOPE, "how do we deploy", 400, session=SESSION).value
    try:
        apply_style(app, dark=True)
        text = _replay(qtbot, window, off.snapshot_id, "no memory: this session opted out")
        assert f"color:{DARK['warn_fg']}" in text
        assert LIGHT["warn_fg"] not in text
    finally:
        apply_style(app, dark=False)
