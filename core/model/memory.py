"""Typed results of the memory write path, retrieval, deletion and replay."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from core.model.enums import OutcomeKind
from core.model.records import Decision, Event, MemoryRecord
from core.model.scope import Scope

# How an injection was answered (#44), in the snapshot, the result, the MCP answer and the
# CLI: both indexes ("hybrid"), the keyword index of a store without an embedder
# ("keyword"), the keyword index alone because the vector path was unavailable or too slow
# ("keyword_only"; the snapshot's dropped entry "*" says why), nothing because the session
# opted out or its agent is paused, or nothing because memory could not be read ("degraded").
HYBRID = "hybrid"
KEYWORD = "keyword"
KEYWORD_ONLY = "keyword_only"
OPTED_OUT = "opted_out"
PAUSED = "paused"
DEGRADED = "degraded"
INJECT_MODES = (HYBRID, KEYWORD, KEYWORD_ONLY, OPTED_OUT, PAUSED, DEGRADED)


@dataclass(frozen=True)
class MemoryOutcome:
    """What the MemoryPolicy did with one candidate (remember, suggest, extract, import).

    Attributes:
        record: the record the candidate became or merged into (None when nothing was stored).
        outcome: the status the candidate got, or `merged`.
        reasons: human-readable reasons from the policy.
        superseded: ids of records this one superseded.
        conflicts_with: ids of records it now stands in a conflict set with.
        findings: sensitivity finding types (never the values).
    """

    record: MemoryRecord | None
    outcome: OutcomeKind
    reasons: tuple[str, ...]
    policy_version: str
    superseded: tuple[str, ...] = ()
    conflicts_with: tuple[str, ...] = ()
    findings: tuple[str, ...] = ()


@dataclass(frozen=True)
class SecurityEvent:
    """A sensitivity finding recorded in the log: types and where, never the value (R8)."""

    event_id: str
    ts: dt.datetime
    session_id: str
    finding_types: tuple[str, ...]
    action: str
    memory_id: str | None


@dataclass(frozen=True)
class InjectedItem:
    """One memory as injected into a model call, with why it was allowed (R13, R18)."""

    memory_id: str
    content: str
    kind: str
    scope: Scope
    why_visible: str
    score: float
    tokens: int
    notes: tuple[str, ...] = ()
    in_digest: bool = False
    revision: int = 1


@dataclass(frozen=True)
class RankedHit:
    """A retrieval hit with its final score and the signals behind it (R14)."""

    memory_id: str
    score: float
    signals: Mapping[str, float]


@dataclass(frozen=True)
class DroppedHit:
    """A hit that was not injected, and why (R18)."""

    memory_id: str
    reason: str
    score: float = 0.0


@dataclass(frozen=True)
class Snapshot:
    """Exactly what one model call was given (R18)."""

    id: str
    session_id: str | None
    ts: dt.datetime
    store_revision: int
    scope: Scope
    goal: str
    budget_tokens: int
    hits: tuple[RankedHit, ...]
    injected: tuple[InjectedItem, ...]
    dropped: tuple[DroppedHit, ...]
    text: str
    tokens: int
    policy_version: str
    index_version: str
    embedder: str
    degraded: bool = False
    purged_memory_ids: tuple[str, ...] = ()
    mode: str = HYBRID  # how the block was answered (`INJECT_MODES`)


@dataclass(frozen=True)
class InjectResult:
    """The reference block for a model call and the snapshot that records it."""

    text: str
    snapshot_id: str
    items: tuple[InjectedItem, ...]
    tokens: int
    degraded: bool = False
    mode: str = HYBRID  # how the block was answered (`INJECT_MODES`)


@dataclass(frozen=True)
class SearchHit:
    """A `search_memory` result with provenance (R13, R16)."""

    memory_id: str
    content: str
    kind: str
    scope: Scope
    confidence: float
    status: str
    score: float
    why_visible: str
    source_trust: str
    created_at: dt.datetime
    notes: tuple[str, ...] = ()
    said_at: dt.datetime | None = None  # the memory's own time, when it differs from created
    speaker: str | None = None  # who said it (#17)


@dataclass(frozen=True)
class ReplayItem:
    """A memory as a past model call saw it, and what has happened to it since (R21)."""

    memory_id: str
    content: str
    marks: tuple[str, ...]
    details: tuple[str, ...] = ()


@dataclass(frozen=True)
class Replay:
    """Diagnostic replay of a snapshot."""

    snapshot: Snapshot
    text: str
    items: tuple[ReplayItem, ...]


@dataclass(frozen=True)
class ResumeResult:
    """What the ResumeGate allows a resumed session to receive now (R21)."""

    session_id: str
    snapshot_id: str
    text: str
    items: tuple[InjectedItem, ...]
    removed: tuple[DroppedHit, ...]
    changed: tuple[str, ...]


@dataclass(frozen=True)
class Tombstone:
    """The record of a deletion (R19, R20)."""

    memory_id: str
    scope: Scope
    deleted_at: dt.datetime
    requested_by: str
    reason: str
    source_event_ids: tuple[str, ...]
    purged: bool
    cleaned: tuple[str, ...]
    report: tuple[str, ...] = ()


@dataclass(frozen=True)
class PurgePreview:
    """What a compliance purge of one memory would do, before it is done (#38, R19):
    each place that holds a copy and is redacted (with counts), and each place kept, with
    the reason."""

    memory_id: str
    purge_events: bool
    redacted: tuple[str, ...]
    kept: tuple[str, ...]


@dataclass(frozen=True)
class AdoptionChain:
    """Everything that led to and followed from one memory (R22)."""

    memory: MemoryRecord
    source_events: tuple[Event, ...]
    activation: Decision | None
    decisions: tuple[Decision, ...]
    injections: tuple[tuple[str, str | None, dt.datetime], ...]
    observations: tuple[Event, ...]
    sessions: tuple[str, ...]


@dataclass(frozen=True)
class QuarantineReport:
    """Outcome of the one-step incident quarantine (R22)."""

    memory: MemoryRecord
    affected_sessions: tuple[str, ...]
    snapshots: tuple[str, ...]


@dataclass(frozen=True)
class MemoryFilter:
    """Filters for listing memories in the memory center."""

    statuses: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    scope: Scope | None = None
    visible_to: Scope | None = None
    text: str | None = None
    source_trust: tuple[str, ...] = ()
    scope_contains: Scope | None = None
    # Effective statuses (with "expired") judged in SQL at `now` (the store clock if None).
    effective_statuses: tuple[str, ...] = ()
    now: dt.datetime | None = None
    # Only records in a conflict set (the review queue's conflicts: a few rows, not every
    # active memory of the store decrypted to find them, #43).
    in_conflict_set: bool = False
    # Keyset paging: only records after (updated_at, id) of the previous page's last record,
    # in the newest-first order; cheaper than a large OFFSET.
    after: tuple[dt.datetime, str] | None = None
    updated_from: dt.datetime | None = None
    updated_to: dt.datetime | None = None
    limit: int = 500
    offset: int = 0
    extra: Mapping[str, Any] = field(default_factory=dict)
