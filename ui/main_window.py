"""The main window of the memory center.

This first slice shows the store (path, revision, key) and the event log, and follows
changes made by other processes by polling the store revision. The full memory center
(timeline, review queue, memory detail, sessions, settings) builds on it.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import QHeaderView, QLabel, QMainWindow, QTableView, QWidget

from core import Event, MemoryService, StoreStatus

from ui.errors import show_error
from ui.models.event_table import EventTableModel
from ui.tasks import TaskRunner

POLL_MS = 1000
PAGE = 200


class MainWindow(QMainWindow):
    """Top-level window over one `MemoryService`."""

    def __init__(self, service: MemoryService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.tasks = TaskRunner(self)
        self.setWindowTitle("Memory Center")
        self.setAccessibleName("Memory Center main window")
        self._known_revision = -1
        self._refreshing = False

        self.events = EventTableModel(self._load_older, PAGE)
        self.table = QTableView()
        self.table.setModel(self.events)
        self.table.setAccessibleName("Event log")
        self.table.setAlternatingRowColors(True)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.setCentralWidget(self.table)

        self.status_label = QLabel()
        self.status_label.setAccessibleName("Store status")
        self.statusBar().addPermanentWidget(self.status_label)
        self._build_menu()

        self.poll = QTimer(self)
        self.poll.setInterval(POLL_MS)
        self.poll.timeout.connect(self.refresh_if_changed)
        self.poll.start()
        self._restore_geometry()
        self.refresh_if_changed()

    def _build_menu(self) -> None:
        refresh = QAction("&Refresh", self)
        refresh.setShortcut(QKeySequence.StandardKey.Refresh)
        refresh.triggered.connect(self.refresh)
        quit_action = QAction("&Quit", self)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        menu = self.menuBar().addMenu("&File")
        menu.addAction(refresh)
        menu.addSeparator()
        menu.addAction(quit_action)

    def refresh_if_changed(self) -> None:
        """Reload when the store revision moved (changes by this or another process)."""
        if self._refreshing:
            return
        self.tasks.run(self.service.revision, self._on_revision, self._on_failure)

    def refresh(self) -> None:
        """Reload the status and the first page of events."""
        self._refreshing = True
        self.tasks.run(self._load_snapshot, self._on_snapshot, self._on_failure)

    def _on_revision(self, revision: int) -> None:
        if revision != self._known_revision:
            self.refresh()

    def _load_snapshot(self) -> tuple[StoreStatus, list[Event]]:
        return self.service.status(), self.service.list_events(limit=PAGE, newest_first=True)

    def _load_older(self, before_position: int, limit: int) -> list[Event]:
        return self.service.list_events(
            before_position=before_position, limit=limit, newest_first=True
        )

    def _on_snapshot(self, snapshot: tuple[StoreStatus, list[Event]]) -> None:
        status, events = snapshot
        self._refreshing = False
        self._known_revision = status.revision
        self.events.reset(events)
        self.status_label.setText(
            f"{status.path}  ·  revision {status.revision}  ·  {status.event_count} events  ·  "
            f"key: {status.key.source}"
        )

    def _on_failure(self, exc: BaseException) -> None:
        self._refreshing = False
        self.poll.stop()
        show_error(self, exc)

    def _restore_geometry(self) -> None:
        settings = QSettings()
        geometry = settings.value("main_window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1100, 700)

    def closeEvent(self, event: QCloseEvent) -> None:
        """Remember the window geometry and let running work finish."""
        QSettings().setValue("main_window/geometry", self.saveGeometry())
        self.poll.stop()
        self.tasks.shutdown()
        super().closeEvent(event)

    def keyPressEvent(self, event: object) -> None:
        """Escape clears the selection (keyboard-first use)."""
        from PySide6.QtGui import QKeyEvent

        if isinstance(event, QKeyEvent) and event.key() == Qt.Key.Key_Escape:
            self.table.clearSelection()
            return
        super().keyPressEvent(event)  # type: ignore[arg-type]
