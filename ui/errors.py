"""The one error dialog of the application.

The headline says, in the interface language, what kind of problem it is; the engine's own
one-line message (English, as recorded in logs) follows as the detail.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QMessageBox, QWidget

from core import MemoryCenterError


def headline(kind: str) -> str:
    """What went wrong, by the error's kind, in plain translated words."""
    words = {
        "invalid_input": QCoreApplication.translate(
            "Error", "Some of what was entered is not valid."
        ),
        "scope_required": QCoreApplication.translate(
            "Error", "A scope is needed (who or what it applies to)."
        ),
        "not_found": QCoreApplication.translate(
            "Error", "It was not found; it may have been deleted."
        ),
        "invalid_state": QCoreApplication.translate(
            "Error", "This cannot be done to it in its current state."
        ),
        "conflict": QCoreApplication.translate(
            "Error", "Someone else changed it at the same time; try again."
        ),
        "policy_denied": QCoreApplication.translate(
            "Error", "The memory policy does not allow this."
        ),
        "unavailable": QCoreApplication.translate("Error", "Something needed is not available."),
        "key_unavailable": QCoreApplication.translate("Error", "The store's key is not available."),
        "wrong_passphrase": QCoreApplication.translate("Error", "That passphrase is wrong."),
        "store_too_new": QCoreApplication.translate(
            "Error", "This store was made by a newer Memory Center."
        ),
        "integrity": QCoreApplication.translate("Error", "The store failed an integrity check."),
        "server_unavailable": QCoreApplication.translate(
            "Error", "The database server cannot be reached."
        ),
        "spooled": QCoreApplication.translate(
            "Error",
            "The server cannot be reached: the change waits on this computer and is applied "
            "when it returns.",
        ),
    }
    return words.get(kind, QCoreApplication.translate("Error", "Memory Center could not do this."))


def show_error(parent: QWidget | None, exc: BaseException) -> None:
    """Show a clear message for `exc`; unexpected errors say so and give the type."""
    title = QCoreApplication.translate("Error", "Memory Center")
    if isinstance(exc, MemoryCenterError):
        text, detail = headline(exc.kind), exc.message
    else:
        text = QCoreApplication.translate("Error", "Something unexpected went wrong.")
        detail = f"{type(exc).__name__}: {exc}"
    box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setInformativeText(detail)
    box.setAccessibleName(QCoreApplication.translate("Error", "Error message"))
    box.open()
