"""Tombstones and the rows of deletion fences (R19): the repository the deletion workflow uses.

A tombstone's reason and report are sealed; scope, time and requester stay clear (they decide
visibility and are shown in lists).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from sqlalchemy import Connection, select, update

from core.crypto.codec import Codec
from core.errors import NotFoundError
from core.model.clock import from_iso
from core.model.memory import Tombstone
from core.model.scope import Scope
from core.storage import governed
from core.storage import schema as s
from core.storage.codec_aads import tombstone_aad
from core.storage.store import WriteTx


def row(conn: Connection, memory_id: str) -> dict[str, Any] | None:
    """The clear and sealed columns of a memory's tombstone, or None when it has none."""
    found = (
        conn.execute(select(s.tombstones).where(s.tombstones.c.memory_id == memory_id))
        .mappings()
        .first()
    )
    return dict(found) if found else None


def write(tx: WriteTx, stone: Tombstone, *, replace_existing: bool) -> None:
    """Write (or, for a purge of an already deleted memory, rewrite) a tombstone."""
    key = tx.key_for(stone.scope.get("user"), strict=False)
    governed.note(tx, governed.TOMBSTONES, stone.memory_id)
    values = {
        "scope_json": stone.scope.to_json(),
        "deleted_at": stone.deleted_at.isoformat(timespec="microseconds"),
        "requested_by": stone.requested_by,
        "reason": tx.codec.seal_text(
            stone.reason, tombstone_aad(stone.memory_id, "reason"), key_id=key
        ),
        "source_event_ids": json.dumps(list(stone.source_event_ids)),
        "purged": stone.purged,
        "cleaned_json": json.dumps(list(stone.cleaned)),
        "report": tx.codec.seal_json(
            list(stone.report), tombstone_aad(stone.memory_id, "report"), key_id=key
        ),
    }
    if replace_existing:
        tx.conn.execute(
            update(s.tombstones).where(s.tombstones.c.memory_id == stone.memory_id).values(values)
        )
    else:
        tx.conn.execute(s.tombstones.insert().values(memory_id=stone.memory_id, **values))


def purged_among(conn: Connection, memory_ids: Collection[str]) -> dict[str, str]:
    """Which of `memory_ids` were purged, with the time each was deleted (stored form)."""
    if not memory_ids:
        return {}
    rows = conn.execute(
        select(s.tombstones.c.memory_id, s.tombstones.c.deleted_at).where(
            s.tombstones.c.memory_id.in_(sorted(memory_ids)), s.tombstones.c.purged.is_(True)
        )
    )
    return {str(mid): str(deleted_at) for mid, deleted_at in rows}


def read(conn: Connection, codec: Codec, memory_id: str) -> Tombstone:
    """The tombstone of a deleted memory. Raises NotFoundError."""
    found = row(conn, memory_id)
    if found is None:
        raise NotFoundError("tombstone", memory_id)
    return Tombstone(
        memory_id=memory_id,
        scope=Scope.from_json(found["scope_json"]),
        deleted_at=from_iso(found["deleted_at"]),
        requested_by=found["requested_by"],
        reason=codec.open_text(found["reason"], tombstone_aad(memory_id, "reason")),
        source_event_ids=tuple(json.loads(found["source_event_ids"])),
        purged=bool(found["purged"]),
        cleaned=tuple(json.loads(found["cleaned_json"])),
        report=tuple(codec.open_json(found["report"], tombstone_aad(memory_id, "report"))),
    )


def stand_fence(tx: WriteTx, fingerprint: str, memory_id: str) -> None:
    """Fence a content fingerprint for `memory_id`; a lifted fence of the same content (the
    same text deleted again) stands again."""
    tx.fences_changed()
    governed.note(tx, governed.FENCES, fingerprint)
    have = tx.conn.execute(
        select(s.deletion_fences.c.fingerprint).where(
            s.deletion_fences.c.fingerprint == fingerprint
        )
    ).first()
    if have is None:
        tx.conn.execute(
            s.deletion_fences.insert().values(
                fingerprint=fingerprint, memory_id=memory_id, created_at=tx.now_iso
            )
        )
    else:
        tx.conn.execute(
            update(s.deletion_fences)
            .where(s.deletion_fences.c.fingerprint == fingerprint)
            .values(memory_id=memory_id, created_at=tx.now_iso, lifted_at=None)
        )
