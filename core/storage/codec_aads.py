"""AADs of sealed columns that several modules write."""

from __future__ import annotations

from core.crypto.codec import Aad


def tombstone_aad(memory_id: str, field: str) -> Aad:
    """Where a tombstone's reason or report ciphertext belongs."""
    return Aad("tombstones", memory_id, field)
