"""Settings → Connected agents → whether a project folder gets its project's memories.

A repository names its own project, so a project's memories follow it only into folders the
user confirmed (`app/hooks/places.py`). This box says how the chosen folder stands, confirms
or withdraws it (as `memory-center hook trust|untrust`), and counts the confirmed folders of
each project (the store keeps digests of their paths, never the paths).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QGridLayout, QLabel, QPushButton, QWidget

from core import MemoryCenterError

from ui.context import UiContext
from ui.integrations import FolderPlace, HookControl
from ui.operations.places import confirmed_folders, set_trusted
from ui.ops import query


class ProjectFolderBox(QWidget):
    """The chosen folder's standing, Trust / Stop trusting, and the confirmed folders.

    Signals:
        notified: (str) what changed, for the status bar.
    """

    notified = Signal(str)

    def __init__(self, ctx: UiContext, hooks: HookControl | None) -> None:
        super().__init__()
        self.ctx = ctx
        self.hooks = hooks
        self.place: FolderPlace | None = None
        self._asked: Path | None = None
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        self.standing = QLabel()
        self.standing.setWordWrap(True)
        self.standing.setTextFormat(Qt.TextFormat.PlainText)
        self.standing.setAccessibleName(self.tr("Memories in this folder"))
        self.trust = QPushButton(self.tr("Trust this folder"))
        self.trust.setAccessibleName(self.tr("Trust this folder for the project it names"))
        self.withdraw = QPushButton(self.tr("Stop trusting"))
        self.withdraw.setAccessibleName(self.tr("Stop trusting this folder for its project"))
        self.trust.clicked.connect(lambda: self._set_trusted(True))
        self.withdraw.clicked.connect(lambda: self._set_trusted(False))
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setObjectName("Muted")
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setAccessibleName(self.tr("Confirmed project folders"))
        grid.addWidget(self.standing, 0, 0)
        grid.addWidget(self.trust, 0, 1)
        grid.addWidget(self.withdraw, 0, 2)
        grid.addWidget(self.summary, 1, 0, 1, 3)
        grid.setColumnStretch(0, 1)
        self.show_folder(None)
        self.show_summary()

    def show_folder(self, folder: Path | None) -> None:
        """Read how `folder` stands (None: no folder chosen)."""
        self._asked = folder
        self._show(None)
        hooks = self.hooks
        chosen = hooks is not None and folder is not None
        for widget in (self.standing, self.trust, self.withdraw):
            widget.setVisible(chosen)  # the hooks' own line above asks for a folder
        if hooks is not None and folder is not None:
            self.standing.setText(self.tr("Reading…"))
            query(self.ctx, lambda s: hooks.folder_place(s, folder)).on_success(
                lambda place: self._arrived(folder, place)
            ).on_failure(lambda exc: self._failed(folder, exc)).run(self)

    def show_summary(self) -> None:
        """Read the confirmed folders of each project (not on every keystroke: they change
        only when a folder is trusted or withdrawn, and the page reads them on a refresh)."""
        confirmed_folders(self.ctx).on_success(self._show_summary).on_failure(
            lambda _exc: self.summary.clear()
        ).run(self)

    def _arrived(self, folder: Path, place: FolderPlace) -> None:
        if folder != self._asked:
            return  # the user typed on meanwhile: a later answer is on its way
        self._show(place)

    def _failed(self, folder: Path, exc: BaseException) -> None:
        if folder != self._asked:
            return
        reason = exc.message if isinstance(exc, MemoryCenterError) else str(exc)
        self.standing.setText(self.tr("Cannot tell: %1").replace("%1", reason))

    def _show(self, place: FolderPlace | None) -> None:
        self.place = place
        self.trust.setEnabled(place is not None and place.state != "confirmed")
        self.withdraw.setEnabled(place is not None and place.state == "confirmed")
        if place is None:
            return
        if place.state == "confirmed":
            text = self.tr(
                "This folder speaks for project '%1': its Claude Code sessions get that "
                "project's memories and record into it."
            )
        elif place.state == "kept apart":
            text = self.tr(
                "This folder calls its project '%1', which Memory Center already holds from "
                "elsewhere, so its sessions get none of that project's memories and are kept "
                "as '%2'. Trust the folder if it is that project."
            )
        else:
            text = self.tr(
                "Memory Center holds nothing of project '%1' yet: the first Claude Code "
                "session in this folder binds the folder to it."
            )
        self.standing.setText(text.replace("%1", place.project).replace("%2", place.apart))

    def _show_summary(self, counts: dict[str, int]) -> None:
        if not counts:
            self.summary.setText(self.tr("No folder is confirmed for any project yet."))
            return
        listed = ", ".join(f"{name} ({n})" for name, n in counts.items())
        self.summary.setText(self.tr("Confirmed folders: %1").replace("%1", listed))

    def _set_trusted(self, trusted: bool) -> None:
        place, folder = self.place, self._asked
        if place is None or folder is None:
            return

        def done(_mine: frozenset[str]) -> None:
            message = (
                self.tr("%1 now speaks for project '%2'.")
                if trusted
                else self.tr("%1 no longer speaks for project '%2'.")
            )
            self.notified.emit(message.replace("%1", str(folder)).replace("%2", place.project))
            self.show_folder(folder)
            self.show_summary()

        set_trusted(self.ctx, place, trusted).on_success(done).run(self)
