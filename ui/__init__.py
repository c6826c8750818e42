"""The desktop memory center (PySide6). Talks to `core` only through its public API."""
