"""Qt item models over the core service."""
