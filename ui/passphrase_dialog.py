"""Ask for the store passphrase (when no OS keyring holds the key)."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

MIN_LENGTH = 8


class PassphraseDialog(QDialog):
    """Modal passphrase prompt; with `new_store` it asks twice and checks the length."""

    def __init__(self, new_store: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(
            "Unlock Memory Center" if not new_store else "Protect your memory store"
        )
        self._new = new_store
        intro = QLabel(
            "No OS keyring is available. Choose a passphrase (at least 8 characters) that "
            "protects the key of your memory store."
            if new_store
            else "Enter the passphrase of your memory store."
        )
        intro.setWordWrap(True)
        self.first = QLineEdit()
        self.first.setEchoMode(QLineEdit.EchoMode.Password)
        self.first.setAccessibleName("Passphrase")
        self.second = QLineEdit()
        self.second.setEchoMode(QLineEdit.EchoMode.Password)
        self.second.setAccessibleName("Repeat passphrase")
        self.problem = QLabel()
        self.problem.setStyleSheet("color: #b00020")
        form = QFormLayout()
        form.addRow("Passphrase", self.first)
        if new_store:
            form.addRow("Repeat", self.second)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self._check)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)

    def passphrase(self) -> str:
        """The passphrase typed."""
        return self.first.text()

    def _check(self) -> None:
        if self._new and len(self.first.text()) < MIN_LENGTH:
            self.problem.setText(f"Use at least {MIN_LENGTH} characters.")
            return
        if self._new and self.first.text() != self.second.text():
            self.problem.setText("The two passphrases differ.")
            return
        if not self.first.text():
            self.problem.setText("Enter the passphrase.")
            return
        self.accept()
