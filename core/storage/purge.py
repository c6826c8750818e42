"""The rows a compliance purge rewrites (R19, #10): the repository behind the purge steps.

Which places hold a copy of a memory's content, and in what order they are purged, is the
workflow's list (`core.workflows.copies`); this module only reads and rewrites the rows.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, or_, select, update

from core.model.enums import EventKind
from core.model.sessions import INTERNAL_SESSION_PREFIX
from core.storage import event_log, memories
from core.storage import schema as s
from core.storage.engine import chunks
from core.storage.store import WriteTx


def destroy_revision_contents(conn: Connection, memory_id: str) -> None:
    """Drop the content of every revision of a memory."""
    conn.execute(
        update(s.memory_revisions)
        .where(s.memory_revisions.c.memory_id == memory_id)
        .values(content=None, speaker=None)
    )


def decision_ids(conn: Connection, memory_id: str) -> list[str]:
    """The ids of a memory's own decisions."""
    found: list[Any] = list(
        conn.execute(select(s.decisions.c.id).where(s.decisions.c.memory_id == memory_id)).scalars()
    )
    return [str(d) for d in found]


def sealed_reasons(conn: Connection, memory_ids: list[str]) -> list[tuple[str, Any]]:
    """(decision id, sealed reason) of every decision about the given memories."""
    rows: list[Any] = []
    for part in chunks(memory_ids):
        rows += conn.execute(
            select(s.decisions.c.id, s.decisions.c.reason).where(s.decisions.c.memory_id.in_(part))
        ).all()
    return [(str(did), blob) for did, blob in rows]


def other_memories_sharing_scope(
    conn: Connection, items: tuple[tuple[str, str], ...], memory_id: str
) -> list[str]:
    """The ids of the other memories whose scope shares a key and value with `items`
    (every other memory when `items` is empty)."""
    if not items:
        query = select(s.memories.c.id).where(s.memories.c.id != memory_id)
    else:
        c = s.memory_scopes.c
        shared = or_(*((c.key == key) & (c.value == value) for key, value in items))
        query = select(c.memory_id).where(shared & (c.memory_id != memory_id)).distinct()
    found: list[Any] = list(conn.execute(query).scalars())
    return [str(m) for m in found]


def rewrite_reason(tx: WriteTx, decision_id: str, text: str, key_id: str | None) -> None:
    """Replace a decision's reason with `text`, sealed under `key_id`."""
    tx.conn.execute(
        update(s.decisions)
        .where(s.decisions.c.id == decision_id)
        .values(reason=tx.codec.seal_text(text, memories.reason_aad(decision_id), key_id=key_id))
    )


def snapshot_scopes(conn: Connection) -> list[tuple[str, str]]:
    """(snapshot id, clear request scope) of every snapshot."""
    rows = conn.execute(select(s.snapshots.c.id, s.snapshots.c.scope_json)).all()
    return [(str(sid), str(scope_json)) for sid, scope_json in rows]


def agent_call_scopes(conn: Connection) -> list[tuple[str, str]]:
    """(event id, clear scope) of every `agent_call` audit event."""
    rows = conn.execute(
        select(s.events.c.id, s.events.c.scope_json).where(
            s.events.c.kind == EventKind.AGENT_CALL.value
        )
    ).all()
    return [(str(eid), str(scope_json)) for eid, scope_json in rows]


def conversation_event_scopes(conn: Connection) -> list[tuple[str, str]]:
    """(event id, clear scope) of every event outside Memory Center's own sessions whose
    payload is not redacted yet (messages, tool calls and results, an agent's records)."""
    e, p = s.events.c, s.event_payloads.c
    rows = conn.execute(
        select(e.id, e.scope_json)
        .join(s.event_payloads, p.event_id == e.id)
        .where(~e.session_id.startswith(INTERNAL_SESSION_PREFIX) & p.redacted_at.is_(None))
        .where(e.kind != EventKind.AGENT_CALL.value)
    ).all()
    return [(str(eid), str(scope_json)) for eid, scope_json in rows]


def redact_payload(tx: WriteTx, event_id: str) -> bool:
    """Replace an event's payload with a redaction marker; False when already redacted.

    The marker keeps the ids that say where the event came from (a transcript line's
    `source_id`), never content: importing the same transcript again finds the line
    already present, and it stays redacted (#38)."""
    row = (
        tx.conn.execute(
            select(s.event_payloads.c.event_id.label("id"), s.event_payloads.c.ciphertext).where(
                (s.event_payloads.c.event_id == event_id) & s.event_payloads.c.redacted_at.is_(None)
            )
        )
        .mappings()
        .first()
    )
    if row is None:
        return False
    kept = event_log.redacted_ids(row, tx.codec)
    marker = {"redacted": True, "data": kept} if kept else {"redacted": True}
    sealed = tx.codec.seal_json(marker, event_log.payload_aad(event_id))
    changed = tx.conn.execute(
        update(s.event_payloads)
        .where((s.event_payloads.c.event_id == event_id) & s.event_payloads.c.redacted_at.is_(None))
        .values(ciphertext=sealed, redacted_at=tx.now_iso)
    ).rowcount
    return bool(changed)
