"""What the policy decides about (`Candidate`) and what it decides (`Verdict`), apart from the
rules themselves (`policy.py`), so that the modules the rules call (`declared.py`) can name
them without importing the policy."""

from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass, field

from core.governance.sensitivity import Finding
from core.model.enums import MemoryKind, MemoryStatus, OutcomeKind, TrustLevel
from core.model.scope import Scope


class Origin(enum.StrEnum):
    """How a candidate arrived."""

    REMEMBER = "remember"
    SUGGEST = "suggest"
    EXTRACT = "extract"
    PRE_COMPRESS = "pre_compress"
    IMPORT = "import"


@dataclass(frozen=True)
class Candidate:
    """A proposed memory. Its trust comes from its source events, never from the caller."""

    content: str
    kind: MemoryKind
    scope: Scope
    source_event_ids: tuple[str, ...]
    source_trust: TrustLevel
    origin: Origin
    owner: str
    explicit: bool = False
    evidence_scopes: tuple[Scope, ...] = ()
    expires_at: dt.datetime | None = None
    confidence: float | None = None
    said_at: dt.datetime | None = None  # when it was said or observed (becomes valid_from)
    speaker: str | None = None  # who said it (kept out of the text)
    # Where imported content came from (importer, file, session), shown in the decision.
    provenance: str = ""
    # What the writer says this memory replaces, or restates (#40): ids of live memories
    # of the same scope, checked by the ledger; the policy still decides by trust.
    replaces: tuple[str, ...] = ()
    same_as: str | None = None

    @property
    def trust_untrusted(self) -> bool:
        """True when the sources include untrusted content (trust follows sources, R11)."""
        return self.source_trust == TrustLevel.UNTRUSTED


@dataclass(frozen=True)
class Verdict:
    """What the policy decided for one candidate."""

    status: MemoryStatus
    reasons: tuple[str, ...]
    content: str
    kind: MemoryKind
    confidence: float
    flags: frozenset[str] = field(default_factory=frozenset)
    expires_at: dt.datetime | None = None
    merge_into: str | None = None
    supersedes: tuple[str, ...] = ()
    conflicts_with: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()
    fenced_by: str | None = None
    store: bool = True
    # The relation behind each supersede, by old record id, so every link has its own reason.
    why: tuple[tuple[str, str], ...] = ()

    @property
    def outcome(self) -> OutcomeKind:
        """One word for callers: merged, or the status."""
        return OutcomeKind.MERGED if self.merge_into else OutcomeKind(self.status.value)
