"""Size limits on input. Oversized input is refused with a clear error, never truncated silently."""

from __future__ import annotations

MAX_EVENT_TEXT = 200_000
MAX_MEMORY_TEXT = 4_000
MAX_SESSION_ID = 200
MAX_SPEAKER = 100
MAX_REASON = 2_000
MAX_DATA_BYTES = 1_000_000
MAX_REFS = 1_000
MAX_BATCH = 10_000  # items of one batch command (one transaction)
