"""What every Settings panel shares: a titled group that reports to the status bar and can
ask the page to read the store again."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QWidget

from ui.context import UiContext


class SettingsPanel(QGroupBox):
    """One group of the Settings page.

    Signals:
        notified: (str, object) status-bar message and undo callable.
        reload_requested: the page should read the store again (after a change it made).
    """

    notified = Signal(str, object)
    reload_requested = Signal()

    def __init__(self, ctx: UiContext, title: str, parent: QWidget | None = None) -> None:
        super().__init__(title, parent)
        self.ctx = ctx


def left(widget: QWidget) -> QHBoxLayout:
    """`widget` at its natural size, at the left of a growing form field."""
    row = QHBoxLayout()
    row.addWidget(widget)
    row.addStretch(1)
    return row


def value_label(name: str) -> QLabel:
    """A selectable, wrapping read-only value with an accessible name."""
    label = QLabel()
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setWordWrap(True)
    label.setAccessibleName(name)
    return label
