"""Deletion fences as stored: keyed fingerprints plus their comparison features (R19).

A fence row (`deletion_fences`) holds the keyed fingerprint of one deleted content; its
features (`fence_features`) hold keyed hashes of the content's units and value marks and,
when an embedder was available, the content's embedding sealed with the codec. No plaintext
is kept: a purge leaves nothing readable, and the hashes are keyed so they cannot confirm a
guess without the store's fingerprint key.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, and_, delete, func, select

from core.crypto.codec import Aad, Codec, is_personal, read_header
from core.storage import schema as s
from core.storage.store import WriteTx


@dataclass(frozen=True)
class StoredFence:
    """A standing fence and what it compares with."""

    fingerprint: str
    memory_id: str
    terms: frozenset[str]
    marks: frozenset[str]
    embedder: str | None
    vector: tuple[float, ...] | None


def _aad(fingerprint: str) -> Aad:
    return Aad(s.fence_features.name, fingerprint, "vector")


def save_features(
    tx: WriteTx,
    fingerprint: str,
    terms: Collection[str],
    marks: Collection[str],
    embedding: tuple[str, Sequence[float]] | None,
    *,
    key_id: str | None = None,
) -> None:
    """Store (or replace) the features of one fence."""
    tx.fences_changed()
    tx.conn.execute(delete(s.fence_features).where(s.fence_features.c.fingerprint == fingerprint))
    name, blob = None, None
    if embedding is not None:
        name = embedding[0]
        import numpy as np  # only a fence with an embedding needs it

        raw = np.asarray(embedding[1], dtype=np.float32).tobytes()
        blob = tx.codec.seal(raw, _aad(fingerprint), key_id=key_id)
    tx.conn.execute(
        s.fence_features.insert().values(
            fingerprint=fingerprint,
            terms_json=json.dumps(sorted(terms)),
            marks_json=json.dumps(sorted(marks)),
            embedder=name,
            vector=blob,
        )
    )


def _others_private(codec: Codec, blob: bytes) -> bool:
    """Another member's private fence: keyed with their personal fingerprint key, so it
    fences nothing on this device; its embedding is theirs too."""
    return is_personal(blob) and not codec.holds(read_header(blob).key_id)


def standing(conn: Connection, codec: Codec) -> list[StoredFence]:
    """Every fence not lifted, with its features."""
    query = (
        select(s.deletion_fences, s.fence_features)
        .join(
            s.fence_features,
            s.fence_features.c.fingerprint == s.deletion_fences.c.fingerprint,
        )
        .where(and_(s.deletion_fences.c.lifted_at.is_(None)))
    )
    out = []
    for row in conn.execute(query).mappings():
        vector = None
        if row["vector"] is not None and not _others_private(codec, row["vector"]):
            raw = codec.open(row["vector"], _aad(row["fingerprint"]))
            import numpy as np

            vector = tuple(float(x) for x in np.frombuffer(raw, dtype=np.float32))
        out.append(
            StoredFence(
                fingerprint=row["fingerprint"],
                memory_id=row["memory_id"],
                terms=frozenset(json.loads(row["terms_json"])),
                marks=frozenset(json.loads(row["marks_json"])),
                embedder=row["embedder"],
                vector=vector,
            )
        )
    return out


def standing_fingerprints(conn: Connection) -> dict[str, str]:
    """Fingerprint -> deleted memory id of every fence not lifted."""
    rows = conn.execute(
        select(s.deletion_fences.c.fingerprint, s.deletion_fences.c.memory_id).where(
            s.deletion_fences.c.lifted_at.is_(None)
        )
    )
    return {str(fp): str(memory_id) for fp, memory_id in rows}


def state_in(tx: WriteTx) -> tuple[object, ...]:
    """`state` read once per transaction, until the transaction writes a fence."""
    if tx.fence_state is None:
        tx.fence_state = state(tx.conn)
    return tx.fence_state


def state(conn: Connection) -> tuple[object, ...]:
    """A cheap summary that changes whenever a fence is added, lifted or removed (so the
    decrypted features can be cached between writes)."""
    fences_row = conn.execute(
        select(
            func.count(),
            func.count(s.deletion_fences.c.lifted_at),
            func.max(s.deletion_fences.c.created_at),
            func.max(s.deletion_fences.c.lifted_at),
        ).select_from(s.deletion_fences)
    ).one()
    features_row = conn.execute(
        select(func.count(), func.max(s.fence_features.c.fingerprint)).select_from(s.fence_features)
    ).one()
    return (*fences_row, *features_row)
