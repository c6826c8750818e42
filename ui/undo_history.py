"""The window's undo history (#39): Ctrl+Z walks back through every change made here, with no
time limit while the window is open; Ctrl+Shift+Z walks forward again.

Every change the core journals comes back with its command id (`Changes.command_id`); undoing
it is one call, `undo_change`, whatever the change was. A few settings the journal does not
cover (a session's opt-out) are undone by the inverse the view offers. An undo is a change
of its own in the core: the memory's history shows it, and undoing it redoes. Ctrl+Z
pressed while the window's last change is still being written waits for it to land and
undoes that change, not the one before it.

The dialog lists the store's journal, newest first, changes made elsewhere included (an
agent's, the CLI's), and undoes the one the user picks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMenu,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core import Changes, JournalCommand, MemoryService, Result
from core.model import commands as c

from ui.context import UiContext
from ui.ops import MutatingOp, mutate, query

DESKTOP = c.Origin("desktop")


Inverse = Callable[[], None]


@dataclass(frozen=True)
class Step:
    """One entry of the history: a journalled change, or a view's inverse action."""

    label: str
    command_id: str | None = None
    inverse: Inverse | None = None


class UndoHistory(QObject):
    """The undo and redo stacks of one open store.

    Signals:
        changed: the stacks changed (enable or disable Undo and Redo).
        done: (str) what an undo or redo did, for the status bar.
    """

    changed = Signal()
    done = Signal(str)

    def __init__(self, ctx: UiContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ctx = ctx
        self.undo_steps: list[Step] = []
        self.redo_steps: list[Step] = []
        # Set when the window's own change was journalled, until the view's message for it
        # arrives (`offer`): its inverse is then the journal's, not the view's.
        self._journalled = False
        # Undo and redo asked for while a write of this window was still running: the change
        # to undo is the one running, which the history learns of only when it lands.
        self._waiting: list[tuple[Callable[[QObject], None], QObject]] = []
        ctx.bus.changes_applied.connect(self._seen)
        ctx.tasks.writes_settled.connect(self._settled)

    def _seen(self, changes: Changes, initiator: object | None) -> None:
        if initiator is None or changes.command_id is None or changes.undoes is not None:
            return  # another writer's change, an unjournalled one, or our own undo/redo
        self.undo_steps.append(Step("", changes.command_id))
        self.redo_steps.clear()
        self._journalled = True
        self.changed.emit()

    def offer(self, label: str, inverse: Inverse | None) -> None:
        """A view says what it just did (and its inverse, if it has one)."""
        if self._journalled:
            self._journalled = False
            if self.undo_steps and not self.undo_steps[-1].label:
                step = self.undo_steps[-1]
                self.undo_steps[-1] = Step(label, step.command_id)
            return
        if inverse is not None:
            self.undo_steps.append(Step(label, inverse=inverse))
            self.redo_steps.clear()
            self.changed.emit()

    def can_undo(self) -> bool:
        return bool(self.undo_steps)

    def can_redo(self) -> bool:
        return bool(self.redo_steps)

    def undo(self, parent: QObject) -> None:
        """Undo the latest change made here (one still running: once it has landed)."""
        if self._ctx.tasks.writing:
            self._waiting.append((self.undo, parent))
            return
        if not self.undo_steps:
            return
        step = self.undo_steps.pop()
        self.changed.emit()
        if step.inverse is not None:
            step.inverse()
            return
        self._run(step, parent, self.redo_steps, self.tr("Undone: %1"))

    def redo(self, parent: QObject) -> None:
        """Redo the latest undo (an undo of the undo)."""
        if self._ctx.tasks.writing:
            self._waiting.append((self.redo, parent))
            return
        if not self.redo_steps:
            return
        step = self.redo_steps.pop()
        self.changed.emit()
        self._run(step, parent, self.undo_steps, self.tr("Redone: %1"))

    def _settled(self) -> None:
        """Every write has landed: run the first undo or redo asked for meanwhile (each one
        is a write, so the next waits for it in turn)."""
        while self._waiting and not self._ctx.tasks.writing:
            action, parent = self._waiting.pop(0)
            if shiboken6.isValid(parent):
                action(parent)

    def _run(self, step: Step, parent: QObject, into: list[Step], said: str) -> None:
        cid = str(step.command_id)

        def landed(new_id: str | None) -> None:
            if new_id is not None:
                into.append(Step(step.label, new_id))
                self.changed.emit()
            self.done.emit(said.replace("%1", step.label or self.tr("the last change")))

        undo_change(self._ctx, cid).on_success(landed).run(parent)


def undo_change(ctx: UiContext, command_id: str) -> MutatingOp[str | None]:
    """Undo one journalled change; the value is the undo's own command id (to redo)."""

    def work(s: MemoryService) -> Result[str | None]:
        result = s.commands.run(c.UndoChange(command_id), DESKTOP)
        return Result(result.changes.command_id, result.changes)

    return mutate(ctx, work)


class EditMenu(QObject):
    """The window's Edit menu: Undo, Redo and Undo history over the open store's history.

    The window lends its status bar (`message`, `undo_button`), its `locked` state and its
    `ctx`, and puts `menu` in its menu bar; `attach` starts a new history for each store
    opened (or unlocked).
    """

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self._window = window
        self.menu = menu = QMenu(self.tr("&Edit"), window)
        self.history: UndoHistory | None = None
        self.undo = QAction(self.tr("&Undo"), window)
        self.undo.setShortcut(QKeySequence.StandardKey.Undo)
        self.undo.triggered.connect(window.undo)
        self.redo = QAction(self.tr("&Redo"), window)
        # All the platform's bindings (Ctrl+Y and Ctrl+Shift+Z here), not only the first.
        self.redo.setShortcuts(QKeySequence.StandardKey.Redo)
        self.redo.triggered.connect(window.redo)
        self.history_action = QAction(self.tr("Undo &history…"), window)
        self.history_action.triggered.connect(self.show_dialog)
        for action in (self.undo, self.redo, self.history_action):
            action.setEnabled(False)
            menu.addAction(action)

    def attach(self, ctx: UiContext) -> UndoHistory:
        """A new, empty history for the store just opened."""
        self.history = UndoHistory(ctx, self)
        self.history.changed.connect(self.refresh)
        self.history.done.connect(lambda text: self._window.notify(text, None))
        self.refresh()
        return self.history

    def offer(self, text: str, inverse: Inverse | None) -> None:
        if self.history is not None and not self._window.locked:
            self.history.offer(text, inverse)
        self.refresh()

    def run_undo(self) -> None:
        if self.history is not None and not self._window.locked:
            self.history.undo(self._window)

    def run_redo(self) -> None:
        if self.history is not None and not self._window.locked:
            self.history.redo(self._window)

    def show_dialog(self) -> None:
        """The store's change journal, to undo any change (not only the latest)."""
        if not self._window.locked:
            UndoHistoryDialog(self._window.ctx, self._window).exec()

    def refresh(self) -> None:
        """Enable what applies; the status bar's Undo shows while a message does."""
        open_ = self.history is not None and not self._window.locked
        can_undo = open_ and self.history is not None and self.history.can_undo()
        self.undo.setEnabled(can_undo)
        self.redo.setEnabled(open_ and self.history is not None and self.history.can_redo())
        self.history_action.setEnabled(open_)
        self._window.undo_button.setVisible(can_undo and bool(self._window.message.text()))


class UndoHistoryDialog(QDialog):
    """The store's change journal, newest first; undo the selected change."""

    def __init__(self, ctx: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._ctx = ctx
        self.commands: list[JournalCommand] = []
        self.setWindowTitle(self.tr("Undo history"))
        self.setAccessibleName(self.tr("Undo history"))
        self.resize(760, 420)
        intro = QLabel(
            self.tr(
                "Every change to your memories, newest first, whoever made it. Undo puts the "
                "memories it changed back as they were; the history keeps both. A deletion "
                "cannot be undone."
            )
        )
        intro.setWordWrap(True)
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(
            [self.tr("When"), self.tr("Change"), self.tr("By"), self.tr("Memories")]
        )
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setAccessibleName(self.tr("Changes"))
        self.undo_button = QPushButton(self.tr("Undo this change"))
        self.undo_button.setObjectName("Primary")
        self.undo_button.setEnabled(False)
        self.undo_button.clicked.connect(self.undo_selected)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.addButton(self.undo_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        self.table.itemSelectionChanged.connect(self._selected)
        box = QVBoxLayout(self)
        box.addWidget(intro)
        box.addWidget(self.table, 1)
        box.addWidget(self.status)
        box.addWidget(buttons)
        self.load()

    def load(self) -> None:
        """Read the journal again."""
        query(self._ctx, lambda s: s.review.changes(limit=200)).on_success(self._show).run(self)

    def _show(self, commands: list[JournalCommand]) -> None:
        self.commands = commands
        self.table.setRowCount(len(commands))
        for row, command in enumerate(commands):
            label = command.action
            if command.undone_by:
                label += " " + self.tr("(undone)")
            cells = (
                command.ts.astimezone().strftime("%Y-%m-%d %H:%M"),
                label,
                command.actor,
                ", ".join(_describe(e.before, e.after) for e in command.entries),
            )
            for col, value in enumerate(cells):
                item = QTableWidgetItem(value)
                item.setToolTip(
                    "\n".join(
                        f"{e.memory_id}: {_describe(e.before, e.after)}" for e in command.entries
                    )
                )
                self.table.setItem(row, col, item)
        self.table.resizeColumnsToContents()
        if commands:
            self.table.selectRow(0)
        self.table.setFocus(Qt.FocusReason.OtherFocusReason)

    def _selected(self) -> None:
        command = self.selected()
        self.undo_button.setEnabled(command is not None and command.undone_by is None)

    def selected(self) -> JournalCommand | None:
        rows = self.table.selectionModel().selectedRows()
        return self.commands[rows[0].row()] if rows else None

    def undo_selected(self) -> None:
        """Undo the selected change; a refusal (changed since, a deletion) is shown here."""
        command = self.selected()
        if command is None:
            return
        op = undo_change(self._ctx, command.id)
        op.on_success(lambda _id: self._after(self.tr("Undone.")))
        op.on_failure(lambda error: self._after(str(error)))
        op.run(self)

    def _after(self, message: str) -> None:
        self.status.setText(message)
        self.load()


def _describe(before: dict[str, object] | None, after: dict[str, object]) -> str:
    was = str(before["status"]) if before else QCoreApplication.translate("UndoHistory", "new")
    now = str(after["status"])
    if was == now:
        return QCoreApplication.translate("UndoHistory", "%1 (changed)").replace("%1", now)
    return f"{was} → {now}"
