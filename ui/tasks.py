"""Run core calls off the UI thread and deliver results on it (HOUSE_STYLE, Anki's taskman).

Mutations go to a single-writer executor so they apply in the order the user made them;
reads go to a small pool. Widgets never start threads themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Signal, Slot

T = TypeVar("T")


class TaskRunner(QObject):
    """Runs callables in the background; calls back on the UI thread.

    Signals:
        finished_on_ui: internal; carries (callback, future) to the UI thread.
        waited_on_ui: internal; the same for `wait`.
    """

    finished_on_ui = Signal(object, object)
    waited_on_ui = Signal(object, object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mc-write")
        self._readers = ThreadPoolExecutor(max_workers=2, thread_name_prefix="mc-read")
        # One thread that may block for seconds (waiting for another machine's commit), so
        # a long wait never takes a reader from the views.
        self._waiter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mc-wait")
        self._pending = 0
        self._closed = False
        self.finished_on_ui.connect(self._deliver)
        self.waited_on_ui.connect(self._deliver_wait)

    def run(
        self,
        work: Callable[[], T],
        on_success: Callable[[T], None],
        on_failure: Callable[[BaseException], None],
        *,
        mutating: bool = False,
    ) -> None:
        """Run `work` in the background, then `on_success(result)` or `on_failure(exc)` here.

        After `shutdown` (the window is closing) new work is dropped.
        """
        if self._closed:
            return
        pool = self._writer if mutating else self._readers
        self._pending += 1
        future = pool.submit(work)
        future.add_done_callback(
            lambda fut: self.finished_on_ui.emit((on_success, on_failure), fut)
        )

    def wait(
        self,
        work: Callable[[], T],
        on_success: Callable[[T], None],
        on_failure: Callable[[BaseException], None],
    ) -> None:
        """Run a blocking wait in the background; its result comes back here like `run`'s.

        Not counted as busy, and not awaited at shutdown: a wait ends by its own timeout.
        """
        if self._closed:
            return
        future = self._waiter.submit(work)

        def deliver(fut: Future[Any]) -> None:
            if not self._closed:
                self.waited_on_ui.emit((on_success, on_failure), fut)

        future.add_done_callback(deliver)

    @property
    def busy(self) -> bool:
        """True while any task has not delivered its result."""
        return self._pending > 0

    def shutdown(self) -> None:
        """Wait for running work and stop the pools; results not yet delivered are dropped."""
        self._closed = True
        self._writer.shutdown(wait=True)
        self._readers.shutdown(wait=True)
        self._waiter.shutdown(wait=False, cancel_futures=True)

    @Slot(object, object)
    def _deliver(self, callbacks: tuple[Any, Any], future: Future[Any]) -> None:
        self._pending -= 1
        self._deliver_wait(callbacks, future)

    @Slot(object, object)
    def _deliver_wait(self, callbacks: tuple[Any, Any], future: Future[Any]) -> None:
        if self._closed:
            return
        on_success, on_failure = callbacks
        exc = future.exception()
        if exc is not None:
            on_failure(exc)
        else:
            on_success(future.result())
