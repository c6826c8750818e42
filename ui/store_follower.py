"""Following the store for the main window: what other processes and machines changed.

A poll of the store revision every second (the fallback) and `ui/live.py`'s waiter (woken by
LISTEN/NOTIFY on a server) both lead to one read of the change feed, which the change bus
absorbs. Each poll also reads this machine's spool: the offline badge shows it, and once the
server answers again the writes that waited are flushed (R23).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QWidget

from core import (
    ChangeEntry,
    FlushReport,
    MemoryService,
    ServerUnavailableError,
    SpoolStatus,
    StoreStatus,
)

from ui.context import UiContext
from ui.errors import show_error
from ui.live import ChangeWaiter, OfflineBadge
from ui.ops import MutatingOp, query

POLL_MS = 1000
# What one poll learns: the store's status (None while the server is away), the change
# feed since the last poll, and this machine's spool.
Polled = tuple[StoreStatus | None, list[ChangeEntry], SpoolStatus]


class StoreFollower(QObject):
    """Polls and waits for store changes on behalf of `window`, one service at a time.

    Signals:
        status_read: (StoreStatus) a poll reached the store; the window shows the status.
    """

    status_read = Signal(object)

    def __init__(self, window: QWidget, badge: OfflineBadge) -> None:
        super().__init__(window)
        # The window, not this object, initiates the reads and writes and owns error dialogs.
        self._window = window
        self._badge = badge
        self._ctx: UiContext | None = None
        self.waiter: ChangeWaiter | None = None
        self._polling = self._poll_again = self._flushing = False
        self.poll = QTimer(self)
        self.poll.setInterval(POLL_MS)
        self.poll.timeout.connect(self.refresh_if_changed)

    def follow(self, ctx: UiContext) -> None:
        """Start following the store behind `ctx` (after opening or unlocking)."""
        self._ctx = ctx
        self._polling = self._poll_again = self._flushing = False
        self.waiter = ChangeWaiter(ctx.tasks, ctx.service, ctx.tasks)
        self.waiter.woke.connect(lambda _revision: self.refresh_if_changed())
        self.poll.start()
        self.refresh_if_changed()

    def stop(self) -> None:
        """Stop polling and waiting (before the service closes)."""
        self.poll.stop()
        if self.waiter is not None:
            self.waiter.stop()
            self.waiter = None

    def refresh_if_changed(self) -> None:
        """Read the change feed when the store revision moved (this or another process)."""
        if self._ctx is None:
            return
        if self._polling:
            self._poll_again = True  # woken while a poll runs: look once more after it
            return
        self._polling = True
        known = self._ctx.bus.revision

        def work(s: MemoryService) -> Polled:
            spool = s.commands.status()
            try:
                st = s.status()
            except ServerUnavailableError:
                return None, [], spool  # the badge says so; keep polling (R23)
            entries = s.events.changes_since(known) if 0 <= known < st.revision else []
            return st, entries, spool

        op = query(self._ctx, work).on_success(self._polled).on_failure(self._poll_failed)
        op.run(self._window)

    def _polled(self, result: Polled) -> None:
        self._polling = False
        st, entries, spool = result
        self._badge.show_state(spool, reachable=st is not None)
        if st is None or self._ctx is None:
            return
        if spool.waiting and not self._flushing:
            self._flush_spool()
        if self._poll_again:
            self._poll_again = False
            QTimer.singleShot(0, self, self.refresh_if_changed)
        self.status_read.emit(st)
        bus = self._ctx.bus
        if bus.revision < 0:
            bus.revision = st.revision
            if self.waiter is not None:
                self.waiter.start(st.revision)
            return
        if st.revision > bus.revision:
            bus.absorb(entries, st.revision)

    def _flush_spool(self) -> None:
        """The server answers again: apply the writes that waited (the poll shows them)."""
        if self._ctx is None:
            return
        self._flushing = True

        def settled(_report: object) -> None:
            self._flushing = False

        def failed(_exc: BaseException) -> None:
            self._flushing = False

        flush = MutatingOp[FlushReport](self._ctx, lambda s: s.commands.flush())
        flush.on_success(settled).on_failure(failed).run(self._window)

    def _poll_failed(self, exc: BaseException) -> None:
        self._polling = False
        self.poll.stop()
        show_error(self._window, exc)
