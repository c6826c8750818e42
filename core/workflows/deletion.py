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

from collections.abc import Callable, Sequence

from sqlalchemy import Connection

from core.crypto.codec import Codec
from core.errors import InvalidStateError, MemoryCenterError
from core.governance.fences import Embed, features
from core.governance.policy import VERSION
from core.governance.text import fingerprint
from core.model import limits
from core.model.clock import from_iso
from core.model.enums import ChangeKind, MemoryStatus
from core.model.memory import Tombstone
from core.model.records import MemoryRecord
from core.model.validate import text
from core.storage import fences, memories, memory_history, tombstones
from core.storage.store import WriteTx
from core.workflows import copies

PURGED_REASON = copies.PURGED_REASON


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
    derived: Callable[[str], list[str]],
    embed: Embed | None = None,
) -> Tombstone:
    """Tombstone, fence, remove from derived stores and, with `purge`, destroy the content."""
    why = text(reason, "reason", limits.MAX_REASON)
    existing = tombstones.row(tx.conn, record.id)
    if existing is not None and (existing["purged"] or not purge):
        raise InvalidStateError(f"memory {record.id} is already deleted")
    report: list[str] = []
    if existing is None:
        _fence(tx, record, embed)
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
    tombstones.write(tx, stone, replace_existing=existing is not None)
    tx.touch(ChangeKind.MEMORIES, memory_ids=(record.id,))
    return stone


def _fence(tx: WriteTx, record: MemoryRecord, embed: Embed | None) -> None:
    # A private scope's fence is keyed with its member's personal fingerprint key (#12).
    fp_key = tx.codec.fingerprint_key_for(record.scope.get("user"))
    contents = {
        c for (_, _, _, _, c) in memory_history.revisions(tx.conn, tx.codec, record.id) if c
    }
    for content in contents:
        fp = fingerprint(fp_key, content)
        feats = features(fp_key, content)
        fences.save_features(
            tx,
            fp,
            feats.terms,
            feats.stored,
            _embedding(embed, content),
            key_id=tx.key_for(record.scope.get("user"), strict=False),
        )
        tombstones.stand_fence(tx, fp, record.id)


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
    """Destroy every copy of the content: the places are listed in `copies.PLACES`."""
    history = memory_history.revisions(tx.conn, tx.codec, record.id)
    work = copies.Purge(
        tx,
        record,
        [c for (_, _, _, _, c) in history if c],
        placeholder(record.id, deleted_at),
        purge_events,
    )
    copies.purge_all(work)
    report += work.report
    return work.cleaned


def read_tombstone(conn: Connection, codec: Codec, memory_id: str) -> Tombstone:
    """The tombstone of a deleted memory. Raises NotFoundError."""
    return tombstones.read(conn, codec, memory_id)
