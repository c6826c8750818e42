"""Backup and transfer: export memories to a JSON file, import such a file (R11)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core import InvalidInputError, OutcomeKind, parse_json
from core.model import MemoryOutcome

from ui.context import UiContext
from ui.errors import show_error
from ui.operations.portability import EXPORT_FILE_NAME, export_to_file, import_document
from ui.views.settings.panel import SettingsPanel


class BackupPanel(SettingsPanel):
    """ "Export memories…" (after a warning that the file is plain text) and "Import…"."""

    def __init__(self, ctx: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, self.tr("Backup and transfer"), parent)
        layout = QVBoxLayout(self)
        intro = QLabel(
            self.tr(
                "Export the active and suggested memories to a JSON file, or import such a "
                "file; imported memories arrive as suggestions in the review queue."
            )
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.export_button = QPushButton(self.tr("Export memories…"))
        self.export_button.setToolTip(
            self.tr("Write the memories' text to a JSON file. The file is not encrypted.")
        )
        self.export_button.clicked.connect(self.export_memories)
        self.import_button = QPushButton(self.tr("Import memories…"))
        self.import_button.setToolTip(
            self.tr("Read an export file; every memory becomes a suggestion the policy decides.")
        )
        self.import_button.clicked.connect(self.import_memories)
        buttons = QHBoxLayout()
        buttons.addWidget(self.export_button)
        buttons.addWidget(self.import_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.export_confirmation: QMessageBox | None = None

    def choose_export_path(self) -> str:
        """Ask where to save the export ("" when cancelled). Tests replace this."""
        name, _filter = QFileDialog.getSaveFileName(
            self,
            self.tr("Export memories"),
            str(Path.home() / EXPORT_FILE_NAME),
            self.tr("JSON files (*.json);;All files (*)"),
        )
        return name

    def choose_import_path(self) -> str:
        """Ask which export file to import ("" when cancelled). Tests replace this."""
        name, _filter = QFileDialog.getOpenFileName(
            self,
            self.tr("Import memories"),
            str(Path.home()),
            self.tr("JSON files (*.json);;All files (*)"),
        )
        return name

    def _set_backup_busy(self, busy: bool) -> None:
        self.export_button.setEnabled(not busy)
        self.import_button.setEnabled(not busy)

    def export_memories(self) -> None:
        """Choose a file, confirm that it will not be encrypted, then export (in the
        background)."""
        name = self.choose_export_path()
        if not name:
            return
        path = Path(name)
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            self.tr("Export memories"),
            self.tr(
                "The export file is NOT encrypted: it holds the full text of your active and "
                "suggested memories in plain, readable JSON. Anyone who can read the file can "
                "read them. Keep it somewhere safe and delete it when you no longer need it."
            ),
            QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setInformativeText(self.tr("Export to %1?").replace("%1", str(path)))
        box.button(QMessageBox.StandardButton.Ok).setText(self.tr("Export"))
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAccessibleName(self.tr("Confirm export"))
        box.accepted.connect(lambda: self._export_to(path))
        box.finished.connect(lambda _result: setattr(self, "export_confirmation", None))
        self.export_confirmation = box
        box.open()

    def _export_to(self, path: Path) -> None:
        self._set_backup_busy(True)

        def done(count: int) -> None:
            self._set_backup_busy(False)
            self.notified.emit(
                self.tr("%n memories exported to %2 (not encrypted).", "", count).replace(
                    "%2", str(path)
                ),
                None,
            )

        def failed(exc: BaseException) -> None:
            self._set_backup_busy(False)
            show_error(self, exc)

        export_to_file(self.ctx, path).on_success(done).on_failure(failed).run(self)

    def import_memories(self) -> None:
        """Choose an export file, read it, and import it (on the writer, in the background)."""
        name = self.choose_import_path()
        if not name:
            return
        path = Path(name)
        try:
            # Strict UTF-8, bounded nesting, no lone surrogates: a hostile file is one message.
            document = parse_json(path.read_bytes(), str(path))
        except OSError as exc:
            problem = self.tr("cannot be read as a JSON export file (%1)").replace("%1", str(exc))
            show_error(self, InvalidInputError(str(path), problem))
            return
        except InvalidInputError as exc:
            show_error(self, exc)
            return
        self._set_backup_busy(True)

        def done(outcomes: list[MemoryOutcome]) -> None:
            self._set_backup_busy(False)
            self.notified.emit(self.import_summary(outcomes), None)

        def failed(exc: BaseException) -> None:
            self._set_backup_busy(False)
            show_error(self, exc)

        import_document(self.ctx, document).on_success(done).on_failure(failed).run(self)

    def import_summary(self, outcomes: list[MemoryOutcome]) -> str:
        """The status-bar summary: "N imported: X suggested, Y merged, Z rejected"."""
        counts = Counter(o.outcome for o in outcomes)
        suggested = sum(
            counts[k] for k in (OutcomeKind.CANDIDATE, OutcomeKind.QUARANTINED, OutcomeKind.ACTIVE)
        )
        return (
            self.tr("%1 imported: %2 suggested, %3 merged, %4 rejected")
            .replace("%1", str(len(outcomes)))
            .replace("%2", str(suggested))
            .replace("%3", str(counts[OutcomeKind.MERGED]))
            .replace("%4", str(counts[OutcomeKind.REJECTED]))
        )
