"""File > Import transcripts…: choose an importer and a file or folder, watch the progress,
stop between sessions, read the summary (R30).

The importers themselves live in the application layer and are injected (`UiContext.importers`);
this module only runs them on the single writer and marshals their progress to the UI thread.
"""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLineEdit,
    QMessageBox,
    QProgressDialog,
    QPushButton,
    QWidget,
)

from ui.context import Importer, UiContext
from ui.dialogs import _Dialog
from ui.errors import show_error


class ImportDialog(_Dialog):
    """Choose what to import: the importer and a transcript file or folder."""

    def __init__(self, names: list[str], parent: QWidget | None) -> None:
        super().__init__(
            self.tr("Import transcripts"),
            self.tr(
                "Import agent transcripts into the event log. Suggested memories go to the "
                "review queue; importing the same transcripts again adds nothing twice."
            ),
            parent,
        )
        self.importer = QComboBox()
        self.importer.addItems(names)
        self.importer.setAccessibleName(self.tr("Importer"))
        self.path = QLineEdit()
        self.path.setAccessibleName(self.tr("Transcript file or folder"))
        self.path.setPlaceholderText(self.tr("A .jsonl / conversations.json file or a folder"))
        file_button = QPushButton(self.tr("File…"))
        file_button.clicked.connect(self._choose_file)
        folder_button = QPushButton(self.tr("Folder…"))
        folder_button.clicked.connect(self._choose_folder)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(file_button)
        row.addWidget(folder_button)
        self.form.addRow(self.tr("Importer"), self.importer)
        self.form.addRow(self.tr("From"), row)

    def _choose_file(self) -> None:
        name, _filter = QFileDialog.getOpenFileName(
            self, self.tr("Transcript file"), "", self.tr("Transcripts (*.jsonl *.json);;All (*)")
        )
        if name:
            self.path.setText(name)

    def _choose_folder(self) -> None:
        name = QFileDialog.getExistingDirectory(self, self.tr("Transcript folder"))
        if name:
            self.path.setText(name)

    def chosen(self) -> tuple[str, Path]:
        """The importer name and the path."""
        return self.importer.currentText(), Path(self.path.text().strip()).expanduser()

    def problem_text(self) -> str:
        """An importer and an existing path are needed."""
        if not self.importer.currentText():
            return self.tr("No importer is available.")
        if not self.path.text().strip():
            return self.tr("Choose a file or a folder.")
        if not self.chosen()[1].exists():
            return self.tr("That file or folder does not exist.")
        return ""


class ImportRelay(QObject):
    """Carries (done, total) from the writer thread to the UI thread; Stop goes back.

    Signals:
        progressed: (int, int) sessions done and in total.
    """

    progressed = Signal(int, int)

    def __init__(self) -> None:
        super().__init__()
        self.stop = threading.Event()

    def report(self, done: int, total: int) -> None:
        """Called on the worker: queued to the UI thread (the relay lives there)."""
        self.progressed.emit(done, total)

    def should_stop(self) -> bool:
        """Called on the worker between sessions."""
        return self.stop.is_set()


class TranscriptImport(QObject):
    """One run of an importer with a progress dialog and a summary message.

    Signals:
        finished: (str) the importer's summary (not emitted on failure).
    """

    finished = Signal(str)

    def __init__(self, ctx: UiContext, parent: QWidget) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self._parent = parent
        self.relay = ImportRelay()
        self.progress: QProgressDialog | None = None
        self.summary_box: QMessageBox | None = None

    def start(self, name: str, importer: Importer, path: Path) -> None:
        """Run `importer` on `path` on the writer; show progress; Stop ends between sessions."""
        dialog = QProgressDialog(
            self.tr("Importing %1…").replace("%1", path.name or str(path)),
            self.tr("Stop"),
            0,
            0,
            self._parent,
        )
        dialog.setWindowTitle(self.tr("Import transcripts"))
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(0)
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)
        dialog.setAccessibleName(self.tr("Import progress"))
        self.progress = dialog
        relay = self.relay

        def show(done: int, total: int) -> None:
            dialog.setMaximum(max(total, 0))
            dialog.setValue(min(done, total))
            dialog.setLabelText(
                self.tr("%1: %2 of %3 sessions")
                .replace("%1", name)
                .replace("%2", str(done))
                .replace("%3", str(total))
            )

        # Queued: emitted on the worker thread; a plain function has no receiver to route by.
        relay.progressed.connect(show, Qt.ConnectionType.QueuedConnection)
        dialog.canceled.connect(self._stop)
        dialog.show()
        service = self.ctx.service
        self.ctx.tasks.run(
            lambda: importer(service, path, relay.report, relay.should_stop),
            self._done,
            self._failed,
            mutating=True,
        )

    def _stop(self) -> None:
        self.relay.stop.set()
        if self.progress is not None:
            self.progress.setLabelText(self.tr("Stopping after the current session…"))
            self.progress.show()

    def _close_progress(self) -> None:
        if self.progress is not None:
            self.progress.canceled.disconnect(self._stop)
            # hide, not close: see ui/ops.py `_dismiss` (close emits canceled, re-enters Qt)
            self.progress.hide()

    def _done(self, summary: str) -> None:
        self._close_progress()
        box = QMessageBox(
            QMessageBox.Icon.Information, self.tr("Import finished"), summary, parent=self._parent
        )
        box.setAccessibleName(self.tr("Import summary"))
        self.summary_box = box
        box.open()
        self.finished.emit(summary)

    def _failed(self, exc: BaseException) -> None:
        self._close_progress()
        show_error(self._parent, exc)
