"""A memory row as a `MemoryRecord`: its sealed content and speaker opened under their
AADs, its clear columns parsed, and the binding check every read passes (R1, R24)."""

from __future__ import annotations

import datetime as dt
import functools
import json
import sys
from collections.abc import Mapping
from typing import Any

from core.crypto.codec import Aad, Codec, read_header
from core.errors import DamagedRowError
from core.model.clock import from_iso
from core.model.enums import (
    MemoryKind,
    MemoryStatus,
    Sensitivity,
    TrustLevel,
)
from core.model.records import MemoryRecord
from core.model.scope import Scope
from core.storage import binding
from core.storage.damage import Damage, guarded

NO_FLAGS: frozenset[str] = frozenset()
PURGED_TEXT = ""


def content_aad(memory_id: str, revision: int) -> Aad:
    """Where one revision's content ciphertext belongs."""
    return Aad("memory_revisions", f"{memory_id}/{revision}", "content")


def speaker_aad(memory_id: str, revision: int) -> Aad:
    """Where one revision's speaker ciphertext belongs."""
    return Aad("memory_revisions", f"{memory_id}/{revision}", "speaker")


def checked(
    row: Mapping[Any, Any], codec: Codec, sources: tuple[str, ...]
) -> MemoryRecord | Damage:
    """Decode a row only if its binding verifies; any failure is damage of that row."""

    def decode() -> MemoryRecord:
        wrong = binding.problem(codec, row)
        if wrong is not None:
            raise DamagedRowError("binding", wrong)
        if codec.shared:
            forged = provenance_problem(row, codec)
            if forged is not None:
                raise DamagedRowError(*forged)
        return to_record(row, codec, sources)

    return guarded("memories", str(row["id"]), "content", decode)


def provenance_problem(row: Mapping[Any, Any], codec: Codec) -> tuple[str, str] | None:
    """On a team store, why a row was not written by someone entitled to write it, as
    (field, problem); None when its provenance holds (#41).

    A teammate holds the team key and can write any row by hand. What they cannot do is
    record a decision through Memory Center for another member's private scope, nor seal
    with that member's personal key. So a row is served only when a decision about it is
    recorded, and a `user=X` row only when, for a device of X (which holds X's key), its
    content is sealed with X's personal key.
    """
    if "decided" in row and not row["decided"]:
        return "status", "no decision about this memory is recorded in the log"
    user = scope_of(row["scope_json"]).get("user")
    own = codec.key_for(user)
    blob = row["content"]
    if own is not None and blob and read_header(bytes(blob)).key_id != own:
        return "content", (
            f"a memory of the private scope user={user} not sealed with {user}'s personal "
            "key: written by someone who does not hold it"
        )
    return None


@functools.lru_cache(maxsize=4096)
def scope_of(scope_json: str) -> Scope:
    # Scopes are few and immutable: parsing and validating each row's JSON again was a
    # third of the cost of reading a record (#13).
    return Scope.from_json(scope_json)


MISSING_CONTENT = (
    "the content of the current revision is missing (NULL) although the memory was not "
    "purged: removed outside Memory Center"
)


def to_record(row: Mapping[Any, Any], codec: Codec, sources: tuple[str, ...]) -> MemoryRecord:
    blob = row["content"]
    if blob is None and row["status"] != MemoryStatus.DELETED.value:
        # Only a purge (of a deleted memory) empties content: anything else is damage,
        # never a blank memory served as if it were one (#38).
        raise DamagedRowError("content", MISSING_CONTENT)
    content = (
        codec.open_text(blob, content_aad(row["id"], row["revision"])) if blob else PURGED_TEXT
    )
    sealed = row["speaker"]
    speaker = codec.open_text(sealed, speaker_aad(row["id"], row["revision"])) if sealed else None
    return from_row(row, content, sources, speaker)


def _flags(flags_json: str) -> frozenset[str]:
    # Most records have none: one shared empty set instead of ~200 bytes each (#13).
    flags = json.loads(flags_json)
    return frozenset(flags) if flags else NO_FLAGS


def from_row(
    row: Mapping[Any, Any], content: str, sources: tuple[str, ...], speaker: str | None = None
) -> MemoryRecord:
    expires = row["expires_at"]
    # A record's three times are often the same instant: one object for equal strings.
    times: dict[str, dt.datetime] = {}
    created, updated, valid = (
        times.get(t) or times.setdefault(t, from_iso(t))
        for t in (row["created_at"], row["updated_at"], row["valid_from"])
    )
    return MemoryRecord(
        id=row["id"],
        kind=MemoryKind(row["kind"]),
        content=content,
        scope=scope_of(row["scope_json"]),
        source_event_ids=sources,
        confidence=float(row["confidence"]),
        status=MemoryStatus(row["status"]),
        created_at=created,
        updated_at=updated,
        valid_from=valid,
        expires_at=from_iso(expires) if expires else None,
        supersedes=row["supersedes"],
        sensitivity=Sensitivity(row["sensitivity"]),
        owner=sys.intern(row["owner"]),
        revision=int(row["revision"]),
        source_trust=TrustLevel(row["source_trust"]),
        flags=_flags(row["flags_json"]),
        conflict_set=row["conflict_set"],
        index_refs=tuple(json.loads(row["index_refs_json"])),
        superseded_by=row["superseded_by"],
        speaker=speaker,
    )
