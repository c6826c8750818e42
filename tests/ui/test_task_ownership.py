"""A background task's Qt objects are released on the UI thread, never by a worker.

An operation's work closure holds its progress relay (a QObject), and its callbacks hold the
progress dialog. When the worker's own release of a finished task dropped the last reference,
the object was destroyed off the UI thread, and a key rotation with progress crashed the
interpreter now and then. The runner now keeps every task's work and callbacks itself until
it delivers the result on the UI thread.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from typing import ClassVar

import pytest
from PySide6.QtCore import QObject
from pytestqt.qtbot import QtBot

from ui.tasks import TaskRunner


class Tracked(QObject):
    """Notes the thread its Python side is released on."""

    released_on: ClassVar[list[str]] = []

    def __del__(self) -> None:
        Tracked.released_on.append(threading.current_thread().name)


@pytest.fixture
def tasks() -> Iterator[TaskRunner]:
    runner = TaskRunner()
    yield runner
    runner.shutdown()


def _start(
    tasks: TaskRunner, go: threading.Event, delivered: list[str], *, fail: bool, wait: bool
) -> None:
    """A task whose work alone holds one tracked object and whose callbacks hold another;
    the work runs on once `go` is set, after this frame (and its references) is gone, as
    an operation's work outlives the click that started it."""
    in_work, in_callbacks = Tracked(), Tracked()

    def work() -> str:
        go.wait(5)
        if fail:
            raise ValueError(in_work.objectName())
        return in_work.objectName()

    def done(_value: object) -> None:
        delivered.append(in_callbacks.objectName() or "done")

    def failed(_exc: BaseException) -> None:
        delivered.append(in_callbacks.objectName() or "failed")

    (tasks.wait if wait else tasks.run)(work, done, failed)


@pytest.mark.parametrize(("fail", "wait"), [(False, False), (True, False), (False, True)])
def test_a_tasks_qt_objects_are_released_on_the_ui_thread(
    qtbot: QtBot, tasks: TaskRunner, fail: bool, wait: bool
) -> None:
    Tracked.released_on = []
    delivered: list[str] = []
    go = threading.Event()
    _start(tasks, go, delivered, fail=fail, wait=wait)
    go.set()
    qtbot.waitUntil(lambda: bool(delivered), timeout=5000)
    # Let the worker finish with the task (its release comes after it reports the result).
    tasks.run(lambda: None, lambda _v: None, lambda _e: None)
    qtbot.waitUntil(lambda: not tasks.busy, timeout=5000)
    gc.collect()
    assert len(Tracked.released_on) == 2
    assert set(Tracked.released_on) == {threading.main_thread().name}
