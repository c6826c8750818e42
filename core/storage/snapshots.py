"""Persistence of memory snapshots (R18): the whole snapshot sealed, plus clear lineage rows.

`snapshot_items` records which memory ids each snapshot injected (whole or in its digest), so
usage traces, adoption chains and deletions can find the snapshots that hold a copy of a
memory without decrypting them all. Stores written before #13 also hold rows for the hits
a snapshot dropped (`injected` false); nothing reads those.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, delete, select, update

from core.crypto.codec import Aad, Codec
from core.errors import NotFoundError
from core.model.clock import from_iso, to_iso
from core.model.enums import ChangeKind
from core.model.memory import (
    DEGRADED,
    HYBRID,
    KEYWORD,
    KEYWORD_ONLY,
    OPTED_OUT,
    PAUSED,
    DroppedHit,
    InjectedItem,
    RankedHit,
    Snapshot,
)
from core.model.scope import Scope
from core.storage import schema as s
from core.storage.store import WriteTx


def body_aad(snapshot_id: str) -> Aad:
    """Where a snapshot's sealed body belongs."""
    return Aad("snapshots", snapshot_id, "body")


def insert(tx: WriteTx, snap: Snapshot) -> None:
    """Store a snapshot and its lineage rows (queued writes: nothing reads them back)."""
    row = {
        "id": snap.id,
        "session_id": snap.session_id,
        "ts": to_iso(snap.ts),
        "store_revision": snap.store_revision,
        "scope_json": snap.scope.to_json(),
        "policy_version": snap.policy_version,
        "index_version": snap.index_version,
        "embedder": snap.embedder,
        "degraded": snap.degraded,
        "body": tx.codec.seal_json(to_body(snap), body_aad(snap.id), key_id=_key(tx, snap)),
    }
    tx.later_rows(s.snapshots, [row])
    # Lineage of what the snapshot holds a copy of. The hits it dropped are named in its
    # sealed body with their scores, never their text: a row for each of them (300 a call
    # on a big scope) made the lineage table most of the store and of the write (#13).
    rows = [
        {"snapshot_id": snap.id, "memory_id": i.memory_id, "injected": True, "revision": i.revision}
        for i in snap.injected
    ]
    tx.later_rows(s.snapshot_items, rows)
    tx.touch(ChangeKind.SNAPSHOTS)


def delete_whole(tx: WriteTx, snapshot_id: str) -> None:
    """Remove a snapshot and its lineage rows (purge of a copy that cannot be redacted)."""
    tx.conn.execute(delete(s.snapshot_items).where(s.snapshot_items.c.snapshot_id == snapshot_id))
    tx.conn.execute(delete(s.snapshots).where(s.snapshots.c.id == snapshot_id))
    tx.touch(ChangeKind.SNAPSHOTS)


def _key(tx: WriteTx, snap: Snapshot) -> str | None:
    """A snapshot for a `user=X` request is X's (it may hold X's private memories). A device
    without X's key could read none of them, so its snapshot is sealed with the team key."""
    return tx.key_for(snap.scope.get("user"), strict=False)


def rewrite(tx: WriteTx, snap: Snapshot) -> None:
    """Replace a snapshot's sealed body (purge redaction)."""
    tx.conn.execute(
        update(s.snapshots)
        .where(s.snapshots.c.id == snap.id)
        .values(body=tx.codec.seal_json(to_body(snap), body_aad(snap.id), key_id=_key(tx, snap)))
    )
    tx.touch(ChangeKind.SNAPSHOTS)


def get(conn: Connection, codec: Codec, snapshot_id: str) -> Snapshot:
    """One snapshot. Raises NotFoundError."""
    row = (
        conn.execute(select(s.snapshots).where(s.snapshots.c.id == snapshot_id)).mappings().first()
    )
    if row is None:
        raise NotFoundError("snapshot", snapshot_id)
    return from_body(row, codec.open_json(row["body"], body_aad(snapshot_id)))


def latest_for_session(conn: Connection, session: str) -> str | None:
    """The id of the session's most recent snapshot."""
    return conn.execute(
        select(s.snapshots.c.id)
        .where(s.snapshots.c.session_id == session)
        .order_by(s.snapshots.c.ts.desc(), s.snapshots.c.id.desc())
        .limit(1)
    ).scalar_one_or_none()


def using_memory(conn: Connection, memory_id: str) -> list[tuple[str, str | None, str]]:
    """(snapshot id, session, ts) of snapshots that injected a memory, oldest first."""
    q = (
        select(s.snapshots.c.id, s.snapshots.c.session_id, s.snapshots.c.ts)
        .join(s.snapshot_items, s.snapshot_items.c.snapshot_id == s.snapshots.c.id)
        .where(s.snapshot_items.c.memory_id == memory_id)
        .where(s.snapshot_items.c.injected.is_(True))
        .order_by(s.snapshots.c.ts, s.snapshots.c.id)
    )
    return [(r[0], r[1], r[2]) for r in conn.execute(q).all()]


def list_for_session(conn: Connection, session: str) -> list[tuple[str, str, int]]:
    """(snapshot id, ts, store revision) of a session's snapshots, oldest first."""
    rows = conn.execute(
        select(s.snapshots.c.id, s.snapshots.c.ts, s.snapshots.c.store_revision)
        .where(s.snapshots.c.session_id == session)
        .order_by(s.snapshots.c.ts, s.snapshots.c.id)
    ).all()
    return [(r[0], r[1], r[2]) for r in rows]


def to_body(snap: Snapshot) -> dict[str, Any]:
    """The sealed part of a snapshot."""
    return {
        "goal": snap.goal,
        "budget_tokens": snap.budget_tokens,
        "hits": [
            {"id": h.memory_id, "score": h.score, "signals": dict(h.signals)} for h in snap.hits
        ],
        "injected": [_item(i) for i in snap.injected],
        "dropped": [
            {"id": d.memory_id, "reason": d.reason, "score": d.score} for d in snap.dropped
        ],
        "text": snap.text,
        "tokens": snap.tokens,
        "purged": list(snap.purged_memory_ids),
        "mode": snap.mode,
        # The clear columns, sealed too (#38): the sealed copy is what readers use, and
        # `verify` names a clear column edited outside Memory Center.
        CLEAR: clear_of(snap),
    }


CLEAR = "clear"


def clear_of(snap: Snapshot) -> dict[str, Any]:
    """The snapshot's clear columns, as sealed in its body."""
    return {
        "session_id": snap.session_id,
        "ts": to_iso(snap.ts),
        "store_revision": snap.store_revision,
        "scope_json": snap.scope.to_json(),
    }


def clear_problems(row: Mapping[Any, Any], body: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(field, problem) for each clear column that differs from the sealed copy (none for
    a snapshot written before #38, which has no sealed copy)."""
    sealed = body.get(CLEAR)
    if not isinstance(sealed, dict):
        return []
    return [
        (
            name,
            f"{name} is {row[name]!r} but the sealed snapshot says {value!r}: changed "
            "outside Memory Center",
        )
        for name, value in sealed.items()
        if row[name] != value
    ]


def item_rows(conn: Connection, snapshot_ids: Sequence[str]) -> dict[str, set[tuple[str, int]]]:
    """Snapshot id -> (memory id, revision) of its injected lineage rows."""
    out: dict[str, set[tuple[str, int]]] = {}
    rows: list[Any] = list(
        conn.execute(
            select(
                s.snapshot_items.c.snapshot_id,
                s.snapshot_items.c.memory_id,
                s.snapshot_items.c.revision,
            ).where(
                s.snapshot_items.c.snapshot_id.in_(list(snapshot_ids))
                & s.snapshot_items.c.injected.is_(True)
            )
        ).all()
    )
    for sid, mid, rev in rows:
        out.setdefault(str(sid), set()).add((str(mid), int(rev)))
    return out


def _item(i: InjectedItem) -> dict[str, Any]:
    return {
        "id": i.memory_id,
        "content": i.content,
        "kind": i.kind,
        "scope": dict(i.scope),
        "why": i.why_visible,
        "score": i.score,
        "tokens": i.tokens,
        "notes": list(i.notes),
        "digest": i.in_digest,
        "revision": i.revision,
    }


def from_body(row: Mapping[Any, Any], body: Mapping[str, Any]) -> Snapshot:
    """Rebuild a Snapshot from its row and opened body (the sealed copy of the clear
    columns wins over the row's, #38)."""
    sealed = body.get(CLEAR)
    clear = {**row, **sealed} if isinstance(sealed, dict) else row
    return Snapshot(
        id=row["id"],
        session_id=clear["session_id"],
        ts=from_iso(clear["ts"]),
        store_revision=clear["store_revision"],
        scope=Scope.from_json(clear["scope_json"]),
        goal=body["goal"],
        budget_tokens=body["budget_tokens"],
        hits=tuple(RankedHit(h["id"], h["score"], h["signals"]) for h in body["hits"]),
        injected=tuple(
            InjectedItem(
                memory_id=i["id"],
                content=i["content"],
                kind=i["kind"],
                scope=Scope.of(i["scope"]),
                why_visible=i["why"],
                score=i["score"],
                tokens=i["tokens"],
                notes=tuple(i["notes"]),
                in_digest=i["digest"],
                revision=i["revision"],
            )
            for i in body["injected"]
        ),
        dropped=tuple(DroppedHit(d["id"], d["reason"], d["score"]) for d in body["dropped"]),
        text=body["text"],
        tokens=body["tokens"],
        policy_version=row["policy_version"],
        index_version=row["index_version"],
        embedder=row["embedder"],
        degraded=bool(row["degraded"]),
        purged_memory_ids=tuple(body.get("purged", ())),
        mode=body.get("mode") or _older_mode(row, body),
    )


def _older_mode(row: Mapping[Any, Any], body: Mapping[str, Any]) -> str:
    """The mode of a snapshot written before it was recorded (#44), read from what it said:
    the degraded flag, and the reason its dropped entry "*" gave."""
    if row["degraded"]:
        return DEGRADED
    reasons = [d["reason"] for d in body["dropped"] if d["id"] == "*"]
    if any(r.startswith("keyword_only") for r in reasons):
        return KEYWORD_ONLY
    if "session opted out of memory" in reasons:
        return OPTED_OUT
    if reasons:
        return PAUSED
    return KEYWORD if str(row["index_version"]).startswith("keyword") else HYBRID


def ids_using(conn: Connection, memory_ids: Sequence[str]) -> list[str]:
    """Ids of the snapshots that injected any of these memories."""
    if not memory_ids:
        return []
    return list(
        conn.execute(
            select(s.snapshot_items.c.snapshot_id)
            .where(s.snapshot_items.c.memory_id.in_(list(memory_ids)))
            .where(s.snapshot_items.c.injected.is_(True))
            .distinct()
        ).scalars()
    )
