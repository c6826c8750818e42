"""Turn the core's typed results into JSON for `--json` output and the MCP server."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from core import Scope


def to_jsonable(value: Any) -> Any:
    """Recursively convert dataclasses, enums, scopes and datetimes into JSON types."""
    if isinstance(value, Scope):
        return dict(value.items_)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted(to_jsonable(v) for v in value)
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    return _number(value) if isinstance(value, float) else value


def _number(value: float) -> float | str:
    """NaN and Infinity are not JSON: one stored before they were refused is named, as a
    string, so the output stays valid JSON."""
    if math.isfinite(value):
        return value
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def dumps(value: Any) -> str:
    """Pretty JSON with non-ASCII kept readable; always valid JSON (no NaN or Infinity)."""
    return json.dumps(
        to_jsonable(value), ensure_ascii=False, indent=2, sort_keys=True, allow_nan=False
    )
