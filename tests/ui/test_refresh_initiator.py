"""#15.2: a view honours the initiator of a change: one that already shows its own change
does not reload for it; every other view, and the same view for others' changes, reloads."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QVBoxLayout
from pytestqt.qtbot import QtBot

from core import ChangeKind, Changes, MemoryService
from tests.ui.conftest import TIMEOUT, find

from ui.context import UiContext
from ui.main_window import MainWindow
from ui.operations.memory import disable_memory
from ui.views.base import RefreshingView


class _Counting(RefreshingView):
    """Reloads are counted; with `own_shown`, the view claims to show its own changes."""

    watched = frozenset({ChangeKind.MEMORIES})

    def __init__(self, ctx: UiContext, own_shown: bool) -> None:
        super().__init__(ctx)
        self.own_shown = own_shown
        self.reloads = 0
        self.button = QPushButton("Disable", self)
        QVBoxLayout(self).addWidget(self.button)

    def refresh(self) -> None:
        self.reloads += 1

    def shows_own_change(self, changes: Changes) -> bool:
        return self.own_shown


def test_a_view_skips_reloading_for_its_own_change(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    target = find(demo, "terse replies")
    demo.review.approve(target.id)
    actor = _Counting(window.ctx, own_shown=True)
    bystander = _Counting(window.ctx, own_shown=True)
    default = _Counting(window.ctx, own_shown=False)
    for view in (actor, bystander, default):
        qtbot.addWidget(view)
        view.show()
        qtbot.waitExposed(view)
        view.reloads = 0
    actor.button.clicked.connect(lambda: disable_memory(window.ctx, target.id).run(actor))
    qtbot.mouseClick(actor.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bystander.reloads == 1, timeout=TIMEOUT)
    assert demo.memories.get_memory(target.id).status.value == "disabled"
    assert actor.reloads == 0  # it made the change and shows it already
    assert default.reloads == 1  # a view that does not say so reloads as before


def test_the_sessions_view_shows_its_own_opt_out_without_reloading(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """The switch's row says "opted out" at once; the list is not reloaded for the view's own
    change (no model reset), while a change made elsewhere still reloads it."""
    window.open_session("web-shop-ci")
    view = window.sessions
    qtbot.waitUntil(
        lambda: view.current is not None and view.current.id == "web-shop-ci", timeout=TIMEOUT
    )
    model = view.sessions
    row = model.row_of("web-shop-ci")
    resets: list[int] = []
    model.modelReset.connect(lambda: resets.append(1))
    view.opt_out.click()
    state = model.index(row, 3)
    qtbot.waitUntil(lambda: model.data(state) == "opted out", timeout=TIMEOUT)
    qtbot.waitUntil(lambda: "Memory is off" in window.message.text(), timeout=TIMEOUT)
    assert demo.events.get_session("web-shop-ci").opted_out
    assert resets == []
    # Another writer (here: the engine directly, as a second process would) turns it on again.
    demo.events.set_session_opt_out("web-shop-ci", False)
    qtbot.waitUntil(lambda: bool(resets), timeout=TIMEOUT)
    qtbot.waitUntil(
        lambda: model.data(model.index(model.row_of("web-shop-ci"), 3)) == "on", timeout=TIMEOUT
    )
