"""What every view needs: the service, the task runner, the change bus and the clock.

Passed in explicitly (no module-level singletons, HOUSE_STYLE).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from core import MemoryService

from ui.changes import ChangeBus
from ui.integrations import Connectors
from ui.tasks import TaskRunner

ImportProgress = Callable[[int, int], None]
"""Called by an importer (on a worker thread) with (sessions done, sessions in total)."""

ShouldStop = Callable[[], bool]
"""Asked by an importer between sessions: has the user pressed Stop?"""

Importer = Callable[[MemoryService, Path, ImportProgress, ShouldStop], str]
"""Imports transcripts at a path into the service; returns a one-paragraph human summary.

Runs on the single writer thread. It takes the service as an argument (instead of closing
over one) so it keeps working after the window was locked and unlocked on a new service.
Stopping is only honoured between sessions, which each commit in one transaction.
"""

Importers = Mapping[str, Importer]
"""Importer by the name shown to the user (e.g. "Claude Code transcripts")."""

Unlock = Callable[[], MemoryService | None]
"""Reopens the store after Lock (asking for the passphrase); None when the user gave up."""


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
        importers: transcript importers injected by the application (ui may not import app).
        connectors: team join, Claude Code hooks and live capture, lent by the application.
    """

    service: MemoryService
    tasks: TaskRunner
    bus: ChangeBus
    now: Callable[[], dt.datetime] = field(default=utc_now)
    importers: Importers = field(default_factory=dict)
    connectors: Connectors = field(default_factory=Connectors)
