"""Following the store live, and saying when the server is away (R21, R23).

`ChangeWaiter` sleeps in `MemoryService.events.wait_for_change` on the task runner's wait thread
(LISTEN/NOTIFY on a server, so another machine's commit wakes it at once; polling on
SQLite) and says when the revision moved; the window's one-second poll stays as the
fallback. `OfflineBadge` is the status-bar note "offline, N changes waiting".
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QLabel, QWidget

from core import MemoryService, SpoolStatus

from ui.tasks import TaskRunner

WAIT_SECONDS = 5.0
RETRY_MS = 2000


class OfflineBadge(QLabel):
    """Shown while the server is away or writes wait in this machine's spool."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("OfflineBadge")
        self.setAccessibleName(self.tr("Server connection"))
        self.hide()

    def show_state(self, status: SpoolStatus, reachable: bool) -> None:
        """Show (or hide) the note for this spool state."""
        offline = status.offline or not reachable
        if offline and status.waiting:
            text = self.tr("offline, %n change(s) waiting", "", status.waiting)
        elif offline:
            text = self.tr("offline")
        elif status.waiting:
            text = self.tr("%n change(s) waiting to be sent", "", status.waiting)
        else:
            self.hide()
            return
        self.setText(text)
        self.setToolTip(
            self.tr(
                "The database server cannot be reached. Changes made here wait on this "
                "computer and are applied, in order, when it returns."
            )
            if offline
            else ""
        )
        self.show()


class ChangeWaiter(QObject):
    """Waits for the store revision to move, one wait after another, off the UI thread.

    Signals:
        woke: (int) a newer revision was committed (here, in another process or machine).
    """

    woke = Signal(int)

    def __init__(self, tasks: TaskRunner, service: MemoryService, parent: QObject) -> None:
        super().__init__(parent)
        self._tasks = tasks
        self._service = service
        self._from = -1
        self._running = False

    def start(self, revision: int) -> None:
        """Start waiting for revisions after `revision`."""
        if self._running:
            return
        self._running = True
        self._from = revision
        self._arm()

    def stop(self) -> None:
        """Stop after the wait in flight (it ends by its own timeout)."""
        self._running = False

    def _arm(self) -> None:
        if not self._running:
            return
        since = self._from
        self._tasks.wait(
            lambda: self._service.events.wait_for_change(since, WAIT_SECONDS),
            self._done,
            self._failed,
        )

    def _done(self, revision: int) -> None:
        if revision > self._from:
            self._from = revision
            self.woke.emit(revision)
        self._arm()

    def _failed(self, _exc: BaseException) -> None:
        # The server is away: the poll shows it; try again a little later.
        QTimer.singleShot(RETRY_MS, self, self._arm)
