"""Core result types the UI uses that `core/__init__` does not re-export yet.

They live in `core.model` (plain data, allowed for the UI by the import contracts).
"""

from core.model.memory import (
    AdoptionChain,
    InjectResult,
    MemoryFilter,
    QuarantineReport,
    Replay,
    ReplayItem,
    SearchHit,
    Snapshot,
    Tombstone,
)

__all__ = [
    "AdoptionChain",
    "InjectResult",
    "MemoryFilter",
    "QuarantineReport",
    "Replay",
    "ReplayItem",
    "SearchHit",
    "Snapshot",
    "Tombstone",
]
