"""`MemoryFilter(in_conflict_set=True)` lists exactly the records in a conflict set, in SQL
(#43: the review badge read and decrypted every active memory of the store to find them)."""

from __future__ import annotations

from app.demo import seed_demo_if_empty
from core import MemoryFilter, MemoryService, MemoryStatus

ALL = 1_000_000


def test_only_and_all_the_records_in_a_conflict_set(service: MemoryService) -> None:
    seed_demo_if_empty(service)
    statuses = tuple(MemoryStatus)
    every = service.memories.list_memories(MemoryFilter(statuses=statuses, limit=ALL))
    in_sets = service.memories.list_memories(
        MemoryFilter(statuses=statuses, in_conflict_set=True, limit=ALL)
    )
    expected = [r.id for r in every if r.conflict_set]
    assert expected, "the demo store has conflict sets"
    assert [r.id for r in in_sets] == expected  # the same records, newest first
    active = service.memories.list_memories(
        MemoryFilter(statuses=(MemoryStatus.ACTIVE,), in_conflict_set=True, limit=ALL)
    )
    assert {r.id for r in active} == {
        r.id for r in every if r.conflict_set and r.status == MemoryStatus.ACTIVE
    }
