"""Small JSON settings kept in the store (policy overrides, chosen embedder)."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, delete, select, update

from core.crypto.codec import Codec
from core.errors import DamagedRowError
from core.model.enums import ChangeKind
from core.storage import binding
from core.storage import schema as s
from core.storage.store import WriteTx


def read(conn: Connection, key: str, codec: Codec | None = None) -> Any:
    """The stored value, or None.

    Raises:
        DamagedRowError: with a codec, when the settings do not match their binding.
    """
    if codec is not None:
        wrong = binding.settings_problem(conn, codec)
        if wrong is not None:
            raise DamagedRowError("value_json", wrong)
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
    binding.bind_settings(tx.conn, tx.codec)
    tx.touch(ChangeKind.SETTINGS)


def write_many(tx: WriteTx, values: dict[str, Any]) -> None:
    """Insert or replace several values, binding the settings table once (a batch)."""
    if not values:
        return
    encoded = {key: json.dumps(value, sort_keys=True) for key, value in values.items()}
    present: set[str] = set(
        tx.conn.execute(
            select(s.settings.c.key).where(s.settings.c.key.in_(list(encoded)))
        ).scalars()
    )
    for key in present:
        tx.conn.execute(
            update(s.settings).where(s.settings.c.key == key).values(value_json=encoded[key])
        )
    fresh = [{"key": k, "value_json": v} for k, v in encoded.items() if k not in present]
    if fresh:
        tx.conn.execute(s.settings.insert(), fresh)
    binding.bind_settings(tx.conn, tx.codec)
    tx.touch(ChangeKind.SETTINGS)


def remove(tx: WriteTx, key: str) -> None:
    """Delete a value (if present) and keep the settings binding true."""
    gone = tx.conn.execute(delete(s.settings).where(s.settings.c.key == key)).rowcount
    if gone:
        binding.bind_settings(tx.conn, tx.codec)
        tx.touch(ChangeKind.SETTINGS)
