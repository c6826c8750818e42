"""A memory's past: its decisions, its stored revisions, and the store as it stood (R5, R21).

Revisions and decisions are never rewritten (a purge only empties revision contents), so
the history of a record, and the whole memory at a past store revision, can be read back.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

from sqlalchemy import Connection, select

from core.crypto.codec import Codec
from core.model.clock import from_iso
from core.model.enums import MemoryStatus
from core.model.records import Decision, MemoryRecord
from core.model.scope import Scope
from core.storage import schema as s
from core.storage.memories import PURGED_TEXT, content_aad, load, reason_aad


def history(conn: Connection, codec: Codec, memory_id: str) -> list[Decision]:
    """Every decision about a record, oldest first."""
    # Store revision, then log position: decisions of one transaction keep their order
    # even when they share a timestamp.
    rows = conn.execute(
        select(s.decisions)
        .outerjoin(s.events, s.events.c.id == s.decisions.c.event_id)
        .where(s.decisions.c.memory_id == memory_id)
        .order_by(s.decisions.c.store_revision, s.events.c.position, s.decisions.c.id)
    ).mappings()
    return [
        Decision(
            id=r["id"],
            memory_id=r["memory_id"],
            ts=from_iso(r["ts"]),
            action=r["action"],
            from_status=MemoryStatus(r["from_status"]) if r["from_status"] else None,
            to_status=MemoryStatus(r["to_status"]),
            actor=r["actor"],
            reason=codec.open_text(r["reason"], reason_aad(r["id"])),
            policy_version=r["policy_version"],
            store_revision=r["store_revision"],
            event_id=r["event_id"],
        )
        for r in rows
    ]


def revisions(
    conn: Connection, codec: Codec, memory_id: str
) -> list[tuple[int, dt.datetime, str, Scope, str]]:
    """(revision, ts, actor, scope, content) of every stored revision, oldest first."""
    rows = conn.execute(
        select(s.memory_revisions)
        .where(s.memory_revisions.c.memory_id == memory_id)
        .order_by(s.memory_revisions.c.revision)
    ).mappings()
    out = []
    for r in rows:
        blob = r["content"]
        text = codec.open_text(blob, content_aad(memory_id, r["revision"])) if blob else PURGED_TEXT
        out.append(
            (r["revision"], from_iso(r["ts"]), r["actor"], Scope.from_json(r["scope_json"]), text)
        )
    return out


def state_at(conn: Connection, codec: Codec, revision: int) -> list[MemoryRecord]:
    """Memory as it stood at a past store revision, rebuilt from history and decisions (R21).

    Status comes from the last decision at or before `revision`; content and scope from the
    last stored revision at or before it. Purged content stays purged.
    """
    decided: dict[str, str] = {}
    for mid, status in conn.execute(
        select(s.decisions.c.memory_id, s.decisions.c.to_status)
        .outerjoin(s.events, s.events.c.id == s.decisions.c.event_id)
        .where(s.decisions.c.store_revision <= revision)
        .order_by(s.decisions.c.store_revision, s.events.c.position, s.decisions.c.id)
    ).all():
        decided[str(mid)] = str(status)
    out = []
    for record in load(conn, codec, list(decided)):
        row = (
            conn.execute(
                select(s.memory_revisions)
                .where(
                    (s.memory_revisions.c.memory_id == record.id)
                    & (s.memory_revisions.c.store_revision <= revision)
                )
                .order_by(s.memory_revisions.c.revision.desc())
                .limit(1)
            )
            .mappings()
            .first()
        )
        if row is None:
            continue
        blob = row["content"]
        content = (
            codec.open_text(blob, content_aad(record.id, row["revision"])) if blob else PURGED_TEXT
        )
        out.append(
            replace(
                record,
                status=MemoryStatus(decided[record.id]),
                content=content,
                scope=Scope.from_json(row["scope_json"]),
                revision=int(row["revision"]),
            )
        )
    return out
