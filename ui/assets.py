"""The shipped files the window needs before the engine is loaded (icons, style, translations).

The same look-up as `core.resources` (importlib.resources over the `resources` package, never
a path relative to a source file), repeated here on purpose: importing anything from `core`
loads the whole engine, and the window must appear before that (`app/launch.py`).
"""

from __future__ import annotations

import importlib.resources
from functools import cache
from pathlib import Path

PACKAGE = "resources"


@cache
def asset_root() -> Path:
    """The directory of the `resources` package (on disk in every install we make)."""
    return Path(str(importlib.resources.files(PACKAGE)))


def asset(*parts: str) -> Path | None:
    """A shipped file or folder, or None for a name that is not a plain file name."""
    if not parts or any(not p or p in (".", "..") or "/" in p or "\\" in p for p in parts):
        return None
    return asset_root().joinpath(*parts)
