"""What every main view shares: refresh when visible, otherwise only mark itself dirty."""

from __future__ import annotations

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QWidget

from core import ChangeKind, Changes

from ui.changes import touches_any
from ui.context import UiContext


class RefreshingView(QWidget):
    """A view that follows the change bus.

    Subclasses set `watched` (the change kinds they show) and implement `refresh()`.
    """

    watched: frozenset[ChangeKind] = frozenset()

    def __init__(self, ctx: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.dirty = True
        ctx.bus.changes_applied.connect(self._on_changes)

    def refresh(self) -> None:
        """Reload what the view shows (in the background)."""
        raise NotImplementedError

    def refresh_now(self) -> None:
        """Refresh and clear the dirty mark."""
        self.dirty = False
        self.refresh()

    def shows_own_change(self, changes: Changes) -> bool:
        """Whether this view already shows `changes`, which it made itself, so it need not
        reload for them (as Anki's handlers skip their own OpChanges). A view that updates
        its own rows on success says True; by default a view reloads."""
        return False

    def _on_changes(self, changes: Changes, initiator: object | None) -> None:
        if not touches_any(changes, self.watched):
            return
        if initiator is self and self.shows_own_change(changes):
            return
        if self.isVisible():
            self.refresh_now()
        else:
            self.dirty = True

    def showEvent(self, event: QShowEvent) -> None:
        """Catch up on changes that happened while hidden."""
        super().showEvent(event)
        if self.dirty:
            self.refresh_now()
