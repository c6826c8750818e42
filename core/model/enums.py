"""Vocabularies of the store (R2, R4, R5). Values are the spec's own words."""

from __future__ import annotations

import enum


class Actor(enum.StrEnum):
    """Who produced an event."""

    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    SYSTEM = "system"


class TrustLevel(enum.StrEnum):
    """How far an event's content may be believed (R2), highest first."""

    USER = "user"
    TOOL_VERIFIED = "tool_verified"
    ASSISTANT = "assistant"
    UNTRUSTED = "untrusted"

    @property
    def authority(self) -> int:
        """Rank for comparisons: higher means more authoritative."""
        return _AUTHORITY[self]


_AUTHORITY = {
    TrustLevel.USER: 3,
    TrustLevel.TOOL_VERIFIED: 2,
    TrustLevel.ASSISTANT: 1,
    TrustLevel.UNTRUSTED: 0,
}


class EventKind(enum.StrEnum):
    """What an event records (R1)."""

    MESSAGE = "message"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    COMPACTION = "compaction"
    PERMISSION = "permission"
    BRANCH = "branch"
    ERROR = "error"
    OBSERVATION = "observation"
    MEMORY_DECISION = "memory_decision"
    SECURITY = "security"
    DEGRADED = "degraded"
    AGENT_CALL = "agent_call"
    REDACTION = "redaction"


# Kinds only the engine writes: its decisions, redactions and security findings decide what
# the log means (a decision's `to` status, a redaction's list of redacted payloads, a finding
# that excludes a row), so none may come through the public append path (#38).
ENGINE_EVENT_KINDS = frozenset({EventKind.MEMORY_DECISION, EventKind.REDACTION, EventKind.SECURITY})


class EventSource(enum.StrEnum):
    """Where an event's content came from (drives trust, R11)."""

    CHAT = "chat"
    WEB_PAGE = "web_page"
    SEARCH_RESULT = "search_result"
    EMAIL = "email"
    ISSUE = "issue"
    DOCUMENT = "document"
    TERMINAL = "terminal"
    CI = "ci"
    FILE = "file"
    IMPORT = "import"
    SYSTEM = "system"


class MemoryKind(enum.StrEnum):
    """Kinds of curated memory (R4). Skill suggestions are kept apart from facts."""

    PREFERENCE = "preference"
    FACT = "fact"
    CONVENTION = "convention"
    DECISION = "decision"
    SKILL_SUGGESTION = "skill_suggestion"


class MemoryStatus(enum.StrEnum):
    """Stored statuses of a memory record (R5)."""

    CANDIDATE = "candidate"
    ACTIVE = "active"
    DISABLED = "disabled"
    SUPERSEDED = "superseded"
    QUARANTINED = "quarantined"
    REJECTED = "rejected"
    DELETED = "deleted"


class MemoryFlag(enum.StrEnum):
    """Markers on a memory record beside its status; a record carries any set of them."""

    USER_CONFIRMED = "user_confirmed"
    CONFLICT = "conflict"
    STALE = "stale"
    REDACTED = "redacted"
    NEEDS_CONFIRMATION = "needs_confirmation"
    POLICY_TTL = "policy_ttl"  # the expiry came from the policy, not from the user
    EXPIRED = "expired"  # the expiry was noticed and recorded in the history
    IMPORTED = "imported"  # said earlier, elsewhere (a transcript import): waits for review


class OutcomeKind(enum.StrEnum):
    """What the MemoryPolicy did with one candidate: the status it got, or merged."""

    ACTIVE = "active"
    CANDIDATE = "candidate"
    QUARANTINED = "quarantined"
    REJECTED = "rejected"
    MERGED = "merged"


class Sensitivity(enum.StrEnum):
    """What the sensitivity scan found in a record's content (R8)."""

    NONE = "none"
    REDACTED = "redacted"
    SENSITIVE = "sensitive"


class ChangeKind(enum.StrEnum):
    """Areas a committed change touched; views refresh only what changed."""

    EVENTS = "events"
    SESSIONS = "sessions"
    MEMORIES = "memories"
    CANDIDATES = "candidates"
    POLICY = "policy"
    INDEX = "index"
    SETTINGS = "settings"
    KEYS = "keys"
    SNAPSHOTS = "snapshots"
