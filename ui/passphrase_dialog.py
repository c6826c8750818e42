"""Ask for the store passphrase (when no OS keyring holds the key).

With an `opener` the dialog tries the passphrase itself: a wrong one is said to be wrong and
the dialog stays open for another try, instead of closing as if nothing happened. The opener
(deriving the key, opening the store: seconds for a big store) runs on a worker thread while
the dialog says "Unlocking…" and keeps answering; before, its image froze after Enter (#43).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QVBoxLayout,
    QWidget,
)

from core import WrongPassphraseError

MIN_LENGTH = 8


class _Relay(QObject):
    """Carries the opener's outcome from its thread to the dialog's."""

    opened = Signal(object)
    failed = Signal(object)


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
        self.buttons = buttons
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)
        self.busy.setTextVisible(False)
        self.busy.setAccessibleName(self.tr("Unlocking"))
        self.busy.hide()
        self.state = QLabel(self.tr("Unlocking…"))
        self.state.setAccessibleName(self.tr("Unlocking"))
        self.state.hide()
        self._relay = _Relay(self)
        self._relay.opened.connect(self._opened)
        self._relay.failed.connect(self._failed)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(self.state)
        layout.addWidget(self.busy)
        layout.addWidget(buttons)
        self.setMinimumWidth(420)
        self.first.setFocus()

    def passphrase(self) -> str:
        """The passphrase typed."""
        return self.first.text()

    @property
    def unlocking(self) -> bool:
        """True while the opener runs."""
        return not self.busy.isHidden()

    def _check(self) -> None:
        if self.unlocking:
            return
        problem = self._problem()
        if problem:
            self._show_problem(problem)
        elif self._opener is None:
            self.accept()
        else:
            self._start_opening(self._opener, self.first.text())

    def _show_problem(self, problem: str) -> None:
        self.problem.setText(problem)
        self.first.selectAll()
        self.first.setFocus()

    def _problem(self) -> str:
        text = self.first.text()
        if self._new and len(text) < MIN_LENGTH:
            return self.tr("Use at least %1 characters.").replace("%1", str(MIN_LENGTH))
        if self._new and text != self.second.text():
            return self.tr("The two passphrases differ.")
        if not text:
            return self.tr("Enter the passphrase.")
        return ""

    def _start_opening(self, opener: Callable[[str], Any], passphrase: str) -> None:
        """Run the opener on a worker thread; the dialog shows that it works meanwhile."""
        self._set_busy(True)
        relay = self._relay

        def run() -> None:
            try:
                value = opener(passphrase)
            except BaseException as exc:  # shown in the dialog, on its thread
                relay.failed.emit(exc)
                return
            relay.opened.emit(value)

        threading.Thread(target=run, name="mc-unlock", daemon=True).start()

    def _set_busy(self, busy: bool) -> None:
        self.busy.setVisible(busy)
        self.state.setVisible(busy)
        for widget in (self.first, self.second, self.buttons):
            widget.setEnabled(not busy)
        self.problem.setText("")

    def _opened(self, value: Any) -> None:
        self._set_busy(False)
        self.opened = value
        self.accept()

    def _failed(self, exc: BaseException) -> None:
        self._set_busy(False)
        if isinstance(exc, WrongPassphraseError):
            self._show_problem(self.tr("That passphrase is wrong. Try again."))
        else:  # a damaged store, a lock held elsewhere, ...: said here, the dialog stays
            self._show_problem(str(getattr(exc, "message", exc)))

    def reject(self) -> None:
        """Cancel, except while unlocking (the store being opened would be left open)."""
        if not self.unlocking:
            super().reject()
