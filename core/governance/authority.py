"""How much a memory is believed (R7): the order the policy and the ranking both use."""

from __future__ import annotations

from core.model.enums import MemoryFlag, TrustLevel
from core.model.records import MemoryRecord


def authority(record: MemoryRecord) -> int:
    """How much a record is believed: user-confirmed counts as the user's own word."""
    if MemoryFlag.USER_CONFIRMED in record.flags:
        return TrustLevel.USER.authority
    return record.source_trust.authority
