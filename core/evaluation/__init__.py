"""Evaluation of memory (R29): scoring replayed sessions; above the service, over its public API."""
