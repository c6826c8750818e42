"""The offline write spool as the public API shows it (R23)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


@dataclass(frozen=True)
class SpoolEntry:
    """One write waiting on this machine for the server.

    Attributes:
        id: the entry's id, recorded in the store when it is applied.
        operation: the service method (remember, append_events, approve, delete, ...).
        spooled_at: when the write was made.
        attempts: how many flushes tried it.
        last_error: why the last attempt did not apply it.
    """

    id: str
    operation: str
    spooled_at: dt.datetime
    attempts: int = 0
    last_error: str | None = None


@dataclass(frozen=True)
class SpoolStatus:
    """How this machine's spool stands.

    Attributes:
        waiting: writes not yet applied.
        oldest: when the oldest of them was made.
        last_error: the last reason a write was spooled or refused at apply time.
        offline: the last attempt to reach the server failed.
    """

    waiting: int
    oldest: dt.datetime | None
    last_error: str | None
    offline: bool


@dataclass(frozen=True)
class SpoolRefusal:
    """A spooled write the store refused when it was applied (e.g. its memory is gone)."""

    id: str
    operation: str
    message: str


@dataclass(frozen=True)
class FlushReport:
    """What one flush did.

    Attributes:
        applied: entries applied now, in order (the policy decided each one now).
        already: entries another process had applied (dropped here, not applied twice).
        refused: entries the store refused at apply time, with the reason.
        waiting: entries still waiting (the server went away again).
        error: why the flush stopped early, if it did.
    """

    applied: tuple[str, ...]
    already: tuple[str, ...]
    refused: tuple[SpoolRefusal, ...]
    waiting: int
    error: str | None = None
