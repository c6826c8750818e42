"""The change bus: after a commit, views learn what changed (HOUSE_STYLE, Anki's OpChanges).

`ChangeBus.changes_applied(changes, initiator)` fires after every successful mutation made
here, and for changes other processes committed (found by polling the store revision;
initiator None). It never fires for a failed operation.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from core import ChangeEntry, ChangeKind, Changes


class ChangeBus(QObject):
    """Publishes committed `Changes`.

    Signals:
        changes_applied: (Changes, initiator object or None) after a commit.
        revision_seen: (int) the newest store revision known to the UI.
    """

    changes_applied = Signal(object, object)
    revision_seen = Signal(int)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.revision = -1
        self._own: set[int] = set()

    def publish(self, changes: Changes, initiator: object | None) -> None:
        """Announce changes committed by an operation of this window."""
        self._own.add(changes.revision)
        self.changes_applied.emit(changes, initiator)

    def absorb(self, entries: list[ChangeEntry], revision: int) -> None:
        """Announce what other writers committed since the last poll (skipping our own)."""
        kinds: set[ChangeKind] = set()
        memory_ids: list[str] = []
        for entry in entries:
            if entry.revision in self._own:
                continue
            kinds |= entry.kinds
            memory_ids.extend(entry.memory_ids)
        self._own = {r for r in self._own if r > revision}
        self.revision = max(self.revision, revision)
        self.revision_seen.emit(self.revision)
        if kinds:
            self.changes_applied.emit(
                Changes(frozenset(kinds), revision, memory_ids=tuple(memory_ids)), None
            )


def touches_any(changes: Changes, kinds: frozenset[ChangeKind]) -> bool:
    """True when `changes` concern any of `kinds` (an empty set of kinds means: unknown, yes)."""
    return not changes.kinds or bool(changes.kinds & kinds)
