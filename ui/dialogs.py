"""The memory center's small dialogs. Each is opened non-modally-blocking (`open()`), and the
caller acts on `accepted`, so tests can fill and accept them like a user would.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtGui import QKeySequence, QShortcut, QShowEvent, QTextCursor
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from core import SCOPE_KEYS, InvalidInputError, MemoryCenterError, MemoryRecord, Scope


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
        # The dialog grows with its text (a longer explanation must never be clipped).
        layout.setSizeConstraint(QLayout.SizeConstraint.SetMinimumSize)
        layout.addWidget(self.intro)
        layout.addLayout(self.form)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(460)
        # Ctrl+Enter submits from anywhere in the dialog, also from a multi-line text field
        # where Enter starts a new line.
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            QShortcut(QKeySequence(keys), self).activated.connect(self._check)

    def focus_target(self) -> QWidget | None:
        """The input that gets the keyboard focus when the dialog opens."""
        return None

    def showEvent(self, event: QShowEvent) -> None:
        """Put the focus on the input, never on OK: typing must not press a button."""
        super().showEvent(event)
        target = self.focus_target()
        if target is not None:
            target.setFocus()

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

    def focus_target(self) -> QWidget | None:
        """The reason field."""
        return self.reason

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
        self.text.setTabChangesFocus(True)
        self.intro.setText(self.intro.text() + "\n" + self.tr("Ctrl+Enter saves."))

    def focus_target(self) -> QWidget | None:
        """The text, with the cursor at its end."""
        self.text.moveCursor(QTextCursor.MoveOperation.End)
        return self.text

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
        # Wide enough for the whole scope (and a key more), up to most of a screen.
        room = self.whole.fontMetrics().horizontalAdvance(f"{record.scope} project=a-project")
        self.whole.setMinimumWidth(min(room + 24, 900))
        self.whole.setToolTip(str(record.scope))
        if allow_any:
            self.form.addRow(self.tr("Scope"), self.whole)
        else:
            self.form.addRow(self.tr("Key"), self.key)
            self.form.addRow(self.tr("Value"), self.value_edit)

    def focus_target(self) -> QWidget | None:
        """The scope field (whole scope) or the value of the extra key."""
        return self.whole if self._allow_any else self.value_edit

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

    def focus_target(self) -> QWidget | None:
        """The session chooser."""
        return self.session

    def value(self) -> str:
        """The session chosen or typed."""
        return self.session.currentText().strip()

    def problem_text(self) -> str:
        """A session is needed."""
        return self.tr("Choose a session.") if not self.value() else ""


class DeleteDialog(_Dialog):
    """Confirm a deletion, saying exactly what will be irreversibly removed (R19)."""

    def __init__(
        self,
        record: MemoryRecord,
        revisions: int,
        injections: int,
        parent: QWidget | None,
        *,
        sources: Sequence[str] = (),
        deleted: bool = False,
    ) -> None:
        super().__init__(
            self.tr("Purge memory") if deleted else self.tr("Delete memory"), "", parent
        )
        self._revisions = revisions
        self._injections = injections
        self._sources = [s for s in sources if s]
        self.purge_events = QCheckBox(
            self.tr("Also purge the %n source event(s) it came from", "", len(self._sources))
        )
        self.purge_events.setAccessibleName(self.tr("Purge source events"))
        self.purge_events.setEnabled(False)
        self.purge_events.setVisible(bool(self._sources))
        self.purge_events.toggled.connect(self._describe)
        self.reason = QLineEdit()
        self.reason.setAccessibleName(self.tr("Reason"))
        self.purge = QCheckBox(self.tr("Also purge the content (compliance purge)"))
        self.purge.setAccessibleName(self.tr("Purge"))
        self.purge.toggled.connect(self._describe)
        self.purge.toggled.connect(self.purge_events.setEnabled)
        self.form.addRow(self.tr("Reason"), self.reason)
        self.form.addRow("", self.purge)
        self.form.addRow("", self.purge_events)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(self.tr("Delete"))
        self._preview = record.content[:120]
        if deleted:
            # Deleted already, its text kept until purged: what is left to do is the purge.
            self.purge.setChecked(True)
            self.purge.setEnabled(False)
            self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(self.tr("Purge"))
        self._describe()

    def focus_target(self) -> QWidget | None:
        """The reason field."""
        return self.reason

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
                self.tr("• destroy the text of all %n revision(s);", "", self._revisions),
                self.tr(
                    "• blank it out of the injected text of %n recorded model call(s);",
                    "",
                    self._injections,
                ),
                self.tr("Only “existed, deleted at T” remains."),
            ]
        else:
            lines.append(self.tr("Its encrypted text stays in the history until purged."))
        lines += self._source_preview()
        self.intro.setText("\n".join(lines))
        if self.isVisible():
            self.adjustSize()

    def _source_preview(self) -> list[str]:
        """Before and after for the source events: what stays readable in the log."""
        if not self._sources:
            return []
        first = self._sources[0][:100]
        gone = self.purge.isChecked() and self.purge_events.isChecked()
        return [
            "",
            self.tr("Source event now: “%1”").replace("%1", first),
            self.tr("After: [redacted] (the event stays in the log, its text is destroyed)")
            if gone
            else self.tr("After: unchanged (the source events keep their text)"),
        ]

    def problem_text(self) -> str:
        """A reason is required for the tombstone."""
        return self.tr("Give a reason; it is kept in the tombstone.") if not self.value() else ""

    def value(self) -> str:
        """The reason typed."""
        return self.reason.text().strip()


class SplitScopeDialog(_Dialog):
    """Split a conflict set by scope: each member gets one more key=value, e.g. environment=eu
    for one and environment=us for the other, so both stay true, each in its own place (R9)."""

    def __init__(self, members: Sequence[MemoryRecord], parent: QWidget | None) -> None:
        super().__init__(
            self.tr("Split by scope"),
            self.tr(
                "Both memories are kept, each narrowed to where it is true. Add one key=value "
                "to each scope, for example environment=eu and environment=us."
            ),
            parent,
        )
        self.setMinimumWidth(560)
        self._members = list(members)
        self.extras: list[QLineEdit] = []
        for i, r in enumerate(self._members, start=1):
            text = r.content if len(r.content) <= 90 else r.content[:89] + "…"
            about = QLabel(
                self.tr("%1. “%2”\nCurrent scope: %3")
                .replace("%1", str(i))
                .replace("%2", text)
                .replace("%3", str(r.scope))
            )
            about.setWordWrap(True)
            edit = QLineEdit()
            edit.setPlaceholderText(self.tr("key=value, e.g. environment=eu"))
            edit.setAccessibleName(self.tr("Extra scope for memory %1").replace("%1", str(i)))
            edit.textChanged.connect(self._preview)
            self.form.addRow(about)
            self.form.addRow(self.tr("Add"), edit)
            self.extras.append(edit)
        self.preview = QLabel()
        self.preview.setObjectName("SplitPreview")
        self.preview.setWordWrap(True)
        self.preview.setAccessibleName(self.tr("Resulting scopes"))
        self.form.addRow(self.tr("Result"), self.preview)
        self._preview()

    def focus_target(self) -> QWidget | None:
        """The first member's extra key=value."""
        return self.extras[0] if self.extras else None

    def set_extras(self, *assignments: str) -> None:
        """Fill in each member's key=value in order (used by tests and keyboard users)."""
        for edit, text in zip(self.extras, assignments, strict=False):
            edit.setText(text)

    def _extra(self, i: int) -> tuple[str, str]:
        """The i-th member's key=value; raises InvalidInputError when it is not one."""
        text = self.extras[i].text().strip()
        if not text:
            raise InvalidInputError("scope", self.tr("give one key=value"))
        if len(text.split()) != 1:
            raise InvalidInputError("scope", self.tr("give exactly one key=value"))
        ((key, value),) = Scope.parse([text]).items()
        return key, value

    def _problem_of(self, i: int) -> str:
        old = self._members[i].scope
        try:
            key, value = self._extra(i)
        except MemoryCenterError as exc:
            return exc.message
        if key in old:
            return self.tr("the scope already has %1; add a key it does not have").replace(
                "%1", key
            )
        try:
            Scope.required({**dict(old.items()), key: value})
        except MemoryCenterError as exc:
            return exc.message
        return ""

    def _preview(self) -> None:
        lines = []
        for i, r in enumerate(self._members):
            problem = self._problem_of(i)
            new = "—" if problem else str(self.scopes()[r.id])
            lines.append(f"{i + 1}. {r.scope}  →  {new}")
        self.preview.setText("\n".join(lines))

    def scopes(self) -> dict[str, Scope]:
        """Each member's new scope, by memory id (only meaningful when `problem_text` is '')."""
        out: dict[str, Scope] = {}
        for i, r in enumerate(self._members):
            if self._problem_of(i):
                continue
            key, value = self._extra(i)
            out[r.id] = Scope.of({**dict(r.scope.items()), key: value})
        return out

    def problem_text(self) -> str:
        """Every member needs a valid extra key=value, and the new scopes must differ."""
        for i in range(len(self._members)):
            problem = self._problem_of(i)
            if problem:
                return self.tr("Memory %1: %2").replace("%1", str(i + 1)).replace("%2", problem)
        scopes = list(self.scopes().values())
        if len(set(scopes)) != len(scopes):
            return self.tr("The new scopes are the same; give each memory a different place.")
        return ""
