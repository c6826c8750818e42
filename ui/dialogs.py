"""The memory center's small dialogs. Each is opened non-modally-blocking (`open()`), and the
caller acts on `accepted`, so tests can fill and accept them like a user would.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from core import SCOPE_KEYS, MemoryRecord, Scope


class _Dialog(QDialog):
    def __init__(self, title: str, intro: str, parent: QWidget | None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.intro = QLabel(intro)
        self.intro.setWordWrap(True)
        self.problem = QLabel()
        self.problem.setObjectName("Problem")
        self.form = QFormLayout()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self._check)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addLayout(self.form)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(460)

    def _check(self) -> None:
        problem = self.problem_text()
        if problem:
            self.problem.setText(problem)
            return
        self.accept()

    def problem_text(self) -> str:
        """Why the input cannot be accepted yet ('' when it can)."""
        return ""


class ReasonDialog(_Dialog):
    """Asks for a reason (reject, quarantine)."""

    def __init__(
        self, title: str, intro: str, parent: QWidget | None, *, required: bool = True
    ) -> None:
        super().__init__(title, intro, parent)
        self.required = required
        self.reason = QLineEdit()
        self.reason.setAccessibleName(self.tr("Reason"))
        self.form.addRow(self.tr("Reason"), self.reason)

    def problem_text(self) -> str:
        """A reason is needed when required."""
        return self.tr("Give a reason.") if self.required and not self.value() else ""

    def value(self) -> str:
        """The reason typed."""
        return self.reason.text().strip()


class EditDialog(_Dialog):
    """Edit a memory's wording (edit-then-approve in the review queue)."""

    def __init__(self, record: MemoryRecord, parent: QWidget | None) -> None:
        super().__init__(
            self.tr("Edit memory"),
            self.tr("Change the wording. The old wording stays in the history."),
            parent,
        )
        self.text = QPlainTextEdit(record.content)
        self.text.setAccessibleName(self.tr("Memory text"))
        self.form.addRow(self.tr("Text"), self.text)

    def problem_text(self) -> str:
        """The text must not be empty."""
        return self.tr("The text is empty.") if not self.value() else ""

    def value(self) -> str:
        """The edited text."""
        return self.text.toPlainText().strip()


class ScopeDialog(_Dialog):
    """Narrow (downgrade) a memory's scope by one more key, e.g. project=web-shop.

    With `allow_any` (review queue, "change scope then approve") the whole scope is editable.
    """

    def __init__(
        self, record: MemoryRecord, parent: QWidget | None, *, allow_any: bool = False
    ) -> None:
        super().__init__(
            self.tr("Change scope") if allow_any else self.tr("Downgrade scope"),
            self.tr("Current scope: %1").replace("%1", str(record.scope))
            + "\n"
            + (
                self.tr("Give the whole scope as key=value words.")
                if allow_any
                else self.tr("Add one key=value to narrow where this memory applies.")
            ),
            parent,
        )
        self._old = record.scope
        self._allow_any = allow_any
        self.key = QComboBox()
        self.key.setEditable(False)
        self.key.setAccessibleName(self.tr("Scope key"))
        for key in SCOPE_KEYS:
            if key not in record.scope:
                self.key.addItem(key)
        self.value_edit = QLineEdit()
        self.value_edit.setAccessibleName(self.tr("Scope value"))
        self.whole = QLineEdit(str(record.scope))
        self.whole.setAccessibleName(self.tr("Whole scope"))
        if allow_any:
            self.form.addRow(self.tr("Scope"), self.whole)
        else:
            self.form.addRow(self.tr("Key"), self.key)
            self.form.addRow(self.tr("Value"), self.value_edit)

    def set_extra(self, key: str, value: str) -> None:
        """Fill in the extra key=value (used by tests and keyboard users)."""
        self.key.setCurrentText(key)
        self.value_edit.setText(value)
        self.whole.setText(f"{self._old} {key}={value}".strip())

    def scope(self) -> dict[str, str]:
        """The new scope."""
        if self._allow_any:
            return dict(Scope.parse(self.whole.text().split()).items())
        new = dict(self._old.items())
        new[self.key.currentText()] = self.value_edit.text().strip()
        return new

    def problem_text(self) -> str:
        """The new scope must parse and, for a downgrade, add a value."""
        if not self._allow_any and not self.value_edit.text().strip():
            return self.tr("Give a value for the new key.")
        try:
            Scope.required(self.scope())
        except Exception as exc:
            return str(getattr(exc, "message", exc))
        return ""


class SessionDialog(_Dialog):
    """Choose the session to exclude a memory from."""

    def __init__(self, sessions: list[str], parent: QWidget | None) -> None:
        super().__init__(
            self.tr("Exclude from a session"),
            self.tr("The memory stays active elsewhere but is never injected into this session."),
            parent,
        )
        self.session = QComboBox()
        self.session.setEditable(True)
        self.session.addItems(sessions)
        self.session.setAccessibleName(self.tr("Session"))
        self.form.addRow(self.tr("Session"), self.session)

    def value(self) -> str:
        """The session chosen or typed."""
        return self.session.currentText().strip()

    def problem_text(self) -> str:
        """A session is needed."""
        return self.tr("Choose a session.") if not self.value() else ""


class DeleteDialog(_Dialog):
    """Confirm a deletion, saying exactly what will be irreversibly removed (R19)."""

    def __init__(
        self, record: MemoryRecord, revisions: int, injections: int, parent: QWidget | None
    ) -> None:
        super().__init__(self.tr("Delete memory"), "", parent)
        self._revisions = revisions
        self._injections = injections
        self.reason = QLineEdit()
        self.reason.setAccessibleName(self.tr("Reason"))
        self.purge = QCheckBox(self.tr("Also purge the content (compliance purge)"))
        self.purge.setAccessibleName(self.tr("Purge"))
        self.purge.toggled.connect(self._describe)
        self.form.addRow(self.tr("Reason"), self.reason)
        self.form.addRow("", self.purge)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(self.tr("Delete"))
        self._preview = record.content[:120]
        self._describe()

    def _describe(self) -> None:
        lines = [
            self.tr("“%1”").replace("%1", self._preview),
            "",
            self.tr("This cannot be undone. Deleting will irreversibly:"),
            self.tr(
                "• remove it from the search index, keyword index and injection caches, "
                "so no agent can receive it again;"
            ),
            self.tr(
                "• mark it deleted and keep a tombstone (id, scope, time, who, why, "
                "source event ids)."
            ),
        ]
        if self.purge.isChecked():
            lines += [
                self.tr("• destroy the text of all %1 revision(s);").replace(
                    "%1", str(self._revisions)
                ),
                self.tr(
                    "• blank it out of the injected text of %1 recorded model call(s);"
                ).replace("%1", str(self._injections)),
                self.tr("Only “existed, deleted at T” remains."),
            ]
        else:
            lines.append(self.tr("Its encrypted text stays in the history until purged."))
        self.intro.setText("\n".join(lines))

    def problem_text(self) -> str:
        """A reason is required for the tombstone."""
        return self.tr("Give a reason; it is kept in the tombstone.") if not self.value() else ""

    def value(self) -> str:
        """The reason typed."""
        return self.reason.text().strip()
