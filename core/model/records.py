"""Typed values that cross the service boundary. Frozen: nobody mutates a result in place."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from core.model.enums import (
    Actor,
    ChangeKind,
    EventKind,
    EventSource,
    MemoryKind,
    MemoryStatus,
    Sensitivity,
    TrustLevel,
)
from core.model.scope import Scope

T = TypeVar("T")

# Said this much before it was stored: recorded history (an import, a transcript, a session
# extracted after it ended), not a note written as it was said. The one rule for "said"
# headers, the memory center's "Said" row, conversation context and the importers (#17).
RECORDED_AFTER = dt.timedelta(minutes=5)


@dataclass(frozen=True)
class NewEvent:
    """An event to append (R1, R2). Validation happens in the service, naming the bad field."""

    session: str
    actor: Actor | str
    trust: TrustLevel | str
    scope: Scope | Mapping[str, str]
    text: str
    kind: EventKind | str = EventKind.MESSAGE
    source: EventSource | str | None = None
    data: Mapping[str, Any] | None = None
    refs: tuple[str, ...] = ()
    by: str | None = None
    # When it was said (history recorded after the fact) and by whom: kept out of the text,
    # stored in the event's data, carried to the memories extracted from it (#17).
    said_at: dt.datetime | str | None = None
    speaker: str | None = None


@dataclass(frozen=True)
class Event:
    """One entry of the append-only, hash-chained log."""

    id: str
    position: int
    session_id: str
    seq: int
    ts: dt.datetime
    kind: EventKind
    actor: Actor
    trust: TrustLevel
    source: EventSource | None
    scope: Scope
    text: str
    data: Mapping[str, Any]
    refs: tuple[str, ...]
    by: str | None
    prev_hash: str
    hash: str
    redacted: bool = False


@dataclass(frozen=True)
class SessionInfo:
    """A session (conversation / agent run) and what the log holds for it."""

    id: str
    created_at: dt.datetime
    opted_out: bool
    event_count: int
    last_event_at: dt.datetime | None


@dataclass(frozen=True, slots=True)
class MemoryRecord:
    """A curated memory (R4) as the service reports it.

    Slotted: the memory center keeps every record of a store for local filtering, and at
    100k records an instance dictionary each was ~20 MB of its resident memory (#13).
    """

    id: str
    kind: MemoryKind
    content: str
    scope: Scope
    source_event_ids: tuple[str, ...]
    confidence: float
    status: MemoryStatus
    created_at: dt.datetime
    updated_at: dt.datetime
    valid_from: dt.datetime
    expires_at: dt.datetime | None
    supersedes: str | None
    sensitivity: Sensitivity
    owner: str
    revision: int
    source_trust: TrustLevel
    flags: frozenset[str] = frozenset()
    conflict_set: str | None = None
    index_refs: tuple[str, ...] = ()
    superseded_by: str | None = None
    # Who said it, for a turn of recorded history (#17): kept out of the text, sealed.
    speaker: str | None = None

    def own_time(self) -> dt.datetime | None:
        """When it was said or observed, if that was well before it was stored (imported
        history, a transcript): the time the memory is about, shown as "said" (#17)."""
        if self.created_at - self.valid_from > RECORDED_AFTER:
            return self.valid_from
        return None

    def spoken(self) -> str:
        """The content after the name of who said it, when the memory records one (#17):
        what a model reads and what a search by words or meaning matches; the stored text
        itself stays clean."""
        return f"{self.speaker}: {self.content}" if self.speaker else self.content

    def effective_status(self, now: dt.datetime) -> str:
        """The stored status, or `expired` once an active or pending record's time is up."""
        expirable = self.status in (MemoryStatus.ACTIVE, MemoryStatus.CANDIDATE)
        if expirable and self.expires_at is not None and self.expires_at <= now:
            return "expired"
        return self.status.value


@dataclass(frozen=True)
class Decision:
    """One status transition or change of a memory, with who, why and which policy (R5)."""

    id: str
    memory_id: str
    ts: dt.datetime
    action: str
    from_status: MemoryStatus | None
    to_status: MemoryStatus
    actor: str
    reason: str
    policy_version: str
    store_revision: int
    event_id: str | None = None


@dataclass(frozen=True)
class Changes:
    """What a committed operation changed, and the store revision it produced (R21)."""

    kinds: frozenset[ChangeKind]
    revision: int
    event_ids: tuple[str, ...] = ()
    memory_ids: tuple[str, ...] = ()
    # The journal command that records this change (#39): what `undo_change` takes; and,
    # for an undo (or a redo), the command it undid.
    command_id: str | None = None
    undoes: str | None = None

    @classmethod
    def none(cls, revision: int) -> Changes:
        """A no-op result at the current revision."""
        return cls(frozenset(), revision)

    @classmethod
    def combined(cls, parts: Sequence[Changes]) -> Changes:
        """The changes of one operation committed in several transactions. It has no single
        journal command: each part is undone on its own (`command_id` None)."""
        if len(parts) == 1:
            return parts[0]
        return cls(
            frozenset().union(*(p.kinds for p in parts)),
            max(p.revision for p in parts),
            tuple(i for p in parts for i in p.event_ids),
            tuple(dict.fromkeys(i for p in parts for i in p.memory_ids)),
        )

    def touches(self, kind: ChangeKind) -> bool:
        """True when views showing `kind` should refresh."""
        return kind in self.kinds


@dataclass(frozen=True)
class Result(Generic[T]):
    """The value of a mutating call together with the changes it committed."""

    value: T
    changes: Changes


@dataclass(frozen=True)
class ChangeEntry:
    """One row of the change feed: another process reads these to catch up."""

    revision: int
    ts: dt.datetime
    kinds: frozenset[ChangeKind]
    event_ids: tuple[str, ...]
    memory_ids: tuple[str, ...]


@dataclass(frozen=True)
class KeyInfo:
    """Where the data key lives and which key id encrypts new data."""

    source: str
    active_key_id: str
    key_ids: tuple[str, ...]
    keyring_backend: str | None = None
    # On a team store: the `user=` scopes whose private content this device can read.
    private_scopes: tuple[str, ...] = ()


@dataclass(frozen=True)
class StoreStatus:
    """A summary of one store for `status` and the settings view."""

    path: str
    store_id: str
    schema_version: int
    revision: int
    key: KeyInfo
    event_count: int
    session_count: int
    memory_counts: Mapping[str, int] = field(default_factory=dict)
    damaged_rows: int = 0
    # Team stores: rows and records the signed membership does not back (planted devices,
    # unauthorised removals or invitations), one line each; ignored, never trusted (#41).
    membership_problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class VerifyFailure:
    """The first problem `verify` found."""

    event_id: str | None
    position: int | None
    table: str
    row_id: str
    problem: str
    field: str = ""

    def line(self) -> str:
        """Where and what, in one line."""
        if self.event_id is not None:
            return f"event {self.event_id} (position {self.position}): {self.problem}"
        where = f"{self.table} row {self.row_id}" + (f" field {self.field}" if self.field else "")
        return f"{where}: {self.problem}"


@dataclass(frozen=True)
class VerifyReport:
    """Outcome of walking the hash chain and decrypting every row (R3).

    Attributes:
        sealed_values: sealed values outside the event log opened (every registered column
            and sealed file).
        records_checked: memory rows whose metadata binding and scope index were checked.
        sqlite: SQLite's own integrity check ("ok" or its first finding; "not a SQLite
            store" on PostgreSQL, where no such check runs).
        unreadable_values: values sealed with another member's personal key (their private
            `user=X` scope on a team store): not readable with this device's keys, which
            is not damage; their own devices verify them.
        membership_problems: on a team store, devices rows and membership records no
            trusted signature backs (ignored by every device; reported, not a failure).
    """

    ok: bool
    events_checked: int
    rows_decrypted: int
    redacted_events: int
    first_failure: VerifyFailure | None = None
    sealed_values: int = 0
    records_checked: int = 0
    sqlite: str = "ok"
    unreadable_values: int = 0
    # Team stores: rows and records the signed membership does not back, ignored (#41).
    membership_problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class RotationReport:
    """Outcome of a key rotation (R24)."""

    old_key_id: str
    new_key_id: str
    rows_reencrypted: int
    resumed: bool


@dataclass(frozen=True)
class RotationProgress:
    """Where a key rotation stands, for a progress bar (R24: removing a member).

    Attributes:
        phase: "revoking" (the member's devices), "sealing" (re-encrypting rows),
            "finishing" (key check, chain head, retiring the old key) or "done".
        visited: sealed values looked at so far (re-encrypted, or already under the new
            key, or under a personal key, which team rotation leaves alone).
        total: sealed values counted when the rotation (or its resumption) started.
        reencrypted: values actually re-encrypted so far.
    """

    phase: str
    visited: int
    total: int
    reencrypted: int


@dataclass(frozen=True)
class MemberInfo:
    """A member of a team store: invited, joined from some devices, perhaps removed."""

    name: str
    invited_at: dt.datetime
    invited_by: str | None
    joined_at: dt.datetime | None
    devices: int
    removed_at: dt.datetime | None = None
    # Created the store (nobody invited them): listed from their devices, never removable.
    founder: bool = False
    # owner / admin / member, from the signed membership records (#41).
    role: str = "member"


@dataclass(frozen=True)
class InvitationInfo:
    """An invitation of a team store, as the signed membership records say (#41)."""

    id: str
    member: str
    role: str
    invited_by: str
    created_at: dt.datetime
    expires_at: dt.datetime
    state: str  # open, used, expired, cancelled
    used_by: str | None = None
