"""#39: the window's undo history. Ctrl+Z walks back through every change made here, with no
time limit; Ctrl+Shift+Z walks forward; the Undo history dialog undoes any journalled change,
and says why when it cannot."""

from __future__ import annotations

import threading

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from core import MemoryService
from tests.ui.conftest import TIMEOUT, find, wait_status
from tests.ui.test_review import _open_review, _select

from ui.main_window import MainWindow
from ui.undo_history import UndoHistoryDialog


def _key(qtbot: QtBot, window: MainWindow, key: Qt.Key, mods: Qt.KeyboardModifier) -> None:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=TIMEOUT)
    qtbot.keyClick(window, key, mods)


def test_ctrl_z_walks_back_through_every_change_and_redo_walks_forward(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    view = _open_review(qtbot, window)
    _select(qtbot, view, "squash-merges")
    qtbot.keyClick(view.list, Qt.Key.Key_A)
    wait_status(qtbot, demo, "squash-merges", "active")
    _select(qtbot, view, "terse replies")
    qtbot.keyClick(view.list, Qt.Key.Key_A)
    wait_status(qtbot, demo, "terse replies", "active")
    qtbot.waitUntil(lambda: len(window.history.undo_steps) == 2, timeout=TIMEOUT)
    # The status bar's message goes away; the history does not.
    window._message_timer.timeout.emit()
    assert window.undo_action.isEnabled()

    ctrl = Qt.KeyboardModifier.ControlModifier
    _key(qtbot, window, Qt.Key.Key_Z, ctrl)
    wait_status(qtbot, demo, "terse replies", "candidate")
    assert find(demo, "squash-merges").status.value == "active"
    qtbot.waitUntil(lambda: len(window.history.undo_steps) == 1, timeout=TIMEOUT)
    _key(qtbot, window, Qt.Key.Key_Z, ctrl)
    wait_status(qtbot, demo, "squash-merges", "candidate")
    qtbot.waitUntil(lambda: not window.undo_action.isEnabled(), timeout=TIMEOUT)

    qtbot.waitUntil(lambda: len(window.history.redo_steps) == 2, timeout=TIMEOUT)
    _key(qtbot, window, Qt.Key.Key_Z, ctrl | Qt.KeyboardModifier.ShiftModifier)
    wait_status(qtbot, demo, "squash-merges", "active")
    assert find(demo, "terse replies").status.value == "candidate"
    history = [d.action for d in demo.memories.history(find(demo, "squash-merges").id)]
    assert history[-3:] == ["approve", "undo_approve", "undo_undo_approve"]
    assert demo.verify().ok


def test_the_history_dialog_undoes_a_chosen_change_and_explains_a_refusal(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    target = find(demo, "squash-merges")
    older = demo.review.approve(target.id).changes.command_id
    demo.review.disable(find(demo, "pnpm for every").id)  # a later, unrelated change
    dialog = UndoHistoryDialog(window.ctx, window)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: len(dialog.commands) >= 2, timeout=TIMEOUT)
    row = next(i for i, c in enumerate(dialog.commands) if c.id == older)
    dialog.table.selectRow(row)
    assert dialog.undo_button.isEnabled()
    qtbot.mouseClick(dialog.undo_button, Qt.MouseButton.LeftButton)
    wait_status(qtbot, demo, "squash-merges", "candidate")
    assert find(demo, "pnpm for every").status.value == "disabled"
    qtbot.waitUntil(lambda: dialog.status.text() == "Undone.", timeout=TIMEOUT)
    # Reloaded: the change is marked undone and cannot be undone twice.
    qtbot.waitUntil(
        lambda: any(c.id == older and c.undone_by for c in dialog.commands), timeout=TIMEOUT
    )
    row = next(i for i, c in enumerate(dialog.commands) if c.id == older)
    dialog.table.selectRow(row)
    assert not dialog.undo_button.isEnabled()

    # A change whose memory changed since is refused, with the reason shown in the dialog.
    mid = find(demo, "pnpm for every").id
    stale = demo.review.changes(memory_id=mid, limit=1)[0].id
    demo.review.enable(mid)
    dialog.load()
    qtbot.waitUntil(lambda: any(c.id == stale for c in dialog.commands), timeout=TIMEOUT)
    dialog.table.selectRow(next(i for i, c in enumerate(dialog.commands) if c.id == stale))
    qtbot.mouseClick(dialog.undo_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "changed since" in dialog.status.text(), timeout=TIMEOUT)
    assert find(demo, "pnpm for every").status.value == "active"


def test_ctrl_z_while_a_change_is_still_running_undoes_that_change(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """Ctrl+Z pressed before the change the user just made has landed undid the change
    before it: the history learns of a change only when it lands. The undo now waits for
    the running change and undoes it."""
    view = _open_review(qtbot, window)
    _select(qtbot, view, "terse replies")
    qtbot.keyClick(view.list, Qt.Key.Key_A)
    wait_status(qtbot, demo, "terse replies", "active")
    qtbot.waitUntil(lambda: len(window.history.undo_steps) == 1, timeout=TIMEOUT)

    # A slow store: the writer is held until the Ctrl+Z below has been pressed.
    release = threading.Event()
    window.ctx.tasks.run(lambda: release.wait(30), lambda _v: None, print, mutating=True)
    _select(qtbot, view, "squash-merges")
    qtbot.keyClick(view.list, Qt.Key.Key_A)
    _key(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.ctx.tasks.writing  # both writes still wait: nothing was undone yet
    release.set()

    qtbot.waitUntil(
        lambda: (
            [d.action for d in demo.memories.history(find(demo, "squash-merges").id)][-1]
            == "undo_approve"
        ),
        timeout=TIMEOUT,
    )
    qtbot.waitUntil(lambda: not window.ctx.tasks.writing, timeout=TIMEOUT)
    assert find(demo, "squash-merges").status.value == "candidate"
    assert find(demo, "terse replies").status.value == "active"  # the earlier change stays
    history = [d.action for d in demo.memories.history(find(demo, "squash-merges").id)]
    assert history[-2:] == ["approve", "undo_approve"]
