"""The transition journal's records (#39): what one change did to each memory it touched.

Written by `core.storage.journal`, undone by `core.governance.undo`; read by the desktop's
undo history and the CLI through the service.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

# A memory's state as the journal records it: its clear metadata columns, its content
# revision number and the sessions it is excluded from. Never its content.
State = dict[str, Any]


@dataclass(frozen=True)
class Entry:
    """One memory's transition in one command."""

    id: str
    command_id: str
    ts: dt.datetime
    action: str
    actor: str
    memory_id: str
    before: State | None  # None: the command created the memory
    after: State
    decision: str | None
    undoes: str | None
    undone_by: str | None = None  # the command that undid this entry, if any


@dataclass(frozen=True)
class Command:
    """A journalled change as a whole: its entries, and whether it has been undone."""

    id: str
    ts: dt.datetime
    action: str
    actor: str
    entries: tuple[Entry, ...]
    undoes: str | None

    @property
    def undone_by(self) -> str | None:
        """The command that undid it, once every entry is undone."""
        undone = {e.undone_by for e in self.entries}
        return None if None in undone else max(u for u in undone if u is not None)

    @property
    def memory_ids(self) -> tuple[str, ...]:
        """The memories the command changed."""
        return tuple(e.memory_id for e in self.entries)
