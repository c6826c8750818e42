"""A `MemoryRecord` built in memory, for tests of pure functions (ranking, policy rules)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from core.model.enums import MemoryKind, MemoryStatus, Sensitivity, TrustLevel
from core.model.records import MemoryRecord
from core.model.scope import Scope

AT = dt.datetime(2023, 5, 8, tzinfo=dt.UTC)


def make_record(memory_id: str = "mem_1", **fields: Any) -> MemoryRecord:
    """An active user-confirmed fact in scope user=u; `fields` override any attribute."""
    base = MemoryRecord(
        id=memory_id,
        kind=MemoryKind.FACT,
        content="I went hiking.",
        scope=Scope.of({"user": "u"}),
        source_event_ids=(),
        confidence=0.7,
        status=MemoryStatus.ACTIVE,
        created_at=AT,
        updated_at=AT,
        valid_from=AT,
        expires_at=None,
        supersedes=None,
        sensitivity=Sensitivity.NONE,
        owner="u",
        revision=1,
        source_trust=TrustLevel.USER,
    )
    return dataclasses.replace(base, **fields)
