"""The dialogs of the "Team and devices" panel: invite a member's device, join a team store.

Both are opened with `open()`; a path field has a "Browse…" button beside it, and a test
(or a keyboard user) can type the path instead.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLineEdit, QPushButton, QWidget

from ui.dialogs import _Dialog

INVITATION_SUFFIX = ".mc-invitation"
PATH_WIDTH = 380  # room for a whole path


class PathField(QWidget):
    """A path typed or chosen with a file dialog."""

    def __init__(self, name: str, *, save: bool, folder: bool = False) -> None:
        super().__init__()
        self.save = save
        self.folder = folder
        self.edit = QLineEdit()
        self.edit.setAccessibleName(name)
        self.edit.setMinimumWidth(PATH_WIDTH)
        self.browse = QPushButton(self.tr("Browse…"))
        self.browse.setAccessibleName(self.tr("Browse for %1").replace("%1", name))
        self.browse.clicked.connect(self._choose)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.edit, 1)
        row.addWidget(self.browse)

    def _choose(self) -> None:
        start = self.edit.text() or str(Path.home())
        if self.folder:
            chosen = QFileDialog.getExistingDirectory(self, self.edit.accessibleName(), start)
        elif self.save:
            chosen, _f = QFileDialog.getSaveFileName(self, self.edit.accessibleName(), start)
        else:
            chosen, _f = QFileDialog.getOpenFileName(self, self.edit.accessibleName(), start)
        if chosen:
            self.edit.setText(chosen)

    def path(self) -> Path | None:
        """The path, expanded (None when empty)."""
        text = self.edit.text().strip()
        return Path(text).expanduser() if text else None


class InviteDialog(_Dialog):
    """The member's name and where to write the invitation file."""

    def __init__(self, folder: Path, parent: QWidget | None) -> None:
        super().__init__(
            self.tr("Invite a member's device"),
            self.tr(
                "Writes an invitation file that lets one device join this store. Its one-time "
                "code is shown next; send the file and the code by different channels."
            ),
            parent,
        )
        self.folder = folder
        self.name = QLineEdit()
        self.name.setAccessibleName(self.tr("Member name"))
        self.name.setPlaceholderText(self.tr("e.g. kim-laptop"))
        self.name.textChanged.connect(self._suggest_file)
        self.file = PathField(self.tr("Invitation file"), save=True)
        self.form.addRow(self.tr("Member name"), self.name)
        self.form.addRow(self.tr("Invitation file"), self.file)
        self._suggested = ""

    def focus_target(self) -> QWidget | None:
        """The name field."""
        return self.name

    def _suggest_file(self, name: str) -> None:
        # Follow the name until the user edits the path themselves.
        if self.file.edit.text() in ("", self._suggested):
            self._suggested = str(self.folder / f"{name.strip()}{INVITATION_SUFFIX}")
            self.file.edit.setText(self._suggested if name.strip() else "")

    def member(self) -> str:
        """The name typed."""
        return self.name.text().strip()

    def problem_text(self) -> str:
        """A name and a file in an existing folder are needed (the core checks the name)."""
        if not self.member():
            return self.tr("Give the member a name.")
        target = self.file.path()
        if target is None:
            return self.tr("Choose where to write the invitation file.")
        if not target.parent.is_dir():
            return self.tr("The folder %1 does not exist.").replace("%1", str(target.parent))
        return ""


class JoinDialog(_Dialog):
    """An invitation file, its code, a folder for the joined store and, optionally, a
    passphrase for the key on this computer. Stays open until the join succeeds.

    Signals:
        join_requested: the fields are complete; the panel runs the join.
    """

    join_requested = Signal()

    def __init__(self, folder: Path, parent: QWidget | None) -> None:
        super().__init__(
            self.tr("Join a team store"),
            self.tr(
                "Use an invitation file and its one-time code to join a store on a database "
                "server from this computer. The joined store gets its own data directory."
            ),
            parent,
        )
        self.file = PathField(self.tr("Invitation file"), save=False)
        self.code = QLineEdit()
        self.code.setAccessibleName(self.tr("One-time code"))
        self.folder = PathField(self.tr("Data directory of the joined store"), save=True)
        self.folder.folder = True
        self.folder.edit.setText(str(folder))
        self.passphrase = QLineEdit()
        self.passphrase.setEchoMode(QLineEdit.EchoMode.Password)
        self.passphrase.setAccessibleName(self.tr("Passphrase for the key on this computer"))
        self.passphrase.setPlaceholderText(self.tr("empty: keep the key in the system keyring"))
        self.form.addRow(self.tr("Invitation file"), self.file)
        self.form.addRow(self.tr("One-time code"), self.code)
        self.form.addRow(self.tr("Data directory"), self.folder)
        self.form.addRow(self.tr("Key passphrase"), self.passphrase)

    def focus_target(self) -> QWidget | None:
        """The invitation file field."""
        return self.file.edit

    def problem_text(self) -> str:
        """Every field but the passphrase is needed; the file must be readable."""
        path = self.file.path()
        if path is None or not path.is_file():
            return self.tr("Choose the invitation file.")
        if not self.code.text().strip():
            return self.tr("Type the one-time code that came with the invitation.")
        if self.folder.path() is None:
            return self.tr("Choose a data directory for the joined store.")
        return ""

    def _check(self) -> None:
        problem = self.problem_text()
        self.problem.setText(problem)
        if not problem:
            self.buttons.setEnabled(False)
            self.join_requested.emit()

    def failed(self, message: str) -> None:
        """The join did not work: say why and let the user correct it."""
        self.buttons.setEnabled(True)
        self.problem.setText(message)
