"""The review queue: suggested memories, quarantined ones (apart), and conflict sets (R25)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)

from core import Decision, Event, MemoryFilter, MemoryRecord, MemoryService

from ui.presentation import bold_font, icon, kind_text, status_icon

Index = QModelIndex | QPersistentModelIndex
EntryRole = Qt.ItemDataRole.UserRole + 1
CONFLICT_FLAG = "conflict"


@dataclass(frozen=True)
class Entry:
    """One row: a section header, a memory to review, or a conflict set."""

    section: str
    header: str = ""
    record: MemoryRecord | None = None
    conflict: tuple[MemoryRecord, ...] = ()

    @property
    def is_header(self) -> bool:
        """Section titles are not selectable."""
        return self.record is None and not self.conflict


@dataclass(frozen=True)
class QueueData:
    """What the queue holds at one moment."""

    candidates: list[MemoryRecord] = field(default_factory=list)
    quarantined: list[MemoryRecord] = field(default_factory=list)
    conflicts: list[tuple[MemoryRecord, ...]] = field(default_factory=list)

    @property
    def count(self) -> int:
        """Items needing a decision (the navigation badge)."""
        return len(self.candidates) + len(self.quarantined) + len(self.conflicts)


@dataclass(frozen=True)
class Evidence:
    """Why a candidate is in the queue: the policy's reasons and the source events."""

    memory_id: str
    reasons: str
    events: list[Event]
    decisions: list[Decision]


def load_queue(service: MemoryService) -> QueueData:
    """Read candidates, quarantined records and unresolved conflict sets."""
    pending = service.list_memories(
        MemoryFilter(statuses=("candidate", "active", "quarantined"), limit=10_000_000)
    )
    sets: dict[str, list[MemoryRecord]] = {}
    for r in pending:
        if r.conflict_set and CONFLICT_FLAG in r.flags and r.status.value != "quarantined":
            sets.setdefault(r.conflict_set, []).append(r)
    conflicts = [tuple(v) for v in sets.values() if len(v) > 1]
    in_conflict = {r.id for group in conflicts for r in group}
    candidates = [r for r in pending if r.status.value == "candidate" and r.id not in in_conflict]
    quarantined = [r for r in pending if r.status.value == "quarantined"]
    return QueueData(candidates, quarantined, conflicts)


def load_evidence(service: MemoryService, record: MemoryRecord) -> Evidence:
    """The policy's reasons (first decision) and the text of the source events."""
    decisions = service.history(record.id)
    reasons = decisions[0].reason if decisions else ""
    events = service.get_events(list(record.source_event_ids)) if record.source_event_ids else []
    return Evidence(record.id, reasons, events, decisions)


class ReviewQueueModel(QAbstractListModel):
    """Sections of the queue as one list; headers are not selectable."""

    def __init__(self) -> None:
        super().__init__()
        self._entries: list[Entry] = []
        self.data_set = QueueData()

    def set_queue(self, data: QueueData) -> None:
        """Replace the queue."""
        entries: list[Entry] = []
        if data.candidates:
            entries.append(
                Entry(
                    "candidate",
                    QCoreApplication.translate("Review", "Suggested memories (%1)").replace(
                        "%1", str(len(data.candidates))
                    ),
                )
            )
            entries += [Entry("candidate", record=r) for r in data.candidates]
        if data.conflicts:
            entries.append(
                Entry(
                    "conflict",
                    QCoreApplication.translate("Review", "Conflicts (%1)").replace(
                        "%1", str(len(data.conflicts))
                    ),
                )
            )
            entries += [Entry("conflict", conflict=c) for c in data.conflicts]
        if data.quarantined:
            entries.append(
                Entry(
                    "quarantined",
                    QCoreApplication.translate(
                        "Review", "Quarantined — check before approving (%1)"
                    ).replace("%1", str(len(data.quarantined))),
                )
            )
            entries += [Entry("quarantined", record=r) for r in data.quarantined]
        self.beginResetModel()
        self._entries = entries
        self.data_set = data
        self.endResetModel()

    def entry(self, row: int) -> Entry | None:
        """The entry of a row."""
        return self._entries[row] if 0 <= row < len(self._entries) else None

    def selectable_rows(self) -> list[int]:
        """Rows the user can act on, top to bottom."""
        return [i for i, e in enumerate(self._entries) if not e.is_header]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._entries)

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        if self._entries[index.row()].is_header:
            return Qt.ItemFlag.ItemIsEnabled
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._entries):
            return None
        e = self._entries[index.row()]
        if role == EntryRole:
            return e
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(e)
        if role == Qt.ItemDataRole.DecorationRole and not e.is_header:
            return icon("conflict") if e.conflict else status_icon(e.section)
        if role == Qt.ItemDataRole.FontRole and e.is_header:
            return bold_font()
        if role == Qt.ItemDataRole.ToolTipRole and e.record is not None:
            return e.record.content[:2000]
        return None

    @staticmethod
    def _text(e: Entry) -> str:
        if e.is_header:
            return e.header
        if e.conflict:
            return " ⟷ ".join(r.content[:50] for r in e.conflict)
        assert e.record is not None
        r = e.record
        return f"{r.content[:90]}\n{kind_text(r.kind.value)} · {r.scope}"
