"""The event log's tamper evidence (R3)."""
