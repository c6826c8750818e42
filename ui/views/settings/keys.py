"""The encryption key: where it is held, its ids, and rotation with progress (R24)."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QFormLayout, QLabel, QMessageBox, QPushButton, QWidget

from core import RotationReport, StoreStatus

from ui.context import UiContext
from ui.errors import show_error
from ui.operations.keys import rotate_key
from ui.views.settings.panel import SettingsPanel, left, value_label


class KeyPanel(SettingsPanel):
    """Key source and ids; "Rotate key…" asks first, then re-encrypts with progress."""

    def __init__(self, ctx: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, self.tr("Encryption key"), parent)
        self.values: dict[str, QLabel] = {}
        form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for key, title in (
            ("source", self.tr("Key held in")),
            ("active", self.tr("Active key id")),
            ("keys", self.tr("Key ids")),
        ):
            self.values[key] = value_label(title)
            form.addRow(title, self.values[key])
        self.rotate_button = QPushButton(self.tr("Rotate key…"))
        self.rotate_button.setToolTip(
            self.tr(
                "Re-encrypt every event, memory and snapshot under a new key. Can be "
                "stopped and resumed."
            )
        )
        self.rotate_button.clicked.connect(self.rotate)
        self.rotate_confirmation: QMessageBox | None = None
        form.addRow("", left(self.rotate_button))

    def show_status(self, st: StoreStatus) -> None:
        """Show where the key is held and the key ids."""
        v = self.values
        backend = f" ({st.key.keyring_backend})" if st.key.keyring_backend else ""
        source = {
            "keyring": self.tr("the operating system keyring"),
            "passphrase": self.tr("a passphrase-protected key file"),
        }.get(st.key.source, st.key.source)
        v["source"].setText(html.escape(source + backend))
        v["active"].setText(st.key.active_key_id)
        v["keys"].setText(", ".join(st.key.key_ids))

    def rotate(self) -> None:
        """Ask first; then rotate the key with a progress dialog (Stop pauses it)."""
        box = QMessageBox(
            QMessageBox.Icon.Question,
            self.tr("Rotate the encryption key"),
            self.tr(
                "Re-encrypt every event, memory and snapshot under a new key? The old key is "
                "kept until everything is re-encrypted. On a large store this takes a while; "
                "you can stop and continue later."
            ),
            QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.button(QMessageBox.StandardButton.Ok).setText(self.tr("Rotate key"))
        box.button(QMessageBox.StandardButton.Cancel).setText(self.tr("Cancel"))
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAccessibleName(self.tr("Confirm key rotation"))
        box.accepted.connect(self._rotate_now)
        box.finished.connect(lambda _result: setattr(self, "rotate_confirmation", None))
        self.rotate_confirmation = box
        box.open()

    def _rotate_now(self) -> None:
        self.rotate_button.setEnabled(False)

        def done(report: RotationReport) -> None:
            self.rotate_button.setEnabled(True)
            self.notified.emit(
                self.tr("Key rotated: %1 rows re-encrypted under %2.")
                .replace("%1", str(report.rows_reencrypted))
                .replace("%2", report.new_key_id),
                None,
            )
            self.reload_requested.emit()

        def failed(exc: BaseException) -> None:
            self.rotate_button.setEnabled(True)
            show_error(self, exc)

        rotate_key(self.ctx).on_success(done).on_failure(failed).run(self)
