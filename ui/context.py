"""What every view needs: the service, the task runner, the change bus and the clock.

Passed in explicitly (no module-level singletons, HOUSE_STYLE).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field

from core import MemoryService

from ui.changes import ChangeBus
from ui.tasks import TaskRunner


def utc_now() -> dt.datetime:
    """The wall clock, timezone-aware (tests pass their ManualClock's `now`)."""
    return dt.datetime.now(dt.UTC)


@dataclass
class UiContext:
    """The shared collaborators of the memory center's widgets.

    Attributes:
        service: the core facade; called only through `tasks`.
        tasks: runs core calls off the UI thread.
        bus: announces committed changes.
        now: the clock used to show effective status (expired) and relative times.
    """

    service: MemoryService
    tasks: TaskRunner
    bus: ChangeBus
    now: Callable[[], dt.datetime] = field(default=utc_now)
