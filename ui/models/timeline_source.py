"""The data behind the timeline: filtering memories and merging them with events by time.

Pure Python (no Qt), so it runs on the reader pool and is tested without widgets. The core
decrypts every record on each `list_memories` call, so the timeline loads all records once
per store revision and filters them here (milliseconds for 100k records); events are paged
from the log as the user scrolls.
"""

from __future__ import annotations

import datetime as dt
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from core import Event, EventKind, MemoryRecord, MemoryService

EVENT_PAGE = 500
Item = MemoryRecord | Event


@dataclass(frozen=True)
class TimelineFilter:
    """What the user asked the timeline to show. Empty sets mean "all".

    Attributes:
        statuses: effective statuses (`expired` included) of memories to show.
        kinds: memory kinds to show.
        trusts: source trust levels to show.
        scope_text: `key=value` words (all must be in the scope) or free text matched
            against the scope.
        text: full-text search over the content (case-insensitive).
        date_from: first local day shown (inclusive).
        date_to: last local day shown (inclusive).
        show_events: merge raw log events into the timeline.
    """

    statuses: frozenset[str] = field(default_factory=frozenset)
    kinds: frozenset[str] = field(default_factory=frozenset)
    trusts: frozenset[str] = field(default_factory=frozenset)
    scope_text: str = ""
    text: str = ""
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    show_events: bool = False


def item_time(item: Item) -> dt.datetime:
    """The instant an item sorts by: a memory's last change, an event's time."""
    return item.updated_at if isinstance(item, MemoryRecord) else item.ts


def _scope_matcher(scope_text: str) -> Callable[[Item], bool]:
    words = scope_text.split()
    if not words:
        return lambda _item: True
    pairs = [tuple(w.split("=", 1)) for w in words if "=" in w]
    loose = [w.casefold() for w in words if "=" not in w]

    def match(item: Item) -> bool:
        scope = item.scope
        if any(scope.get(k.strip()) != v.strip() for k, v in pairs):
            return False
        flat = str(scope).casefold()
        return all(w in flat for w in loose)

    return match


def _date_matcher(flt: TimelineFilter) -> Callable[[Item], bool]:
    if flt.date_from is None and flt.date_to is None:
        return lambda _item: True
    low = flt.date_from or dt.date.min
    high = flt.date_to or dt.date.max

    def match(item: Item) -> bool:
        return low <= item_time(item).astimezone().date() <= high

    return match


def filter_memories(
    records: Sequence[MemoryRecord], flt: TimelineFilter, now: dt.datetime
) -> list[MemoryRecord]:
    """The records the filter admits, in the given (newest first) order."""
    in_scope = _scope_matcher(flt.scope_text)
    in_dates = _date_matcher(flt)
    needle = flt.text.casefold().strip()
    out = []
    for r in records:
        if flt.kinds and r.kind.value not in flt.kinds:
            continue
        if flt.trusts and r.source_trust.value not in flt.trusts:
            continue
        if flt.statuses and r.effective_status(now) not in flt.statuses:
            continue
        if needle and needle not in r.content.casefold():
            continue
        if in_scope(r) and in_dates(r):
            out.append(r)
    return out


class TimelineStream:
    """Yields filtered memories merged with (optionally) log events, newest first.

    Not thread-safe: the model asks for one page at a time.
    """

    def __init__(
        self,
        memories: Sequence[MemoryRecord],
        flt: TimelineFilter,
        service: MemoryService | None = None,
    ) -> None:
        self._memories = list(memories)
        self._mem_pos = 0
        self._flt = flt
        self._service = service if flt.show_events else None
        self._events: deque[Event] = deque()
        self._event_cursor: int | None = None
        self._events_done = self._service is None
        self._keep_event = self._event_matcher(flt)

    @property
    def memory_count(self) -> int:
        """How many memories the filter admitted."""
        return len(self._memories)

    def exhausted(self) -> bool:
        """True when every item has been handed out."""
        return self._mem_pos >= len(self._memories) and self._events_done and not self._events

    def next_page(self, size: int) -> list[Item]:
        """The next `size` items (fewer at the end); may read events from the log."""
        out: list[Item] = []
        while len(out) < size and not self.exhausted():
            if not self._events and not self._events_done:
                self._load_events()
                continue
            mem = self._memories[self._mem_pos] if self._mem_pos < len(self._memories) else None
            event = self._events[0] if self._events else None
            if mem is not None and (event is None or mem.updated_at >= event.ts):
                out.append(mem)
                self._mem_pos += 1
            elif event is not None:
                out.append(self._events.popleft())
        return out

    def _load_events(self) -> None:
        assert self._service is not None
        page = self._service.list_events(
            before_position=self._event_cursor, limit=EVENT_PAGE, newest_first=True
        )
        if len(page) < EVENT_PAGE:
            self._events_done = True
        if page:
            self._event_cursor = page[-1].position
        self._events.extend(e for e in page if self._keep_event(e))

    @staticmethod
    def _event_matcher(flt: TimelineFilter) -> Callable[[Event], bool]:
        in_scope = _scope_matcher(flt.scope_text)
        in_dates = _date_matcher(flt)
        needle = flt.text.casefold().strip()

        def keep(e: Event) -> bool:
            if e.kind == EventKind.MEMORY_DECISION:
                return False  # shown as the memory's history instead
            if needle and needle not in e.text.casefold():
                return False
            return in_scope(e) and in_dates(e)

        return keep


def load_all_memories(service: MemoryService) -> tuple[int, list[MemoryRecord]]:
    """Every record, newest change first, with the revision they were read at."""
    revision = service.revision()
    return revision, service.list_memories()


def count_by(records: Iterable[MemoryRecord], now: dt.datetime) -> dict[str, int]:
    """How many records have each effective status."""
    counts: dict[str, int] = {}
    for r in records:
        key = r.effective_status(now)
        counts[key] = counts.get(key, 0) + 1
    return counts
