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
from typing import Any

from sqlalchemy import Connection, delete, func, select

from core.crypto.codec import Aad, Codec, is_personal, read_header
from core.errors import IntegrityError, KeyUnavailableError
from core.storage import governed
from core.storage import schema as s
from core.storage.engine import chunks
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
    governed.note(tx, governed.FEATURES, fingerprint)
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
    """Every fence not lifted, with its features, as the MAC'd record of governing rows
    says (`governed.py`): a fence row deleted, lifted or emptied in the file still stands.

    A damaged part (terms that do not parse, an embedding that does not open) is left
    out of that fence, which still matches by what is left; `verify` names the row.
    """
    rows = governed.recorded_or_table(conn, codec, governed.FENCES)
    feats = governed.recorded_or_table(conn, codec, governed.FEATURES)
    vectors = _vectors(conn, [fp for fp, f in feats.items() if f.get("vector")])
    out = []
    for fp, row in sorted(rows.items()):
        if row.get("lifted_at") is not None:
            continue
        feat = feats.get(fp, {})
        out.append(
            StoredFence(
                fingerprint=fp,
                memory_id=str(row.get("memory_id")),
                terms=_hashes(feat.get("terms_json")),
                marks=_hashes(feat.get("marks_json")),
                embedder=feat.get("embedder"),
                vector=_vector(codec, fp, vectors.get(fp)),
            )
        )
    return out


def _vectors(conn: Connection, fingerprints: list[str]) -> dict[str, bytes]:
    if not fingerprints:
        return {}
    found: dict[str, bytes] = {}
    for part in chunks(fingerprints):
        query = select(s.fence_features.c.fingerprint, s.fence_features.c.vector).where(
            s.fence_features.c.fingerprint.in_(part)
        )
        rows: list[Any] = list(conn.execute(query).all())
        found.update({str(fp): bytes(blob) for fp, blob in rows if blob is not None})
    return found


def _hashes(stored: object) -> frozenset[str]:
    try:
        value = json.loads(str(stored)) if stored is not None else []
    except ValueError:
        return frozenset()
    if not isinstance(value, list):
        return frozenset()
    return frozenset(str(v) for v in value)


def _vector(codec: Codec, fingerprint: str, blob: bytes | None) -> tuple[float, ...] | None:
    if blob is None:
        return None
    try:
        if _others_private(codec, blob):
            return None
        raw = codec.open(blob, _aad(fingerprint))
    except (IntegrityError, KeyUnavailableError):
        return None
    import numpy as np  # only a fence with an embedding needs it

    if len(raw) % 4:
        return None
    return tuple(float(x) for x in np.frombuffer(raw, dtype=np.float32))


def standing_fingerprints(conn: Connection, codec: Codec) -> dict[str, str]:
    """Fingerprint -> deleted memory id of every fence not lifted (as recorded)."""
    rows = governed.recorded_or_table(conn, codec, governed.FENCES)
    return {
        fp: str(row.get("memory_id")) for fp, row in rows.items() if row.get("lifted_at") is None
    }


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
    # The record of governing rows decides which fences stand (`governed.py`). Its MAC
    # comes first in the stored JSON (keys sorted), so its head changes with it; reading
    # the head keeps this query small however many fences there are.
    record = conn.execute(
        select(func.substr(s.store_meta.c.value, 1, 96)).where(
            s.store_meta.c.key == governed.META_KEY
        )
    ).scalar_one_or_none()
    return (*fences_row, *features_row, record)
