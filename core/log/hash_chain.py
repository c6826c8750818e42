"""Hash chain over the event log (R3).

Each event's hash covers its clear metadata, a commitment to its payload and the previous
event's hash. The payload commitment is SHA-256 over a random salt and the canonical
plaintext; the salt lives inside the encrypted payload. So:

- key rotation re-encrypts payloads without touching the chain;
- a compliance purge can redact a payload and the chain still verifies (the commitment
  stays, the plaintext is gone, and the salt went with it, so the commitment cannot be
  used to confirm a guess);
- changing any byte of an event, or re-ordering events, breaks the chain at that event.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass

GENESIS_HASH = "0" * 64


@dataclass(frozen=True)
class ChainLink:
    """The hashed fields of one event, in the order they are chained."""

    id: str
    position: int
    session_id: str
    seq: int
    ts: str
    kind: str
    actor: str
    trust: str
    source: str | None
    scope_json: str
    refs_json: str
    by: str | None
    commitment: str
    prev_hash: str

    def digest(self) -> str:
        """The event hash: SHA-256 over the canonical JSON of every field above."""
        doc = [
            "mc-event-v1",
            self.id,
            self.position,
            self.session_id,
            self.seq,
            self.ts,
            self.kind,
            self.actor,
            self.trust,
            self.source,
            self.scope_json,
            self.refs_json,
            self.by,
            self.commitment,
            self.prev_hash,
        ]
        canonical = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ChainBreak:
    """Where and why the chain failed."""

    event_id: str
    position: int
    problem: str


def payload_commitment(salt: bytes, canonical_payload: bytes) -> str:
    """Commit to a payload without revealing it: SHA-256(len(salt) | salt | payload)."""
    h = hashlib.sha256()
    h.update(len(salt).to_bytes(2, "big"))
    h.update(salt)
    h.update(canonical_payload)
    return h.hexdigest()


def find_break(
    links: Iterable[tuple[ChainLink, str]], start_hash: str = GENESIS_HASH
) -> ChainBreak | None:
    """Walk `(link, stored_hash)` pairs in position order; return the first broken link.

    Args:
        links: each event's hashed fields with the hash stored beside them.
        start_hash: the hash the first link must point back to.

    Returns:
        None when every link is intact, else the first break.
    """
    expected_prev = start_hash
    expected_position: int | None = None
    for link, stored_hash in links:
        if expected_position is not None and link.position != expected_position:
            return ChainBreak(link.id, link.position, f"position gap: expected {expected_position}")
        if link.prev_hash != expected_prev:
            return ChainBreak(link.id, link.position, "prev_hash does not match the previous event")
        if link.digest() != stored_hash:
            return ChainBreak(link.id, link.position, "event content does not match its hash")
        expected_prev = stored_hash
        expected_position = link.position + 1
    return None
