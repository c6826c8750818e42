"""Operations: the one way widgets run core calls (HOUSE_STYLE, Anki's CollectionOp/QueryOp).

    mutate(ctx, lambda s: s.review.approve(mid)).on_success(done).run(initiator=self)

A `MutatingOp` runs on the single writer; after the commit (never on failure) it publishes
the `Changes` on the bus, then calls `on_success` with the result's value. A `QueryOp` runs on
the reader pool and publishes nothing. Failures go to the one error dialog unless the caller
handles them. Long work can show a progress dialog and be cancelled.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal
from PySide6.QtWidgets import QProgressDialog, QWidget

from core import MemoryService, Result

from ui.context import UiContext
from ui.errors import show_error

T = TypeVar("T")


class ProgressRelay(QObject):
    """Carries progress from a worker thread to the UI thread, and the cancel request back.

    Signals:
        progressed: (int) units of work done so far.
    """

    progressed = Signal(int)

    def __init__(self) -> None:
        super().__init__()
        self.cancelled = threading.Event()

    def report(self, done: int) -> None:
        """Called by the worker: forward progress (queued to the UI thread)."""
        self.progressed.emit(done)

    def should_stop(self) -> bool:
        """Called by the worker: has the user asked to stop?"""
        return self.cancelled.is_set()


class _Op(Generic[T]):
    _mutating = False

    def __init__(self, ctx: UiContext, work: Callable[..., Any]) -> None:
        self._ctx = ctx
        self._work = work
        self._success: Callable[[T], None] = lambda _value: None
        self._failure: Callable[[BaseException], None] | None = None
        self._progress_label: str | None = None
        self._progress_unit = ""
        self._parent: QWidget | None = None

    def on_success(self, callback: Callable[[T], None]) -> _Op[T]:
        """Call `callback(value)` on the UI thread when the work succeeded."""
        self._success = callback
        return self

    def on_failure(self, callback: Callable[[BaseException], None]) -> _Op[T]:
        """Handle failures yourself instead of the error dialog."""
        self._failure = callback
        return self

    def with_progress(self, label: str, unit: str = "") -> _Op[T]:
        """Show a cancellable progress dialog; the work receives a `ProgressRelay`."""
        self._progress_label = label
        self._progress_unit = unit
        return self

    def run(self, initiator: QObject | None = None) -> None:
        """Start the work in the background."""
        self._parent = initiator if isinstance(initiator, QWidget) else None
        relay, dialog = self._progress_dialog()
        service = self._ctx.service

        def work() -> Any:
            return self._work(service, relay) if relay is not None else self._work(service)

        def done(value: Any) -> None:
            _dismiss(dialog)
            if isinstance(initiator, QObject) and not shiboken6.isValid(initiator):
                # The view that asked was rebuilt meanwhile (a language switch, a lock):
                # nothing is left to show the answer in. A write's changes still go out.
                if self._mutating and isinstance(value, Result):
                    self._ctx.bus.publish(value.changes, None)
                return
            self._deliver(value, initiator)

        def failed(exc: BaseException) -> None:
            _dismiss(dialog)
            if self._failure is not None:
                self._failure(exc)
            else:
                show_error(self._parent, exc)

        self._ctx.tasks.run(work, done, failed, mutating=self._mutating)

    def _deliver(self, value: Any, initiator: QObject | None) -> None:
        self._success(value)

    def _progress_dialog(self) -> tuple[ProgressRelay | None, QProgressDialog | None]:
        if self._progress_label is None:
            return None, None
        relay = ProgressRelay()
        stop = QCoreApplication.translate("Progress", "Stop")
        dialog = QProgressDialog(self._progress_label, stop, 0, 0, self._parent)
        dialog.setWindowTitle(QCoreApplication.translate("Progress", "Memory Center"))
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(0)
        dialog.setAccessibleName(QCoreApplication.translate("Progress", "Progress"))
        unit = self._progress_unit
        label = self._progress_label
        # Queued: the worker thread emits, and a lambda has no receiver to route it by, so a
        # default connection would touch the dialog from the worker thread.
        relay.progressed.connect(
            lambda n: dialog.setLabelText(f"{label}\n{n} {unit}".strip()),
            Qt.ConnectionType.QueuedConnection,
        )
        dialog.canceled.connect(relay.cancelled.set)
        dialog.show()
        return relay, dialog


def _dismiss(dialog: QProgressDialog | None) -> None:
    """Put a finished operation's progress dialog away.

    Not `close()`: QProgressDialog's close event emits `canceled` and prunes connections,
    which from inside a queued delivery can self-deadlock on Qt's signal-slot lock.
    """
    if dialog is not None:
        dialog.hide()
        dialog.deleteLater()


class QueryOp(_Op[T]):
    """A read: runs on the reader pool, publishes nothing."""


class MutatingOp(_Op[T]):
    """A write: runs on the single writer and publishes its `Changes` after the commit."""

    _mutating = True

    def _deliver(self, value: Any, initiator: QObject | None) -> None:
        if isinstance(value, Result):
            self._ctx.bus.publish(value.changes, initiator)
            self._success(value.value)
        else:
            self._success(value)


def query(ctx: UiContext, work: Callable[[MemoryService], T]) -> QueryOp[T]:
    """A read-only operation over the service."""
    return QueryOp(ctx, work)


def mutate(ctx: UiContext, work: Callable[[MemoryService], Result[T]]) -> MutatingOp[T]:
    """A mutating operation over the service; publishes its changes on success."""
    return MutatingOp(ctx, work)
