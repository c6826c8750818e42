"""Encryption at rest: the codec and the key stores (R24)."""
