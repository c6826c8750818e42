"""The data behind the timeline: which memories a filter admits, merged with events by time.

Pure Python (no Qt), so it runs on the reader pool and is tested without widgets.

How a filter is answered, cheapest first:

* Metadata only (status, kind, trust, dates): the core filters and pages in SQL
  (`list_memories` with LIMIT/OFFSET decrypts one page) and `count_memories` gives the count.
* The statuses `active`/`candidate`/`expired` depend on `expires_at` at read time, and a scope
  filter matches by containment; neither is a SQL filter of the core yet. Those filters read
  every record the SQL part admits (decrypted once per store revision and cached), then
  filter here. Correct, and fast again on the next keystroke.
* Text search matches the same cached records once the warm-up has read them all; before
  that it is the core's `MemoryFilter(text=...)`, answered from the core's sealed text index
  (only new or changed rows and the matches are decrypted). With a `key=value` scope the
  user may ask for ranked hybrid search (`search_memory`) instead.

After the first page is shown the view warms the cache with every record in the background,
so the first search or scope filter does not wait for the decryption either.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from core import (
    Event,
    EventKind,
    MemoryCenterError,
    MemoryFilter,
    MemoryRecord,
    MemoryService,
    MemoryStatus,
    NotFoundError,
    Scope,
    SearchHit,
)

EVENT_PAGE = 500
ALL = 1_000_000
RANKED_LIMIT = 100
EXPIRABLE = frozenset({MemoryStatus.ACTIVE, MemoryStatus.CANDIDATE})
Item = MemoryRecord | Event
EVERYTHING = MemoryFilter(limit=ALL)


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
        ranked: with `text` and a `key=value` scope, show ranked `search_memory` hits.
    """

    statuses: frozenset[str] = field(default_factory=frozenset)
    kinds: frozenset[str] = field(default_factory=frozenset)
    trusts: frozenset[str] = field(default_factory=frozenset)
    scope_text: str = ""
    text: str = ""
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    show_events: bool = False
    ranked: bool = False


def item_time(item: Item) -> dt.datetime:
    """The instant an item sorts by: a memory's last change, an event's time."""
    return item.updated_at if isinstance(item, MemoryRecord) else item.ts


def scope_pairs(scope_text: str) -> dict[str, str] | None:
    """The scope box as `{key: value}` when every word is `key=value`, else None."""
    words = scope_text.split()
    if not words or any("=" not in w for w in words):
        return None
    clean: dict[str, str] = {}
    for word in words:
        key, _, value = word.partition("=")
        clean[key.strip()] = value.strip()
    return clean if all(clean) and all(clean.values()) else None


def sql_scope(scope_text: str) -> Scope | None:
    """The scope box as a Scope the core can filter on in SQL, or None (free text, bad keys)."""
    pairs = scope_pairs(scope_text)
    if pairs is None:
        return None
    try:
        return Scope.of(pairs)
    except MemoryCenterError:
        return None


def ranked_possible(flt: TimelineFilter) -> bool:
    """True when ranked search can answer: search text and a `key=value` scope."""
    return bool(flt.text.strip()) and scope_pairs(flt.scope_text) is not None


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


def _local_midnight(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time()).astimezone()


def sql_filter(flt: TimelineFilter, *, limit: int = ALL) -> MemoryFilter:
    """The part of a timeline filter the core runs in SQL (text included when set).

    `expired` is no stored status: it widens to the stored statuses that can expire.
    """
    # Effective statuses (expiry judged at the store clock's now) run in SQL too.
    effective = needs_effective_status(flt)
    return MemoryFilter(
        scope_contains=sql_scope(flt.scope_text),
        effective_statuses=tuple(sorted(flt.statuses)) if effective else (),
        statuses=() if effective else tuple(sorted(flt.statuses)),
        kinds=tuple(sorted(flt.kinds)),
        source_trust=tuple(sorted(flt.trusts)),
        text=flt.text.strip() or None,
        updated_from=_local_midnight(flt.date_from) if flt.date_from else None,
        updated_to=(_local_midnight(flt.date_to + dt.timedelta(days=1)) if flt.date_to else None),
        limit=limit,
    )


def needs_effective_status(flt: TimelineFilter) -> bool:
    """True when the status filter depends on expiry (computed at read time)."""
    return bool(flt.statuses & (EXPIRABLE | {"expired"}))


def local_matcher(flt: TimelineFilter, now: dt.datetime) -> Callable[[MemoryRecord], bool]:
    """What SQL cannot check: effective status, scope containment, dates, text, kind, trust.

    Checking again what SQL already checked is cheap and keeps every path equally correct.
    """
    in_scope = _scope_matcher(flt.scope_text)
    low = flt.date_from or dt.date.min
    high = flt.date_to or dt.date.max
    dated = flt.date_from is not None or flt.date_to is not None
    needle = flt.text.casefold().strip()

    def keep(r: MemoryRecord) -> bool:
        if flt.kinds and r.kind.value not in flt.kinds:
            return False
        if flt.trusts and r.source_trust.value not in flt.trusts:
            return False
        if flt.statuses and r.effective_status(now) not in flt.statuses:
            return False
        if needle and needle not in r.spoken().casefold():
            return False
        if dated and not low <= r.updated_at.astimezone().date() <= high:
            return False
        return in_scope(r)

    return keep


def filter_memories(
    records: Sequence[MemoryRecord], flt: TimelineFilter, now: dt.datetime
) -> list[MemoryRecord]:
    """The records the filter admits, in the given (newest first) order."""
    keep = local_matcher(flt, now)
    return [r for r in records if keep(r)]


# --- where memories come from ----------------------------------------------------------


class MemorySource:
    """Memories newest first, handed out page by page."""

    count: int = 0
    ranked: bool = False

    def next_page(self, size: int) -> list[MemoryRecord]:  # pragma: no cover - interface
        """Up to `size` more records; an empty list only when exhausted."""
        raise NotImplementedError

    def exhausted(self) -> bool:  # pragma: no cover - interface
        """True when every record has been handed out."""
        raise NotImplementedError


class ListedMemories(MemorySource):
    """A list already read and filtered."""

    def __init__(self, records: Sequence[MemoryRecord], *, ranked: bool = False) -> None:
        self._records = list(records)
        self._pos = 0
        self.count = len(self._records)
        self.ranked = ranked

    def next_page(self, size: int) -> list[MemoryRecord]:
        page = self._records[self._pos : self._pos + size]
        self._pos += len(page)
        return page

    def exhausted(self) -> bool:
        return self._pos >= len(self._records)


class PagedMemories(MemorySource):
    """Pages read on demand with LIMIT/OFFSET in SQL: only the shown page is decrypted."""

    def __init__(self, service: MemoryService, flt: MemoryFilter, count: int) -> None:
        self._service = service
        self._flt = flt
        self._offset = 0
        self._after: tuple[dt.datetime, str] | None = None
        self._done = count == 0
        self.count = count

    def next_page(self, size: int) -> list[MemoryRecord]:
        if self._done:
            return []
        # Keyset paging (after the last record shown) stays fast deep into a large store.
        page = self._service.memories.list_memories(
            replace(self._flt, limit=size, after=self._after)
        )
        if page:
            self._after = (page[-1].updated_at, page[-1].id)
        self._offset += len(page)
        if len(page) < size or self._offset >= self.count:
            self._done = True
        return page

    def exhausted(self) -> bool:
        return self._done


class ScanCache:
    """Decrypted records kept for local filtering while the store revision holds.

    Holds either every record (after `warm`) or the last narrower read. Typing in the search
    or scope box then filters these in memory instead of decrypting again.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: tuple[int, MemoryFilter] | None = None
        self._records: list[MemoryRecord] = []

    def records(self, service: MemoryService, flt: MemoryFilter) -> list[MemoryRecord]:
        """A superset (in store order) of the records `flt` admits; filter them locally."""
        revision = service.events.revision()
        with self._lock:
            if self._key in ((revision, flt), (revision, EVERYTHING)):
                return self._records
        records = service.memories.list_memories(flt)
        with self._lock:
            self._key, self._records = (revision, flt), records
        return records

    def holds_everything(self, service: MemoryService) -> bool:
        """True when every record of the store's current revision is cached."""
        revision = service.events.revision()
        with self._lock:
            return self._key == (revision, EVERYTHING)

    @property
    def warmed(self) -> bool:
        """True when every record of some revision is cached."""
        with self._lock:
            return self._key is not None and self._key[1] == EVERYTHING

    def warm(self, service: MemoryService) -> bool:
        """Read every record unless already cached for this revision; True if it read.

        The core's text index is brought up to date first (cheap once its file exists), so
        a search typed while the records are still being read is answered from it."""
        revision = service.events.revision()
        with self._lock:
            if self._key == (revision, EVERYTHING):
                return False
        service.index.prepare_text_search()
        records = service.memories.list_memories(EVERYTHING)
        with self._lock:
            self._key, self._records = (revision, EVERYTHING), records
        return True


def ranked_hits(
    service: MemoryService, flt: TimelineFilter
) -> list[tuple[SearchHit, MemoryRecord]]:
    """`search_memory` hits for the scope box's scope, with their records, best first."""
    pairs = scope_pairs(flt.scope_text)
    assert pairs is not None
    hits = service.retrieval.search_memory(Scope.of(pairs), flt.text.strip(), limit=RANKED_LIMIT)
    out = []
    for hit in hits:
        try:
            out.append((hit, service.memories.get_memory(hit.memory_id)))
        except NotFoundError:  # deleted between the search and the read
            continue
    return out


def open_source(
    service: MemoryService, flt: TimelineFilter, now: dt.datetime, cache: ScanCache
) -> MemorySource:
    """The cheapest source that answers `flt` exactly (see the module docstring)."""
    if flt.ranked and ranked_possible(flt):
        keep = local_matcher(replace(flt, text="", scope_text="", statuses=frozenset()), now)
        try:
            hits = ranked_hits(service, flt)
        except MemoryCenterError:
            pass  # not a valid scope for the core: plain text search below
        else:
            return ListedMemories([r for _, r in hits if keep(r)], ranked=True)
    free_scope = bool(flt.scope_text.strip()) and sql_scope(flt.scope_text) is None
    if flt.text.strip() or free_scope:
        # Once every record is cached (the background warm-up), `records` returns them all
        # and typing filters them here. Before that the text goes to the core, whose sealed
        # text index decrypts only the matches; free scope words filter here either way.
        records = cache.records(service, sql_filter(flt))
        return ListedMemories(filter_memories(records, flt, now))
    mflt = sql_filter(flt)
    return PagedMemories(service, mflt, service.memories.count_memories(mflt))


class TimelineStream:
    """Yields filtered memories merged with (optionally) log events, newest first.

    Not thread-safe: the model asks for one page at a time.
    """

    def __init__(
        self,
        memories: MemorySource | Sequence[MemoryRecord],
        flt: TimelineFilter,
        service: MemoryService | None = None,
    ) -> None:
        self._source = memories if isinstance(memories, MemorySource) else ListedMemories(memories)
        self._buffer: deque[MemoryRecord] = deque()
        self._flt = flt
        ranked = self._source.ranked
        self._service = service if flt.show_events and not ranked else None
        self._events: deque[Event] = deque()
        self._event_cursor: int | None = None
        self._events_done = self._service is None
        self._keep_event = self._event_matcher(flt)

    @property
    def memory_count(self) -> int:
        """How many memories the filter admitted."""
        return self._source.count

    @property
    def ranked(self) -> bool:
        """True for ranked search results (relevance order, no day grouping)."""
        return self._source.ranked

    def exhausted(self) -> bool:
        """True when every item has been handed out."""
        return (
            not self._buffer and self._source.exhausted() and self._events_done and not self._events
        )

    def next_page(self, size: int) -> list[Item]:
        """The next `size` items (fewer at the end); reads from the store as needed."""
        out: list[Item] = []
        while len(out) < size and not self.exhausted():
            if not self._buffer and not self._source.exhausted():
                self._buffer.extend(self._source.next_page(size))
                continue
            if not self._events and not self._events_done:
                self._load_events()
                continue
            mem = self._buffer[0] if self._buffer else None
            event = self._events[0] if self._events else None
            if mem is not None and (event is None or mem.updated_at >= event.ts):
                out.append(self._buffer.popleft())
            elif event is not None:
                out.append(self._events.popleft())
        return out

    def _load_events(self) -> None:
        assert self._service is not None
        page = self._service.events.list_events(
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
        low = flt.date_from or dt.date.min
        high = flt.date_to or dt.date.max
        needle = flt.text.casefold().strip()

        def keep(e: Event) -> bool:
            if e.kind == EventKind.MEMORY_DECISION:
                return False  # shown as the memory's history instead
            if needle and needle not in e.text.casefold():
                return False
            if not low <= e.ts.astimezone().date() <= high:
                return False
            return in_scope(e)

        return keep


def count_by(records: Iterable[MemoryRecord], now: dt.datetime) -> dict[str, int]:
    """How many records have each effective status."""
    counts: dict[str, int] = {}
    for r in records:
        key = r.effective_status(now)
        counts[key] = counts.get(key, 0) + 1
    return counts
