"""What the memory detail panel shows, read in one background call."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from core import (
    AdoptionChain,
    MemoryFilter,
    MemoryRecord,
    MemoryService,
    Scope,
    is_internal_session,
)

from ui.views.usage_trace import Use, load_uses

Revision = tuple[int, dt.datetime, str, Scope, str]


@dataclass(frozen=True)
class DetailData:
    """A memory with its adoption chain, revisions, conflict partners and known sessions."""

    record: MemoryRecord
    chain: AdoptionChain
    revisions: list[Revision]
    conflict_members: list[MemoryRecord]
    sessions: list[str]
    uses: list[Use] = field(default_factory=list)


def load_detail(service: MemoryService, memory_id: str) -> DetailData:
    """Read everything the panel shows about one memory."""
    record = service.memories.get_memory(memory_id)
    chain = service.memories.adoption_chain(memory_id)
    revisions = service.memories.revisions(memory_id)
    members: list[MemoryRecord] = []
    if record.conflict_set:
        candidates = service.memories.list_memories(
            MemoryFilter(statuses=("active", "candidate"), limit=1_000_000)
        )
        members = [m for m in candidates if m.conflict_set == record.conflict_set]
    sessions = [
        s.id for s in service.events.list_sessions(limit=200) if not is_internal_session(s.id)
    ]
    uses = load_uses(service, record.id, chain.injections)
    return DetailData(record, chain, revisions, members, sessions, uses)
