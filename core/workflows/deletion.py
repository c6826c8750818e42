"""Delete with a tombstone and lineage purge (R19, R20).

`delete` removes a memory from every derived store in the same operation: the keyword index
and the injection cache (the catalog) now, the vector index when one is built; and it fences
the content so extraction cannot bring it back. `purge` also destroys the content: every
revision, decision reasons, the injected text inside snapshots (replaced by "memory <id>
existed; deleted at T"), and optionally the source events' payloads (the chain still
verifies through the payload commitments). SQLite is then checkpointed so the WAL keeps no
old page images; secure_delete zeroes freed pages.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import select, update

from core.errors import InvalidStateError, MemoryCenterError, NotFoundError
from core.governance.fences import Embed, features
from core.governance.policy import VERSION
from core.governance.text import fingerprint
from core.model import limits
from core.model.clock import from_iso
from core.model.enums import ChangeKind, EventKind, MemoryStatus
from core.model.memory import Tombstone
from core.model.records import MemoryRecord
from core.model.scope import Scope
from core.model.validate import text
from core.retrieval import render
from core.storage import event_log, fences, memories, snapshots
from core.storage import schema as s
from core.storage.codec_aads import tombstone_aad
from core.storage.memories import GOVERNANCE_SESSION
from core.storage.store import WriteTx

PURGED_REASON = "[redacted by compliance purge]"


def placeholder(memory_id: str, deleted_at: str) -> str:
    """What stays of purged content in snapshots and history."""
    return f"[memory {memory_id} existed; deleted at {deleted_at}]"


def delete(
    tx: WriteTx,
    record: MemoryRecord,
    *,
    reason: str,
    requested_by: str,
    purge: bool,
    purge_events: bool,
    fp_key: bytes,
    derived: Callable[[str], list[str]],
    embed: Embed | None = None,
) -> Tombstone:
    """Tombstone, fence, remove from derived stores and, with `purge`, destroy the content."""
    why = text(reason, "reason", limits.MAX_REASON)
    existing = _tombstone_row(tx, record.id)
    if existing is not None and (existing["purged"] or not purge):
        raise InvalidStateError(f"memory {record.id} is already deleted")
    report: list[str] = []
    if existing is None:
        _fence(tx, record, fp_key, embed)
        memories.update_fields(tx, record.id, status=MemoryStatus.DELETED)
        memories.record_decision(
            tx,
            record,
            action="delete",
            from_status=record.status,
            to_status=MemoryStatus.DELETED,
            actor=requested_by,
            reason=why,
            policy_version=VERSION,
            user_action=True,
        )
        report.append("memory record: status deleted, tombstone written")
        report.append("deletion fence: keyed fingerprint of every revision stored")
    cleaned = derived(record.id)
    report += [f"{asset}: entry removed" for asset in cleaned]
    deleted_at = str(existing["deleted_at"]) if existing else tx.now_iso
    if purge:
        cleaned += _purge(tx, record, deleted_at, purge_events, report)
        memories.record_decision(
            tx,
            record,
            action="purge",
            from_status=MemoryStatus.DELETED,
            to_status=MemoryStatus.DELETED,
            actor=requested_by,
            reason="compliance purge: content destroyed",
            policy_version=VERSION,
            user_action=True,
        )
    stone = Tombstone(
        memory_id=record.id,
        scope=record.scope,
        deleted_at=from_iso(deleted_at),
        requested_by=requested_by,
        reason=why,
        source_event_ids=record.source_event_ids,
        purged=purge,
        cleaned=tuple(dict.fromkeys(cleaned)),
        report=tuple(report),
    )
    _write_tombstone(tx, stone, replace_existing=existing is not None)
    tx.touch(ChangeKind.MEMORIES, memory_ids=(record.id,))
    return stone


def _fence(tx: WriteTx, record: MemoryRecord, fp_key: bytes, embed: Embed | None) -> None:
    contents = {c for (_, _, _, _, c) in memories.revisions(tx.conn, tx.codec, record.id) if c}
    for content in contents:
        fp = fingerprint(fp_key, content)
        feats = features(fp_key, content)
        fences.save_features(tx, fp, feats.terms, feats.marks, _embedding(embed, content))
        have = tx.conn.execute(
            select(s.deletion_fences.c.fingerprint).where(s.deletion_fences.c.fingerprint == fp)
        ).first()
        if have is None:
            tx.conn.execute(
                s.deletion_fences.insert().values(
                    fingerprint=fp, memory_id=record.id, created_at=tx.now_iso
                )
            )
        else:  # the same content deleted again: the fence stands again
            tx.conn.execute(
                update(s.deletion_fences)
                .where(s.deletion_fences.c.fingerprint == fp)
                .values(memory_id=record.id, created_at=tx.now_iso, lifted_at=None)
            )


def _embedding(embed: Embed | None, content: str) -> tuple[str, Sequence[float]] | None:
    if embed is None:
        return None
    try:
        return embed(content)
    except MemoryCenterError:
        return None  # no embedder now: the fence matches by units and values


def _purge(
    tx: WriteTx, record: MemoryRecord, deleted_at: str, purge_events: bool, report: list[str]
) -> list[str]:
    history = memories.revisions(tx.conn, tx.codec, record.id)
    contents = [c for (_, _, _, _, c) in history if c]
    tx.conn.execute(
        update(s.memory_revisions)
        .where(s.memory_revisions.c.memory_id == record.id)
        .values(content=None)
    )
    report.append(f"memory_revisions: content of {len(history)} revision(s) destroyed")
    found: list[Any] = list(
        tx.conn.execute(
            select(s.decisions.c.id).where(s.decisions.c.memory_id == record.id)
        ).scalars()
    )
    decision_ids = [str(d) for d in found]
    for did in decision_ids:
        tx.conn.execute(
            update(s.decisions)
            .where(s.decisions.c.id == did)
            .values(reason=tx.codec.seal_text(PURGED_REASON, memories.reason_aad(did)))
        )
    report.append(f"decisions: {len(decision_ids)} reason(s) redacted")
    cleaned = []
    touched, in_digest = _purge_snapshots(
        tx, record.id, contents, placeholder(record.id, deleted_at)
    )
    if touched:
        cleaned.append("snapshot_text")
        report.append(f"snapshots: injected text redacted in {touched} snapshot(s)")
    if in_digest:
        cleaned.append("digest")
        report.append(f"digests: {in_digest} digest entr(ies) redacted")
    if purge_events:
        n = _redact_events(tx, record)
        report.append(
            f"event payloads: {n} source event(s) redacted; the hash chain still verifies"
        )
    return cleaned


def _purge_snapshots(
    tx: WriteTx, memory_id: str, contents: list[str], marker: str
) -> tuple[int, int]:
    count = digests = 0
    for snap_id in snapshots.ids_using(tx.conn, [memory_id]):
        snap = snapshots.get(tx.conn, tx.codec, snap_id)
        new_text = snap.text
        for content in sorted(contents, key=len, reverse=True):
            new_text = new_text.replace(content, marker)
            new_text = new_text.replace(render.gist(content), marker)
        items = tuple(
            replace(i, content=marker) if i.memory_id == memory_id else i for i in snap.injected
        )
        digests += sum(1 for i in snap.injected if i.memory_id == memory_id and i.in_digest)
        purged = tuple(dict.fromkeys((*snap.purged_memory_ids, memory_id)))
        snapshots.rewrite(
            tx, replace(snap, text=new_text, injected=items, purged_memory_ids=purged)
        )
        count += 1
    return count, digests


def _redact_events(tx: WriteTx, record: MemoryRecord) -> int:
    """Redact source payloads and say so in the chain with a redaction event."""
    n = 0
    done = []
    for eid in record.source_event_ids:
        sealed = tx.codec.seal_json({"redacted": True}, event_log.payload_aad(eid))
        n += tx.conn.execute(
            update(s.event_payloads)
            .where((s.event_payloads.c.event_id == eid) & s.event_payloads.c.redacted_at.is_(None))
            .values(ciphertext=sealed, redacted_at=tx.now_iso)
        ).rowcount
        done.append(eid)
    event_log.system_event(
        tx,
        GOVERNANCE_SESSION,
        record.scope,
        EventKind.REDACTION,
        f"compliance purge of memory {record.id}: source payloads redacted",
        {"memory_id": record.id, "redacted_event_ids": done},
        by_user="user",
    )
    return n


def _tombstone_row(tx: WriteTx, memory_id: str) -> dict[str, object] | None:
    row = (
        tx.conn.execute(select(s.tombstones).where(s.tombstones.c.memory_id == memory_id))
        .mappings()
        .first()
    )
    return dict(row) if row else None


def _write_tombstone(tx: WriteTx, stone: Tombstone, *, replace_existing: bool) -> None:
    values = {
        "scope_json": stone.scope.to_json(),
        "deleted_at": stone.deleted_at.isoformat(timespec="microseconds"),
        "requested_by": stone.requested_by,
        "reason": tx.codec.seal_text(stone.reason, tombstone_aad(stone.memory_id, "reason")),
        "source_event_ids": json.dumps(list(stone.source_event_ids)),
        "purged": stone.purged,
        "cleaned_json": json.dumps(list(stone.cleaned)),
        "report": tx.codec.seal_json(list(stone.report), tombstone_aad(stone.memory_id, "report")),
    }
    if replace_existing:
        tx.conn.execute(
            update(s.tombstones).where(s.tombstones.c.memory_id == stone.memory_id).values(values)
        )
    else:
        tx.conn.execute(s.tombstones.insert().values(memory_id=stone.memory_id, **values))


def read_tombstone(conn: object, codec: object, memory_id: str) -> Tombstone:
    """The tombstone of a deleted memory. Raises NotFoundError."""
    from sqlalchemy import Connection

    from core.crypto.codec import Codec

    assert isinstance(conn, Connection) and isinstance(codec, Codec)
    row = (
        conn.execute(select(s.tombstones).where(s.tombstones.c.memory_id == memory_id))
        .mappings()
        .first()
    )
    if row is None:
        raise NotFoundError("tombstone", memory_id)
    return Tombstone(
        memory_id=memory_id,
        scope=Scope.from_json(row["scope_json"]),
        deleted_at=from_iso(row["deleted_at"]),
        requested_by=row["requested_by"],
        reason=codec.open_text(row["reason"], tombstone_aad(memory_id, "reason")),
        source_event_ids=tuple(json.loads(row["source_event_ids"])),
        purged=bool(row["purged"]),
        cleaned=tuple(json.loads(row["cleaned_json"])),
        report=tuple(codec.open_json(row["report"], tombstone_aad(memory_id, "report"))),
    )
