"""Active records by id, decrypted and binding-checked when retrieval first needs them.

The catalog holds one `RecordCache`; the context windows (context.py) read records through
it. It knows nothing of the catalog, so both can depend on it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping

from core.model.records import MemoryRecord
from core.model.scope import Scope

# Records kept decrypted at most (about 1-2 KB each); retrieval loads what it ranks.
CACHED_RECORDS = 50_000
LOAD_BATCH = 900


class RecordCache(Mapping[str, MemoryRecord]):
    """Active records by id, decrypted and binding-checked on first use.

    Membership and length are those of the active set (from the clear columns); `get` and
    `ensure` read the records themselves, in one batch where the caller knows the ids.
    """

    def __init__(
        self, active: dict[str, Scope], load: Callable[[list[str]], list[MemoryRecord]]
    ) -> None:
        self._active = active
        self._load = load
        self._cached: dict[str, MemoryRecord] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._active)

    def __contains__(self, memory_id: object) -> bool:
        return memory_id in self._active

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._active))

    def _fetch(self, memory_id: str) -> MemoryRecord | None:
        """The verified record, or None (not active, or damaged)."""
        if memory_id not in self._active:
            return None
        with self._lock:
            found = self._cached.get(memory_id)
        if found is not None:
            return found
        self.ensure([memory_id])
        with self._lock:
            return self._cached.get(memory_id)

    def __getitem__(self, memory_id: str) -> MemoryRecord:
        # `get` (from Mapping) comes here: a record not active or damaged is "missing".
        found = self._fetch(memory_id)
        if found is None:
            raise KeyError(memory_id)
        return found

    def ensure(self, memory_ids: Iterable[str]) -> None:
        """Read the active records among these that are not cached yet, in batches."""
        with self._lock:
            missing = [m for m in dict.fromkeys(memory_ids) if m in self._active]
            missing = [m for m in missing if m not in self._cached]
        for start in range(0, len(missing), LOAD_BATCH):
            for record in self._load(missing[start : start + LOAD_BATCH]):
                self.put(record)

    def put(self, record: MemoryRecord) -> None:
        """Cache a record just read (the oldest cached ones make room)."""
        with self._lock:
            self._cached.pop(record.id, None)
            self._cached[record.id] = record
            while len(self._cached) > CACHED_RECORDS:
                del self._cached[next(iter(self._cached))]

    def discard(self, memory_id: str) -> MemoryRecord | None:
        """Forget a cached record (changed or gone)."""
        with self._lock:
            return self._cached.pop(memory_id, None)

    def clear(self) -> None:
        """Forget every cached record."""
        with self._lock:
            self._cached.clear()

    @property
    def cached(self) -> int:
        """How many records are held decrypted."""
        return len(self._cached)
