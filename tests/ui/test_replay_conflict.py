"""A replay shows when the call was given memories that contradict each other (#14 defect 12)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from core import MemoryService
from tests.ui.conftest import TIMEOUT

from ui.main_window import SESSIONS, MainWindow


def test_replay_marks_contradicting_memories(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """Carol's deploy call was given both staging regions: the replay says they contradict,
    and each links to the other."""
    regions = [r for r in demo.memories.list_memories() if "Staging for checkout" in r.content]
    assert len(regions) == 2 and regions[0].conflict_set == regions[1].conflict_set
    window.nav.setCurrentRow(SESSIONS)
    view = window.sessions
    qtbot.waitUntil(lambda: view.sessions.row_of("checkout-carol") >= 0, timeout=TIMEOUT)
    table = view.session_table
    index = view.sessions.index(view.sessions.row_of("checkout-carol"), 0)
    qtbot.mouseClick(
        table.viewport(), Qt.MouseButton.LeftButton, pos=table.visualRect(index).center()
    )
    qtbot.waitUntil(lambda: "us-east-2" in view.snapshot_text.text(), timeout=TIMEOUT)
    text = view.snapshot_text.text()
    assert "contradict each other" in text
    assert text.count("contradicts another memory here") == 2
    for r in regions:
        assert f"memory:{r.id}" in text
    replay = demo.retrieval.replay(str(view.snapshot_box.currentData()))
    marked = {i.memory_id for i in replay.items if "conflict" in i.marks}
    assert marked == {r.id for r in regions}
