"""Team and devices: who shares this store and from how many devices; invite, join, remove
a member with key rotation (R24)."""

from __future__ import annotations

import html
import shlex
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core import MemberInfo, MemoryCenterError, RotationReport, StoreStatus, WrongPassphraseError

from ui.context import UiContext
from ui.errors import show_error
from ui.operations.team import invite, read_team, remove_member
from ui.presentation import local_time
from ui.views.settings.panel import SettingsPanel
from ui.views.settings.team_dialogs import InviteDialog, JoinDialog


def is_server_store(status: StoreStatus) -> bool:
    """The status path is the server's URL for a store on a database server."""
    return "://" in status.path


class TeamPanel(SettingsPanel):
    """Members and their devices, with Invite…, Join… and Remove member…."""

    def __init__(self, ctx: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, self.tr("Team and devices"), parent)
        self.on_server = False
        self.intro = QLabel()
        self.intro.setWordWrap(True)
        self.table = QTableWidget(0, 3)
        self.table.setAccessibleName(self.tr("Members"))
        self.table.setHorizontalHeaderLabels(
            [self.tr("Member"), self.tr("Joined"), self.tr("Devices")]
        )
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.setMaximumHeight(150)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.invite_button = QPushButton(self.tr("Invite…"))
        self.invite_button.clicked.connect(self.ask_invite)
        self.join_button = QPushButton(self.tr("Join…"))
        self.join_button.setToolTip(self.tr("Join a team store from this computer."))
        self.join_button.clicked.connect(self.ask_join)
        self.remove_button = QPushButton(self.tr("Remove member…"))
        self.remove_button.setToolTip(
            self.tr("Revoke the member's devices and re-encrypt the store under a new key.")
        )
        self.remove_button.clicked.connect(self.ask_remove)
        buttons = QHBoxLayout()
        for b in (self.invite_button, self.join_button, self.remove_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addWidget(self.table)
        layout.addLayout(buttons)
        self.invite_dialog: InviteDialog | None = None
        self.code_box: QMessageBox | None = None
        self.join_dialog: JoinDialog | None = None
        self.joined_box: QMessageBox | None = None
        self.remove_confirmation: QMessageBox | None = None
        self.members: list[MemberInfo] = []
        self._update_buttons()

    # --- showing --------------------------------------------------------------------------

    def refresh(self) -> None:
        """Read the store status and the members (in the background)."""
        read_team(self.ctx).on_success(lambda got: self.show_team(*got)).run(self)

    def show_team(self, status: StoreStatus, members: list[MemberInfo]) -> None:
        """Show the members (current ones first) and say what a local store can do."""
        self.on_server = is_server_store(status)
        self.intro.setText(
            self.tr(
                "Members' devices share this store on %1. A memory whose scope names a user "
                "(user=…) is readable only by that person's devices."
            ).replace("%1", status.path)
            if self.on_server
            else self.tr(
                "This store is a file on this computer. To share memories between computers "
                "or with a team, create a store on a database server (memory-center init "
                "--database postgresql://…) and invite members from there. You can join a "
                "team store you were invited to."
            )
        )
        self.members = sorted(members, key=lambda m: (m.removed_at is not None, m.name))
        self.table.setRowCount(len(self.members))
        for row, m in enumerate(self.members):
            self._show_member(row, m)
        self.table.setVisible(self.on_server)
        self._update_buttons()

    def _show_member(self, row: int, m: MemberInfo) -> None:
        if m.removed_at is not None:
            joined = self.tr("removed %1").replace("%1", local_time(m.removed_at))
        elif m.joined_at is not None:
            joined = local_time(m.joined_at)
        else:
            joined = self.tr("invited, not joined yet")
        # A removed member's devices were revoked with them.
        devices = (
            self.tr("revoked")
            if m.removed_at is not None
            else self.tr("%n device(s)", "", m.devices)
        )
        for col, text in enumerate((m.name, joined, devices)):
            item = QTableWidgetItem(text)
            item.setToolTip(self.tr("Created this store") if m.founder else text)
            if m.removed_at is not None:
                item.setForeground(self.palette().placeholderText())
            self.table.setItem(row, col, item)

    def selected(self) -> MemberInfo | None:
        """The member whose row is selected."""
        rows = self.table.selectionModel().selectedRows()
        return self.members[rows[0].row()] if rows else None

    def _update_buttons(self) -> None:
        chosen = self.selected()
        self.invite_button.setEnabled(self.on_server)
        self.invite_button.setToolTip(
            self.tr("Write an invitation file for a member's device.")
            if self.on_server
            else self.tr("Only a store on a database server can have members.")
        )
        self.join_button.setEnabled(self.ctx.connectors.join_store is not None)
        self.remove_button.setEnabled(
            self.on_server
            and chosen is not None
            and chosen.removed_at is None
            and not chosen.founder
        )
        self.remove_button.setToolTip(
            self.tr("Whoever created the store cannot be removed.")
            if chosen is not None and chosen.founder
            else self.tr("Revoke the member's devices and re-encrypt the store under a new key.")
        )

    # --- invite ---------------------------------------------------------------------------

    def ask_invite(self) -> None:
        """Ask for the member's name and the file; then write it and show the code."""
        dialog = InviteDialog(Path.home(), self)
        dialog.accepted.connect(lambda: self._invite(dialog.member(), dialog.file.path()))
        dialog.finished.connect(lambda _r: setattr(self, "invite_dialog", None))
        self.invite_dialog = dialog
        dialog.open()

    def _invite(self, name: str, target: Path | None) -> None:
        assert target is not None

        def done(code: str) -> None:
            self.reload_requested.emit()
            self._show_code(name, target, code)

        invite(self.ctx, name, target).on_success(done).run(self)

    def _show_code(self, name: str, target: Path, code: str) -> None:
        box = QMessageBox(
            QMessageBox.Icon.Information,
            self.tr("Invitation written"),
            self.tr("One-time code for %1:").replace("%1", html.escape(name))
            + f'<p style="font-size: 15pt; font-family: monospace;">{html.escape(code)}</p>',
            QMessageBox.StandardButton.Ok,
            self,
        )
        box.setInformativeText(
            self.tr(
                "The invitation is in %1. The code is shown only now: send the file and the "
                "code by different channels. On the other computer: Settings → Join…"
            ).replace("%1", str(target))
        )
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.setAccessibleName(self.tr("Invitation code"))
        box.finished.connect(lambda _r: setattr(self, "code_box", None))
        self.code_box = box
        box.open()

    # --- join -----------------------------------------------------------------------------

    def ask_join(self) -> None:
        """Ask for the invitation, its code and a folder; the dialog stays open on a wrong
        code."""
        proposed = self.ctx.connectors.joined_data_dir
        dialog = JoinDialog(proposed if proposed is not None else Path(), self)
        if proposed is None:
            dialog.folder.edit.clear()  # nothing known to propose: the user chooses
        dialog.join_requested.connect(lambda: self._join(dialog))
        dialog.finished.connect(lambda _r: setattr(self, "join_dialog", None))
        self.join_dialog = dialog
        dialog.open()

    def _join(self, dialog: JoinDialog) -> None:
        join = self.ctx.connectors.join_store
        invitation, folder = dialog.file.path(), dialog.folder.path()
        assert join is not None and invitation is not None and folder is not None
        code, passphrase = dialog.code.text().strip(), dialog.passphrase.text() or None
        try:
            raw = invitation.read_bytes()
        except OSError as exc:
            dialog.failed(
                self.tr("Cannot read %1: %2")
                .replace("%1", str(invitation))
                .replace("%2", exc.strerror or "")
            )
            return

        def failed(exc: BaseException) -> None:
            if isinstance(exc, WrongPassphraseError):
                dialog.failed(
                    self.tr("The code is wrong for this invitation. Check it and try again.")
                )
            elif isinstance(exc, MemoryCenterError):
                dialog.failed(exc.message)
            else:
                dialog.failed(str(exc))

        self.ctx.tasks.run(
            lambda: join(folder, raw, code, passphrase), lambda d: self._joined(dialog, d), failed
        )

    def _joined(self, dialog: JoinDialog, folder: Path) -> None:
        dialog.accept()
        box = QMessageBox(
            QMessageBox.Icon.Information,
            self.tr("Joined the team store"),
            self.tr("This computer joined the team store; its data directory is %1.").replace(
                "%1", str(folder)
            ),
            QMessageBox.StandardButton.Ok,
            self,
        )
        box.setInformativeText(
            self.tr("Open it with: memory-center --data-dir %1 gui").replace(
                "%1", shlex.quote(str(folder))
            )
        )
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        opener = self.ctx.connectors.open_store
        if opener is not None:
            now = box.addButton(self.tr("Open it now"), QMessageBox.ButtonRole.AcceptRole)
            now.clicked.connect(lambda: opener(folder))
        box.finished.connect(lambda _r: setattr(self, "joined_box", None))
        self.joined_box = box
        box.open()

    # --- remove ---------------------------------------------------------------------------

    def ask_remove(self) -> None:
        """Confirm; then revoke the member's devices and rotate the key with progress."""
        member = self.selected()
        if member is None:
            return
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            self.tr("Remove a member"),
            self.tr(
                "Remove %1? Their devices lose access, and the store is re-encrypted under a "
                "new key so that what is written from now on is unreadable to them. What they "
                "copied before cannot be taken back. This can take a while; you can stop and "
                "continue later."
            ).replace("%1", member.name),
            QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.button(QMessageBox.StandardButton.Ok).setText(self.tr("Remove and rotate the key"))
        box.button(QMessageBox.StandardButton.Cancel).setText(self.tr("Cancel"))
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAccessibleName(self.tr("Confirm member removal"))
        box.accepted.connect(lambda: self._remove(member.name))
        box.finished.connect(lambda _r: setattr(self, "remove_confirmation", None))
        self.remove_confirmation = box
        box.open()

    def _remove(self, name: str) -> None:
        self.remove_button.setEnabled(False)

        def done(report: RotationReport) -> None:
            self.notified.emit(
                self.tr("%1 removed; the key rotated to %2 (%3 values re-encrypted).")
                .replace("%1", name)
                .replace("%2", report.new_key_id)
                .replace("%3", str(report.rows_reencrypted)),
                None,
            )
            self.reload_requested.emit()

        def failed(exc: BaseException) -> None:
            show_error(self, exc)
            self.reload_requested.emit()

        remove_member(self.ctx, name).on_success(done).on_failure(failed).run(self)
