"""Keyed MACs that bind a memory's clear metadata to the record (#10, R24).

Scope, status, kind, trust, flags, expiry, conflict set and supersede links stay in clear
columns so SQL can filter on them; someone with write access to the file could otherwise
move Bob's memory into Alice's scope or lift a quarantine with one UPDATE. Every write of a
memory row recomputes `memories.binding` over the fields below; every read that decides
visibility recomputes it and treats a mismatch as damage (the row is skipped and reported).

The MAC key is derived from the key set's fingerprint key, which data-key rotation keeps,
so rotation never has to re-MAC. What this does and does not stop is written down in
ARCHITECTURE.md ("Metadata bound to the record").
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection, select, update

from core.crypto.codec import Codec
from core.storage import schema as s
from core.storage.meta import set_meta

# The fields that decide visibility and authority. `updated_at` and `index_refs_json` are
# left out on purpose: they order and cache, they do not decide who sees what.
BOUND_FIELDS: tuple[str, ...] = (
    "id",
    "kind",
    "scope_json",
    "status",
    "confidence",
    "created_at",
    "valid_from",
    "expires_at",
    "supersedes",
    "superseded_by",
    "sensitivity",
    "owner",
    "revision",
    "source_trust",
    "flags_json",
    "conflict_set",
    "fingerprint",
)
BINDING_COLUMN = "binding"
UNBOUND = "the record's metadata binding is missing"
MISMATCH = (
    "the record's clear metadata (scope, status, kind, trust, flags, expiry, links) "
    "does not match its binding: changed outside Memory Center"
)


def message(row: Mapping[Any, Any]) -> bytes:
    """The canonical bytes the MAC covers: the table name, then each bound field's value.

    `repr` of str, int, float and None is unambiguous (strings are quoted and escaped), and
    half the cost of JSON on the catalog's load path.
    """
    values = "\x1e".join(repr(row[name]) for name in BOUND_FIELDS)
    return b"memories\x1f" + values.encode("utf-8", "surrogatepass")


def compute(codec: Codec, row: Mapping[Any, Any]) -> str:
    """The binding of a memory row as stored."""
    return codec.mac(message(row))


def problem(codec: Codec, row: Mapping[Any, Any]) -> str | None:
    """None when the row's binding verifies, else what is wrong (one line)."""
    stored = row.get(BINDING_COLUMN)
    if stored is None:
        return UNBOUND
    if not codec.mac_ok(message(row), str(stored)):
        return MISMATCH
    return None


def rebind(conn: Connection, codec: Codec, memory_id: str) -> None:
    """Recompute and store the binding of one row (after any write to it)."""
    columns = [s.memories.c[name] for name in BOUND_FIELDS]
    row = conn.execute(select(*columns).where(s.memories.c.id == memory_id)).mappings().first()
    if row is None:
        return
    conn.execute(
        update(s.memories)
        .where(s.memories.c.id == memory_id)
        .values({BINDING_COLUMN: compute(codec, row)})
    )


def bind_unbound(conn: Connection, codec: Codec) -> int:
    """Bind every row without a binding (once, when a store is upgraded); return how many."""
    found: list[Any] = list(
        conn.execute(
            select(s.memories.c.id).where(s.memories.c[BINDING_COLUMN].is_(None))
        ).scalars()
    )
    ids = [str(mid) for mid in found]
    for memory_id in ids:
        rebind(conn, codec, memory_id)
    return len(ids)


SETTINGS_META = "settings_binding"
SETTINGS_MISMATCH = (
    "the stored settings (policy, embedder) do not match their binding: changed outside "
    "Memory Center; the defaults are used until they are saved again"
)


def settings_message(conn: Connection) -> bytes:
    """Canonical bytes of every settings row, in key order."""
    rows = conn.execute(
        select(s.settings.c.key, s.settings.c.value_json).order_by(s.settings.c.key)
    ).all()
    return b"settings\x1f" + json.dumps([[str(k), str(v)] for k, v in rows]).encode("utf-8")


def bind_settings(conn: Connection, codec: Codec) -> None:
    """Recompute the one MAC over the settings table (after any settings write)."""
    set_meta(conn, SETTINGS_META, codec.mac(settings_message(conn)))


def settings_problem(conn: Connection, codec: Codec) -> str | None:
    """None when the settings table matches its MAC (or is empty and unbound)."""
    stored = conn.execute(
        select(s.store_meta.c.value).where(s.store_meta.c.key == SETTINGS_META)
    ).scalar_one_or_none()
    if stored is None:
        empty = conn.execute(select(s.settings.c.key).limit(1)).first() is None
        return None if empty else SETTINGS_MISMATCH
    return None if codec.mac_ok(settings_message(conn), str(stored)) else SETTINGS_MISMATCH
