"""MemoryPolicy: versioned rules that decide what a candidate becomes (R7, R8, R9, R11).

The policy is data (`PolicySettings`, stored per store and editable by the user) plus this
code; its `VERSION` is written on every decision. It never touches the database: the ledger
gives it the candidate and the related records, and writes what it decides.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from core.errors import InvalidInputError
from core.governance import classify, declared
from core.governance.authority import authority
from core.governance.conflicts import Relation, may_conflict
from core.governance.judge import Judgement, judge
from core.governance.sensitivity import Finding, FindingType, redact, scan
from core.governance.statements import speaker_relative
from core.governance.verdicts import Candidate, Origin, Verdict
from core.model.enums import MemoryFlag, MemoryKind, MemoryStatus, TrustLevel
from core.model.records import MemoryRecord
from core.model.scope import BOUNDARY_KEYS, SCOPE_KINDS, scope_kind

VERSION = "mp-2026.11.1"

CONFIRMED = MemoryFlag.USER_CONFIRMED
CONFLICT = MemoryFlag.CONFLICT
STALE = MemoryFlag.STALE
REDACTED = MemoryFlag.REDACTED
NEEDS_CONFIRMATION = MemoryFlag.NEEDS_CONFIRMATION
IMPORTED = MemoryFlag.IMPORTED
# The first reason of a memory its sources made active (R7): what a later answer about its
# relation may act on without the user (`model_settle.py`).
ASKED = "the user explicitly asked to remember it"
STATED = "stated by the user"
VERIFIED = "tool-verified fact with evidence"
EARNED_ACTIVE = (ASKED, STATED, VERIFIED)
STATED_FOR_REVIEW = f"{STATED}; suggested for review"


def _imported(cand: Candidate, status: MemoryStatus, reason: str) -> tuple[MemoryStatus, str]:
    """Imported text was said earlier, elsewhere: never the user asking now (a crafted file
    must not plant active memories), so it waits for review with its origin named."""
    where = f" ({cand.provenance})" if cand.provenance else ""
    if status != MemoryStatus.ACTIVE:
        return status, f"{reason}; imported{where}"
    return MemoryStatus.CANDIDATE, f"imported{where}: not said to you now; suggested for review"


def _check_setting(key: str, value: object, default: object) -> object:
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise InvalidInputError(f"policy.{key}", "must be true or false")
        return value
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 3650:
            raise InvalidInputError(
                f"policy.{key}", "must be a number of days above 0 and at most 3650"
            )
        return float(value)
    if isinstance(default, list):
        if isinstance(value, str):
            value = [v.strip() for v in value.split(",") if v.strip()]
        if not isinstance(value, (list, tuple)) or any(v not in SCOPE_KINDS for v in value):
            raise InvalidInputError(f"policy.{key}", f"must be a list of: {', '.join(SCOPE_KINDS)}")
        return tuple(value)
    if key == "pii_action" and value not in ("reject", "redact"):
        raise InvalidInputError("policy.pii_action", "must be 'reject' or 'redact'")
    return value


@dataclass(frozen=True)
class PolicySettings:
    """The user-editable part of the policy (stored in the store's settings)."""

    inferred_ttl_days: float = 14.0
    candidate_ttl_days: float = 30.0
    review_user_statements: bool = True
    untrusted_as_quarantine: bool = True
    confirm_global: bool = False
    # Scope kinds whose new memories always wait for the user, e.g. ("global", "org").
    confirm_scope_kinds: tuple[str, ...] = ()
    pii_action: str = "reject"  # or "redact": keep a redacted candidate for confirmation

    @classmethod
    def from_dict(cls, values: Mapping[str, object]) -> PolicySettings:
        """Validate stored or user-given values; unknown keys and bad values are refused."""
        base = cls()
        known = base.to_dict()
        out: dict[str, Any] = {}
        for key, value in values.items():
            if key not in known:
                raise InvalidInputError(
                    f"policy.{key}", f"unknown setting; known: {', '.join(known)}"
                )
            out[key] = _check_setting(key, value, known[key])
        return replace(base, **out)

    def to_dict(self) -> dict[str, object]:
        """Plain form for storage."""
        return {
            "inferred_ttl_days": self.inferred_ttl_days,
            "candidate_ttl_days": self.candidate_ttl_days,
            "review_user_statements": self.review_user_statements,
            "untrusted_as_quarantine": self.untrusted_as_quarantine,
            "confirm_global": self.confirm_global,
            "confirm_scope_kinds": list(self.confirm_scope_kinds),
            "pii_action": self.pii_action,
        }


BASE_CONFIDENCE = {
    TrustLevel.USER: 0.9,
    TrustLevel.TOOL_VERIFIED: 0.85,
    TrustLevel.ASSISTANT: 0.5,
    TrustLevel.UNTRUSTED: 0.2,
}


class MemoryPolicy:
    """Decides candidates. Stateless apart from its settings."""

    version = VERSION

    def __init__(self, settings: PolicySettings | None = None) -> None:
        self.settings = settings or PolicySettings()

    def decide(
        self,
        cand: Candidate,
        related: Sequence[MemoryRecord],
        *,
        now: dt.datetime,
        fenced_by: str | None = None,
        fence_reason: str = "the same content",
        similarity: Callable[[str, str], float | None] | None = None,
    ) -> Verdict:
        """Apply the rules in order; the first that settles the candidate wins.

        Args:
            cand: the candidate.
            related: active, pending and rejected records with the same scope.
            now: the store clock's current instant (for TTLs).
            fenced_by: id of a deleted memory whose content matches (deletion fence).
            fence_reason: how it matches (the same text, other words, the same meaning).
            similarity: the meaning similarity of two texts (the store's embedder), for the
                judge; None: the unit rules alone decide.
        """
        findings = tuple(scan(cand.content))
        if findings:
            return self._sensitive(cand, findings)
        if fenced_by and not (cand.explicit and cand.origin == Origin.REMEMBER):
            return self._reject(
                cand,
                f"matches deleted memory {fenced_by} (deletion fence: {fence_reason})",
                fenced_by,
            )
        if classify.is_temporary(cand.content) and cand.kind != MemoryKind.SKILL_SUGGESTION:
            return self._reject(cand, "a temporary constraint, not a long-term fact")
        verdict = self._base(cand, now)
        if cand.trust_untrusted and classify.is_instruction_like(cand.content):
            return replace(
                verdict,
                status=MemoryStatus.QUARANTINED,
                reasons=(
                    *verdict.reasons,
                    "instruction-like content from an untrusted source (R11)",
                ),
            )
        return self._relate(cand, verdict, related, similarity)

    # --- rules -----------------------------------------------------------------------

    def _sensitive(self, cand: Candidate, findings: tuple[Finding, ...]) -> Verdict:
        types = sorted({f.type.value for f in findings})
        secret = any(f.type.category == "secret" for f in findings)
        redacted = redact(cand.content, list(findings))
        if secret or self.settings.pii_action != "redact":
            what = "a secret" if secret else "personal data"
            return Verdict(
                status=MemoryStatus.REJECTED,
                reasons=(f"contains {what} ({', '.join(types)}); stored only redacted",),
                content=redacted,
                kind=cand.kind,
                confidence=0.0,
                flags=frozenset({REDACTED}),
                findings=findings,
            )
        return Verdict(
            status=MemoryStatus.CANDIDATE,
            reasons=(f"personal data ({', '.join(types)}) redacted; needs your confirmation",),
            content=redacted,
            kind=cand.kind,
            confidence=BASE_CONFIDENCE[cand.source_trust],
            flags=frozenset({REDACTED, NEEDS_CONFIRMATION}),
            findings=findings,
        )

    def _reject(self, cand: Candidate, reason: str, fenced_by: str | None = None) -> Verdict:
        # A fence refusal keeps no copy of what was refused (#38): the user deleted, maybe
        # purged, that content; the record says what happened, not what was said.
        content = f"[refused: matches deleted memory {fenced_by}]" if fenced_by else cand.content
        return Verdict(
            status=MemoryStatus.REJECTED,
            reasons=(reason,),
            content=content,
            kind=cand.kind,
            confidence=0.0,
            flags=frozenset({REDACTED}) if fenced_by else frozenset(),
            fenced_by=fenced_by,
        )

    def _base(self, cand: Candidate, now: dt.datetime) -> Verdict:
        """The R7 table: default outcome by source."""
        confidence = (
            cand.confidence if cand.confidence is not None else BASE_CONFIDENCE[cand.source_trust]
        )
        kind = cand.kind
        if kind == MemoryKind.SKILL_SUGGESTION or classify.is_procedure(cand.content):
            return Verdict(
                MemoryStatus.CANDIDATE,
                ("a reusable multi-step procedure: proposed as a skill, not stored as a fact",),
                cand.content,
                MemoryKind.SKILL_SUGGESTION,
                confidence,
            )
        status, reason, ttl = self._by_source(cand)
        flags: set[str] = set()
        if cand.explicit and cand.source_trust == TrustLevel.USER:
            flags.add(CONFIRMED)
        if status == MemoryStatus.ACTIVE and self._needs_scope_confirmation(cand):
            status = MemoryStatus.CANDIDATE
            reason = "broader scope than its evidence (cross-scope): needs your confirmation"
            flags.add(NEEDS_CONFIRMATION)
        elif status == MemoryStatus.CANDIDATE and self._broader_than_evidence(cand):
            flags.add(NEEDS_CONFIRMATION)
        if cand.origin == Origin.PRE_COMPRESS and status == MemoryStatus.ACTIVE:
            status, reason = (
                MemoryStatus.CANDIDATE,
                "extracted before compaction: candidates only (R12)",
            )
        if cand.origin == Origin.IMPORT:
            status, reason = _imported(cand, status, reason)
            flags.add(IMPORTED)
        expires = cand.expires_at
        if status == MemoryStatus.CANDIDATE and ttl is not None and expires is None:
            expires = now + dt.timedelta(days=ttl)
        return Verdict(status, (reason,), cand.content, kind, confidence, frozenset(flags), expires)

    def _by_source(self, cand: Candidate) -> tuple[MemoryStatus, str, float | None]:
        trust, s = cand.source_trust, self.settings
        if trust == TrustLevel.USER and cand.explicit:
            return MemoryStatus.ACTIVE, ASKED, None
        if trust == TrustLevel.USER:
            if s.review_user_statements:
                return MemoryStatus.CANDIDATE, STATED_FOR_REVIEW, s.candidate_ttl_days
            return MemoryStatus.ACTIVE, STATED, None
        if trust == TrustLevel.TOOL_VERIFIED:
            return MemoryStatus.ACTIVE, VERIFIED, None
        if trust == TrustLevel.ASSISTANT:
            return MemoryStatus.CANDIDATE, "inferred by the model: unconfirmed", s.inferred_ttl_days
        if s.untrusted_as_quarantine:
            return MemoryStatus.QUARANTINED, "from an untrusted source (web, e-mail, issue)", None
        return (
            MemoryStatus.CANDIDATE,
            "from an untrusted source: low confidence",
            s.candidate_ttl_days,
        )

    def _needs_scope_confirmation(self, cand: Candidate) -> bool:
        kind = scope_kind(cand.scope)
        if kind in self.settings.confirm_scope_kinds or (
            self.settings.confirm_global and kind == "global"
        ):
            return True
        return not cand.explicit and self._broader_than_evidence(cand)

    @staticmethod
    def _broader_than_evidence(cand: Candidate) -> bool:
        """True when the memory would cross projects or tenants its evidence came from (R7).

        Dropping only the `user` key shares a project fact with the project's team, which
        tool-verified facts may do; dropping project, repo, org or environment makes the
        memory cross-project or global, which needs the user's confirmation.
        """
        return any((set(ev) & BOUNDARY_KEYS) - set(cand.scope) for ev in cand.evidence_scopes if ev)

    def _relate(
        self,
        cand: Candidate,
        verdict: Verdict,
        related: Sequence[MemoryRecord],
        similarity: Callable[[str, str], float | None] | None = None,
    ) -> Verdict:
        """Duplicates merge; contradictions supersede or form a conflict set (R9, R10); a
        related pair the judge cannot decide sends the candidate to review (#40)."""
        said = declared.relations(cand, verdict, related, similarity)
        if said.settled is not None:
            return said.settled
        related = [r for r in related if r.id not in said.ids]
        skill = verdict.kind == MemoryKind.SKILL_SUGGESTION
        unsure: list[tuple[MemoryRecord, Judgement]] = []
        contradicted: list[tuple[MemoryRecord, Relation]] = []
        for old, found in _judged(cand, related, skill, similarity):
            rel = found.relation()
            if found.kind == "unsure":
                unsure.append((old, found))
            elif rel.kind == "duplicate":
                merged = _duplicate(cand, verdict, old, rel.reason)
                if merged is not None:
                    # What it was declared to replace goes too, replaced by the memory it
                    # merges into (which says the same as the new one).
                    return declared.with_replaced(merged, said) if merged.merge_into else merged
            elif rel.kind == "contradiction" and not skill:
                contradicted.append((old, rel))
        decided = declared.with_replaced(_contradictions(cand, verdict, contradicted), said)
        if unsure and not decided.supersedes and not decided.conflicts_with:
            asked = _ask(decided, list(decided.reasons), *unsure[0])
            if asked is not None:
                return asked
        return decided


def _contradictions(
    cand: Candidate, verdict: Verdict, contradicted: list[tuple[MemoryRecord, Relation]]
) -> Verdict:
    """Each contradiction supersedes, joins a conflict set, or sends the candidate to review."""
    supersedes: list[str] = []
    conflicts: list[str] = []
    why: list[tuple[str, str]] = []
    reasons = list(verdict.reasons)
    for old, rel in contradicted:
        outcome, prefix = _contradiction(cand, verdict, old, rel.replaces)
        if outcome != "skip":
            reasons.append(f"{prefix} {old.id} ({rel.reason})")
        if outcome == "review":
            flags = verdict.flags | {CONFLICT}
            return replace(
                verdict, status=MemoryStatus.CANDIDATE, reasons=tuple(reasons), flags=flags
            )
        if outcome == "supersede":
            supersedes.append(old.id)
            why.append((old.id, rel.reason))
        elif outcome == "conflict":
            conflicts.append(old.id)
    return replace(
        verdict,
        reasons=tuple(reasons),
        supersedes=tuple(supersedes),
        conflicts_with=tuple(conflicts),
        flags=verdict.flags | ({CONFLICT} if conflicts else set()),
        why=tuple(why),
    )


def _judged(
    cand: Candidate,
    related: Sequence[MemoryRecord],
    skill: bool,
    similarity: Callable[[str, str], float | None] | None,
) -> Iterator[tuple[MemoryRecord, Judgement]]:
    """Each related record with the judge's answer, except pairs that are two people's words
    and not-sure pairs with a record no longer live."""
    for old in related:
        if (old.kind == MemoryKind.SKILL_SUGGESTION) != skill:
            continue
        if similarity is None and not may_conflict(cand.content, old.content):
            continue
        sim = similarity(cand.content, old.content) if similarity is not None else None
        found = judge(cand.content, old.content, sim)
        kind = found.maybe if found.kind == "unsure" else found.kind
        if _two_people(cand, old, kind):
            continue
        live = old.status in (MemoryStatus.ACTIVE, MemoryStatus.CANDIDATE)
        if found.kind != "unsure" or live:
            yield old, found


def _ask(
    verdict: Verdict, reasons: list[str], old: MemoryRecord, found: Judgement
) -> Verdict | None:
    """A related pair the judge cannot decide: the candidate waits for the user's answer,
    the other memory named ("possibly the same as m_..."), never both silently kept."""
    if verdict.status not in (MemoryStatus.ACTIVE, MemoryStatus.CANDIDATE):
        return None
    reasons.append(f"{_POSSIBLY[found.maybe]} {old.id} ({found.reason}): please decide")
    return replace(
        verdict,
        status=MemoryStatus.CANDIDATE,
        reasons=tuple(reasons),
        flags=verdict.flags | {NEEDS_CONFIRMATION},
    )


_POSSIBLY = {
    "duplicate": "possibly the same as",
    "replaces": "possibly replaces",
    "contradiction": "possibly contradicts",
}


def _two_people(cand: Candidate, old: MemoryRecord, relation: str) -> bool:
    """True when a duplicate or contradiction is two people's words, not one memory's (#17).

    Two people's "Yes, I loved it!" are two turns, never merged; their "I live in Paris" and
    "I live in Berlin" are two people's homes. A statement with no speaker-relative subject
    ("the offsite is in Porto") still contradicts across speakers. Only when both speakers
    are known (names compared case-insensitively); measured on
    `benchmarks/data/speaker_pairs.jsonl`."""
    a, b = cand.speaker, old.speaker
    if relation == "unrelated" or not (a and b) or a.casefold() == b.casefold():
        return False
    relative = speaker_relative(cand.content) or speaker_relative(old.content)
    return relation == "duplicate" or relative


def _duplicate(cand: Candidate, verdict: Verdict, old: MemoryRecord, why: str) -> Verdict | None:
    """A near-duplicate merges into a live record; one rejected stays rejected, unless the
    user now explicitly asks to remember it (their word lifts a fence and an earlier
    refusal, #40)."""
    if old.status == MemoryStatus.REJECTED:
        if (
            cand.explicit
            and cand.origin == Origin.REMEMBER
            and verdict.status == MemoryStatus.ACTIVE
        ):
            return None
        reason = f"the user already rejected the same memory {old.id}"
        return replace(verdict, status=MemoryStatus.REJECTED, reasons=(reason,))
    if old.status in (MemoryStatus.ACTIVE, MemoryStatus.CANDIDATE):
        reason = f"near-duplicate of {old.id} ({why}): merged as more evidence"
        return replace(verdict, merge_into=old.id, reasons=(reason,))
    return None


def _contradiction(
    cand: Candidate, verdict: Verdict, old: MemoryRecord, replaces: bool
) -> tuple[str, str]:
    """What a contradiction with `old` does (R7, R9, R10).

    - a pending guess (candidate) is settled by an active memory of higher authority (a
      tool-verified fact, the user's word): superseded, with the link and the reason;
    - an active memory is superseded by higher authority, or at equal authority when the new
      statement says it replaces the old value; at equal authority otherwise both stay in a
      conflict set; a tool-verified fact against the user's own word is a conflict set too
      (the user decides); anything else of lower authority waits for review.

    Returns:
        (outcome, reason prefix): outcome is supersede, conflict, review, note or skip.
    """
    new_auth, old_auth = cand.source_trust.authority, authority(old)
    if old.status == MemoryStatus.CANDIDATE:
        if verdict.status == MemoryStatus.ACTIVE and new_auth > old_auth:
            return "supersede", "settles the pending guess"
        return "skip", ""
    if old.status != MemoryStatus.ACTIVE:
        return "skip", ""
    if verdict.status != MemoryStatus.ACTIVE:
        return "note", "contradicts active memory"
    if new_auth > old_auth or (new_auth == old_auth and replaces):
        return "supersede", "supersedes"
    if new_auth == old_auth or cand.source_trust == TrustLevel.TOOL_VERIFIED:
        return "conflict", "conflicts (both kept until you decide) with"
    return "review", "contradicts higher-authority memory"


__all__ = [
    "CONFIRMED",
    "CONFLICT",
    "EARNED_ACTIVE",
    "NEEDS_CONFIRMATION",
    "REDACTED",
    "STALE",
    "STATED_FOR_REVIEW",
    "VERSION",
    "Candidate",
    "FindingType",
    "MemoryPolicy",
    "Origin",
    "PolicySettings",
    "Verdict",
    "authority",
]
