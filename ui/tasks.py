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
    """

    finished_on_ui = Signal(object, object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mc-write")
        self._readers = ThreadPoolExecutor(max_workers=2, thread_name_prefix="mc-read")
        self._pending = 0
        self._closed = False
        self.finished_on_ui.connect(self._deliver)

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

    @property
    def busy(self) -> bool:
        """True while any task has not delivered its result."""
        return self._pending > 0

    def shutdown(self) -> None:
        """Wait for running work and stop the pools; results not yet delivered are dropped."""
        self._closed = True
        self._writer.shutdown(wait=True)
        self._readers.shutdown(wait=True)

    @Slot(object, object)
    def _deliver(self, callbacks: tuple[Any, Any], future: Future[Any]) -> None:
        self._pending -= 1
        if self._closed:
            return
        on_success, on_failure = callbacks
        exc = future.exception()
        if exc is not None:
            on_failure(exc)
        else:
            on_success(future.result())
