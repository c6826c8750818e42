"""Third-party modules imported on first use, not when the engine is imported.

numpy and hnswlib take a large share of the engine's import time, and most commands of a
short-lived process (`status`, `verify`, `event add`, `memory list`) never touch a vector.
Modules that need them import `np` / `hnswlib` from here at run time (and the real modules
for type checking); the first attribute read imports the real module.
"""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """Stands for a module until its first attribute is read."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        # import_module is a dictionary look-up once the module is loaded, and takes the
        # import lock while it loads, so two threads never see half a module.
        return getattr(importlib.import_module(self._name), attribute)


np = LazyModule("numpy")
hnswlib = LazyModule("hnswlib")
