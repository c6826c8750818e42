"""Single-letter shortcuts are only safe when the user is not typing.

A letter typed into a text field, or while a dialog is open, is text for that field or
dialog; it must never approve or reject anything behind it.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)


def is_text_input(widget: QWidget | None) -> bool:
    """True for widgets that take typed text (line and text edits, spin boxes, editable combos)."""
    if isinstance(widget, (QLineEdit, QPlainTextEdit, QTextEdit, QAbstractSpinBox)):
        return True
    return isinstance(widget, QComboBox) and widget.isEditable()


def letters_are_text(owner: QWidget) -> bool:
    """True when a typed letter belongs to a text field or a dialog, not to `owner`'s shortcuts."""
    modal = QApplication.activeModalWidget()
    if modal is not None and modal is not owner.window():
        return True
    active = QApplication.activeWindow()
    if active is not None and active is not owner.window():
        return True
    return is_text_input(QApplication.focusWidget())
