"""Live capture's resume position (hooks and transcript watchers)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CaptureCursor:
    """Where capture of one source stopped.

    Attributes:
        key: the source's key (a digest, never a file path).
        agent: the agent whose output it is (claude-code, codex ...).
        position: a byte offset into a file, or an event position; 0 when never read.
        state: a little JSON state kept with the position (None when never written).
        events: how many events capture recorded from this source so far.
    """

    key: str
    agent: str
    position: int = 0
    state: dict[str, Any] | None = None
    events: int = 0
