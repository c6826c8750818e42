"""Time as a seam: the store never calls `datetime.now()` directly, so tests can move time."""

from __future__ import annotations

import datetime as dt
import threading
from typing import Protocol


class Clock(Protocol):
    """Source of the current instant (timezone-aware UTC)."""

    def now(self) -> dt.datetime:
        """Return the current instant in UTC."""
        ...


class SystemClock:
    """The real wall clock."""

    def now(self) -> dt.datetime:
        """Return the current instant in UTC."""
        return dt.datetime.now(dt.UTC)


class ManualClock:
    """A clock that only moves when told to (scenarios, tests)."""

    def __init__(self, start: dt.datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("ManualClock needs a timezone-aware start")
        self._now = start
        self._lock = threading.Lock()

    def now(self) -> dt.datetime:
        """Return the clock's instant."""
        with self._lock:
            return self._now

    def advance(self, delta: dt.timedelta) -> None:
        """Move forward by `delta` (never backwards: revisions and TTLs assume monotonic time)."""
        if delta < dt.timedelta(0):
            raise ValueError("a clock never goes backwards")
        with self._lock:
            self._now += delta


def to_iso(moment: dt.datetime) -> str:
    """Serialise an instant the way the store keeps it: UTC ISO-8601 with microseconds."""
    return moment.astimezone(dt.UTC).isoformat(timespec="microseconds")


def from_iso(text: str) -> dt.datetime:
    """Parse an instant written by `to_iso`."""
    value = dt.datetime.fromisoformat(text)
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)
