"""Ask for the store passphrase (when no OS keyring holds the key).

With an `opener` the dialog tries the passphrase itself: a wrong one is said to be wrong and
the dialog stays open for another try, instead of closing as if nothing happened.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from core import WrongPassphraseError

MIN_LENGTH = 8


class PassphraseDialog(QDialog):
    """Modal passphrase prompt; with `new_store` it asks twice and checks the length.

    Attributes:
        opened: what `opener` returned for the accepted passphrase (None without an opener).
    """

    def __init__(
        self,
        new_store: bool,
        parent: QWidget | None = None,
        *,
        opener: Callable[[str], Any] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(
            self.tr("Unlock Memory Center") if not new_store else self.tr("Protect your memories")
        )
        self.setAccessibleName(self.tr("Passphrase"))
        self._new = new_store
        self._opener = opener
        self.opened: Any = None
        intro = QLabel(
            self.tr(
                "No OS keyring is available. Choose a passphrase (at least 8 characters) that "
                "protects the key of your memory store."
            )
            if new_store
            else self.tr("Enter the passphrase of your memory store.")
        )
        intro.setWordWrap(True)
        self.first = QLineEdit()
        self.first.setEchoMode(QLineEdit.EchoMode.Password)
        self.first.setAccessibleName(self.tr("Passphrase"))
        self.second = QLineEdit()
        self.second.setEchoMode(QLineEdit.EchoMode.Password)
        self.second.setAccessibleName(self.tr("Repeat passphrase"))
        self.problem = QLabel()
        self.problem.setObjectName("Problem")
        self.problem.setStyleSheet("color: #b00020")
        self.problem.setWordWrap(True)
        self.problem.setAccessibleName(self.tr("Problem"))
        form = QFormLayout()
        form.addRow(self.tr("Passphrase"), self.first)
        if new_store:
            form.addRow(self.tr("Repeat"), self.second)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Cancel).setText(self.tr("Cancel"))
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText(
            self.tr("Unlock") if not new_store else self.tr("OK")
        )
        buttons.accepted.connect(self._check)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self.setMinimumWidth(420)
        self.first.setFocus()

    def passphrase(self) -> str:
        """The passphrase typed."""
        return self.first.text()

    def _check(self) -> None:
        problem = self._problem()
        if problem:
            self.problem.setText(problem)
            self.first.selectAll()
            self.first.setFocus()
            return
        self.accept()

    def _problem(self) -> str:
        text = self.first.text()
        if self._new and len(text) < MIN_LENGTH:
            return self.tr("Use at least %1 characters.").replace("%1", str(MIN_LENGTH))
        if self._new and text != self.second.text():
            return self.tr("The two passphrases differ.")
        if not text:
            return self.tr("Enter the passphrase.")
        if self._opener is not None:
            try:
                self.opened = self._opener(text)
            except WrongPassphraseError:
                return self.tr("That passphrase is wrong. Try again.")
        return ""
