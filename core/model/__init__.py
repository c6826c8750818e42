"""Plain data of the store: enums, scopes, records. No I/O here."""

from core.model.clock import Clock, ManualClock, SystemClock
from core.model.enums import (
    Actor,
    ChangeKind,
    EventKind,
    EventSource,
    MemoryKind,
    MemoryStatus,
    Sensitivity,
    TrustLevel,
)
from core.model.records import (
    ChangeEntry,
    Changes,
    Decision,
    Event,
    KeyInfo,
    MemoryRecord,
    NewEvent,
    Result,
    RotationReport,
    SessionInfo,
    StoreStatus,
    VerifyFailure,
    VerifyReport,
)
from core.model.scope import SCOPE_KEYS, Scope

__all__ = [
    "SCOPE_KEYS",
    "Actor",
    "ChangeEntry",
    "ChangeKind",
    "Changes",
    "Clock",
    "Decision",
    "Event",
    "EventKind",
    "EventSource",
    "KeyInfo",
    "ManualClock",
    "MemoryKind",
    "MemoryRecord",
    "MemoryStatus",
    "NewEvent",
    "Result",
    "RotationReport",
    "Scope",
    "Sensitivity",
    "SessionInfo",
    "StoreStatus",
    "SystemClock",
    "TrustLevel",
    "VerifyFailure",
    "VerifyReport",
]
