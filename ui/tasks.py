"""Run core calls off the UI thread and deliver results on it (HOUSE_STYLE, Anki's taskman).

Mutations go to a single-writer executor so they apply in the order the user made them;
reads go to a small pool. Widgets never start threads themselves.

The work and its callbacks hold Qt objects (a progress dialog, its relay, widgets). They stay
referenced here, on the UI thread, until the result is delivered: a worker thread holds only
a key. Otherwise the worker's own release of a finished task could be the last reference and
destroy a dialog or relay off the UI thread, which crashed the interpreter.
"""

from __future__ import annotations

import itertools
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Signal, Slot

T = TypeVar("T")
_Task = tuple[Callable[[], Any], Callable[[Any], None], Callable[[BaseException], None]]
"""A task's work, and what receives its result or its exception."""


class _ReadPool:
    """A few daemon threads running reads in order of submission.

    Not a `ThreadPoolExecutor`: the interpreter joins an executor's threads when it exits, so
    a read still running when the window closed (the review badge decrypting every
    suggestion of a 100k store) kept the process alive for 20 s after quit (#43). A read's
    result is dropped once the window is closing; nothing is lost by not waiting for it.
    """

    def __init__(self, workers: int, name: str) -> None:
        self._queue: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]] | None] = (
            queue.SimpleQueue()
        )
        self._running = 0
        self._idle = threading.Condition()
        self._closed = False
        self._threads = [
            threading.Thread(target=self._work, name=f"{name}_{i}", daemon=True)
            for i in range(workers)
        ]
        for thread in self._threads:
            thread.start()

    def submit(self, fn: Callable[[int], Any], key: int) -> Future[Any]:
        future: Future[Any] = Future()
        self._queue.put((future, lambda: fn(key)))
        return future

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            future, fn = item
            if not future.set_running_or_notify_cancel():
                continue
            with self._idle:
                self._running += 1
            try:
                future.set_result(fn())
            except BaseException as exc:  # delivered to the UI thread by the done callback
                future.set_exception(exc)
            finally:
                with self._idle:
                    self._running -= 1
                    self._idle.notify_all()

    def shutdown(self, *, wait: bool) -> None:
        """Cancel what has not started; with `wait`, wait for what runs."""
        if not self._closed:
            self._closed = True
            while True:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is not None:
                    item[0].cancel()
            for _thread in self._threads:
                self._queue.put(None)
        if wait:
            with self._idle:
                self._idle.wait_for(lambda: self._running == 0)


class TaskRunner(QObject):
    """Runs callables in the background; calls back on the UI thread.

    Signals:
        finished_on_ui: internal; carries (task key, future) to the UI thread.
        waited_on_ui: internal; the same for `wait`.
        writes_settled: the last pending write delivered its result (its changes are
            published): an undo asked for meanwhile can now name it.
    """

    finished_on_ui = Signal(object, object)
    waited_on_ui = Signal(object, object)
    writes_settled = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mc-write")
        self._readers = _ReadPool(2, "mc-read")
        # Waits may block for seconds (waiting for another machine's commit): each runs on a
        # daemon thread of its own, so a long wait never takes a reader from the views and
        # never keeps the process alive after the window closed (an executor's threads are
        # joined when the interpreter exits, #43).
        self._pending = 0
        self._writes: set[int] = set()  # keys of writes not delivered yet
        self._closed = False
        # Each task's (work, on_success, on_failure) by key, released on the UI thread only.
        self._held: dict[int, _Task] = {}
        self._held_lock = threading.Lock()
        self._keys = itertools.count()
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
        key = self._hold(work, on_success, on_failure)
        if mutating:
            self._writes.add(key)
        future = pool.submit(self._call, key)
        future.add_done_callback(lambda fut: self.finished_on_ui.emit(key, fut))

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
        key = self._hold(work, on_success, on_failure)
        future: Future[Any] = Future()

        def run() -> None:
            try:
                future.set_result(self._call(key))
            except BaseException as exc:  # delivered to the UI thread like `run`'s
                future.set_exception(exc)
            if not self._closed:
                self.waited_on_ui.emit(key, future)

        threading.Thread(target=run, name="mc-wait", daemon=True).start()

    @property
    def busy(self) -> bool:
        """True while any task has not delivered its result."""
        return self._pending > 0

    @property
    def writing(self) -> bool:
        """True while a write has not delivered its result (and published its changes)."""
        return bool(self._writes)

    def shutdown(self, *, wait_for_reads: bool = True) -> None:
        """Wait for running work and stop the pools; results not yet delivered are dropped.

        Every write the user asked for is applied; reads not started yet are dropped (their
        results would be thrown away: waiting for them kept a closed window's process alive
        for seconds, #43). Reads that run are waited for unless `wait_for_reads` is False
        (the application quits: they run on daemon threads that end with the process)."""
        self._closed = True
        self._readers.shutdown(wait=False)
        self._writer.shutdown(wait=True)
        self._readers.shutdown(wait=wait_for_reads)

    def _hold(
        self,
        work: Callable[[], Any],
        on_success: Callable[[Any], None],
        on_failure: Callable[[BaseException], None],
    ) -> int:
        key = next(self._keys)
        with self._held_lock:
            self._held[key] = (work, on_success, on_failure)
        return key

    def _call(self, key: int) -> Any:
        """In a worker: run the task's work (its reference ends with this frame)."""
        with self._held_lock:
            work = self._held[key][0]
        return work()

    @Slot(object, object)
    def _deliver(self, key: int, future: Future[Any]) -> None:
        self._pending -= 1
        try:
            self._deliver_wait(key, future)
        finally:
            if key in self._writes:
                self._writes.discard(key)
                if not self._writes and not self._closed:
                    self.writes_settled.emit()

    @Slot(object, object)
    def _deliver_wait(self, key: int, future: Future[Any]) -> None:
        with self._held_lock:
            _work, on_success, on_failure = self._held.pop(key)
        if self._closed:
            return
        exc = future.exception()
        if exc is not None:
            try:
                on_failure(exc)
            finally:
                # Its frames hold the work's closure (and its Qt objects): let go of them
                # here rather than with the future in the worker.
                exc.__traceback__ = None
        else:
            on_success(future.result())
