"""The one error dialog of the application."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

from core import MemoryCenterError


def show_error(parent: QWidget | None, exc: BaseException) -> None:
    """Show a clear message for `exc`; unexpected errors say so and give the type."""
    if isinstance(exc, MemoryCenterError):
        title, text = "Memory Center", exc.message
    else:
        title, text = "Unexpected error", f"{type(exc).__name__}: {exc}"
    box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setAccessibleName("Error message")
    box.open()
