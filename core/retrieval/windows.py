"""Conversation windows in the vector index (#17): a turn embedded with the turns around it.

"Yes, last Tuesday!" means little alone; with the question before it, it answers "when did
Mei go to the museum?". So a recorded turn also gets a vector for the text of its window
(the turn before, the turn, the turn after, each after its speaker's name), and a query's
cosine to that window is mixed into the turn's own (`context.widen_vectors`). Measured on
the conversation benchmark: R@10 0.674 -> 0.708 over the mean of the three turns' stored
vectors (docs/retrieval.md).

A window vector holds the meaning of several memories, so its key names every one of them
and the revision it was embedded from: `w|<turn>@<rev>;<<before>@<rev>;><after>@<rev>`. Hence:

- it is used only when the key built from what the request sees now matches (every
  contributor visible, none edited since); otherwise the mean of stored vectors serves and
  the window is embedded for next time;
- deleting or re-embedding any contributor drops every window that names it, and a window
  embedded while one of its contributors was deleted never reaches the index (R19);
- a search never returns it: it is not a memory id, so no request's allowed set holds it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.model.records import MemoryRecord

PREFIX = "w|"


def key(before: MemoryRecord | None, turn: MemoryRecord, after: MemoryRecord | None) -> str:
    """The window's key: the turn, then the turn before (`<`) and after (`>`) it, each with
    its revision."""
    parts = [f"{turn.id}@{turn.revision}"]
    parts += [f"{side}{r.id}@{r.revision}" for side, r in (("<", before), (">", after)) if r]
    return PREFIX + ";".join(parts)


def text(before: MemoryRecord | None, turn: MemoryRecord, after: MemoryRecord | None) -> str:
    """What is embedded: the turns in the order they were said, each after its speaker."""
    return "\n".join(r.spoken() for r in (before, turn, after) if r is not None)


def is_window(index_id: str) -> bool:
    return index_id.startswith(PREFIX)


def contributors(window: str) -> list[str]:
    """The memory ids a window key names."""
    return [part.rsplit("@", 1)[0].lstrip("<>") for part in window[len(PREFIX) :].split(";")]


class Contributors:
    """Which windows name which memory: a deleted or re-embedded memory's windows are found
    without scanning the index. Built from the index's ids on first use."""

    def __init__(self, index_ids: Iterable[str]) -> None:
        self._of: dict[str, set[str]] = {}
        self.count = 0
        for index_id in index_ids:
            if is_window(index_id):
                self.add(index_id)

    def add(self, window: str) -> None:
        self.count += 1
        for memory_id in contributors(window):
            self._of.setdefault(memory_id, set()).add(window)

    def take(self, memory_ids: Iterable[str]) -> set[str]:
        """Forget and return every window that names one of these memories."""
        out: set[str] = set()
        for memory_id in memory_ids:
            out |= self._of.pop(memory_id, set())
        for window in out:
            for memory_id in contributors(window):
                held = self._of.get(memory_id)
                if held is not None:
                    held.discard(window)
                    if not held:
                        del self._of[memory_id]
        self.count -= len(out)
        return out

    def stale(self, wanted: set[str]) -> set[str]:
        """Windows naming a memory outside `wanted` (deleted, or no longer active)."""
        gone = [memory_id for memory_id in self._of if memory_id not in wanted]
        return self.take(gone)

    def take_all(self) -> set[str]:
        """Forget and return every window (windows switched off)."""
        return self.take(list(self._of))
