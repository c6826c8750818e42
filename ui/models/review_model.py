"""The review queue: suggested memories, quarantined ones (apart), and conflict sets (R25)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt

from core import (
    Decision,
    Event,
    MemoryFilter,
    MemoryFlag,
    MemoryRecord,
    MemoryService,
    MemoryStatus,
)

from ui.models.row_table import RowTableModel
from ui.presentation import bold_font, icon, kind_text, status_icon

EntryRole = Qt.ItemDataRole.UserRole + 1
ALL = 10_000_000


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
    # "possibly the same as / replaces / contradicts" (#40): the doubt and the other memory.
    possible: tuple[str, MemoryRecord] | None = None


def _entry(section: str, item: MemoryRecord | tuple[MemoryRecord, ...]) -> Entry:
    if isinstance(item, MemoryRecord):
        return Entry(section, record=item)
    return Entry(section, conflict=item)


def load_queue(service: MemoryService) -> QueueData:
    """Read candidates, quarantined records and unresolved conflict sets."""
    waiting = service.memories.list_memories(
        MemoryFilter(statuses=(MemoryStatus.CANDIDATE, MemoryStatus.QUARANTINED), limit=ALL)
    )
    # Active members of conflict sets only: reading every active memory to find them took
    # 20 s of a 100k store's start (and its quit waited for it, #43).
    in_sets = service.memories.list_memories(
        MemoryFilter(statuses=(MemoryStatus.ACTIVE,), in_conflict_set=True, limit=ALL)
    )
    pending = sorted([*waiting, *in_sets], key=lambda r: (r.updated_at, r.id), reverse=True)
    sets: dict[str, list[MemoryRecord]] = {}
    for r in pending:
        conflicting = MemoryFlag.CONFLICT in r.flags and r.status != MemoryStatus.QUARANTINED
        if r.conflict_set and conflicting:
            sets.setdefault(r.conflict_set, []).append(r)
    conflicts = [tuple(v) for v in sets.values() if len(v) > 1]
    in_conflict = {r.id for group in conflicts for r in group}
    candidates = [
        r for r in pending if r.status == MemoryStatus.CANDIDATE and r.id not in in_conflict
    ]
    quarantined = [r for r in pending if r.status == MemoryStatus.QUARANTINED]
    return QueueData(candidates, quarantined, conflicts)


def load_evidence(service: MemoryService, record: MemoryRecord) -> Evidence:
    """The policy's reasons (first decision) and the text of the source events."""
    decisions = service.memories.history(record.id)
    reasons = decisions[0].reason if decisions else ""
    events = (
        service.events.get_events(list(record.source_event_ids)) if record.source_event_ids else []
    )
    possible = (
        service.memories.possible_relation(record.id)
        if MemoryFlag.NEEDS_CONFIRMATION in record.flags
        else None
    )
    return Evidence(record.id, reasons, events, decisions, possible)


class ReviewQueueModel(RowTableModel[Entry]):
    """Sections of the queue as one list (a one-column table); headers are not selectable."""

    def __init__(self) -> None:
        super().__init__(("",))
        self.data_set = QueueData()

    def set_queue(self, data: QueueData) -> None:
        """Replace the queue."""
        entries: list[Entry] = []
        sections = (
            (
                "candidate",
                data.candidates,
                QCoreApplication.translate("Review", "Suggested memories (%1)"),
            ),
            ("conflict", data.conflicts, QCoreApplication.translate("Review", "Conflicts (%1)")),
            (
                "quarantined",
                data.quarantined,
                QCoreApplication.translate("Review", "Quarantined — check before approving (%1)"),
            ),
        )
        for section, items, title in sections:
            if not items:
                continue
            entries.append(Entry(section, title.replace("%1", str(len(items)))))
            entries += [_entry(section, item) for item in items]
        self.data_set = data
        self.reset_rows(entries)

    def entry(self, row: int) -> Entry | None:
        """The entry of a row."""
        return self.row_at(row)

    def selectable_rows(self) -> list[int]:
        """Rows the user can act on, top to bottom."""
        return [i for i, e in enumerate(self._rows) if not e.is_header]

    def selectable(self, row: Entry) -> bool:
        return not row.is_header

    def cell(self, e: Entry, column: int, role: int) -> Any:
        if role == EntryRole:
            return e
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(e)
        if role == Qt.ItemDataRole.DecorationRole and not e.is_header:
            return icon("conflict") if e.conflict else status_icon(e.section)
        if role == Qt.ItemDataRole.FontRole and e.is_header:
            return bold_font()
        if role == Qt.ItemDataRole.ToolTipRole and e.record is not None:
            return e.record.spoken()[:2000]
        return None

    @staticmethod
    def _text(e: Entry) -> str:
        if e.is_header:
            return e.header
        if e.conflict:
            return " ⟷ ".join(r.content[:50] for r in e.conflict)
        assert e.record is not None
        r = e.record
        return f"{r.spoken()[:90]}\n{kind_text(r.kind.value)} · {r.scope}"
