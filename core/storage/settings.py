"""Small JSON settings kept in the store (policy overrides, chosen embedder)."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, select, update

from core.model.enums import ChangeKind
from core.storage import schema as s
from core.storage.store import WriteTx


def read(conn: Connection, key: str) -> Any:
    """The stored value, or None."""
    raw = conn.execute(
        select(s.settings.c.value_json).where(s.settings.c.key == key)
    ).scalar_one_or_none()
    return json.loads(raw) if raw is not None else None


def write(tx: WriteTx, key: str, value: Any) -> None:
    """Insert or replace a value."""
    encoded = json.dumps(value, sort_keys=True)
    changed = tx.conn.execute(
        update(s.settings).where(s.settings.c.key == key).values(value_json=encoded)
    ).rowcount
    if not changed:
        tx.conn.execute(s.settings.insert().values(key=key, value_json=encoded))
    tx.touch(ChangeKind.SETTINGS)
