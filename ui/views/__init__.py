"""The main views of the memory center (one per navigation entry, plus the detail panel)."""
