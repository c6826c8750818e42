"""The engine's reasons and decisions in plain, translated words.

The core records its reasons in English (they are part of the audit trail and stay as they
are). The memory center shows them translated, without requirement references such as
"(R11)" or policy versions; a reason it does not know is shown as recorded.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication

_REFERENCES = re.compile(r"\s*\((?:R\d+)(?:,\s*R\d+)*\)")


def _exact() -> dict[str, str]:
    return {
        "the user explicitly asked to remember it": QCoreApplication.translate(
            "Reason", "you asked to remember it"
        ),
        "stated by the user; suggested for review": QCoreApplication.translate(
            "Reason", "you said it; waiting for your review"
        ),
        "stated by the user": QCoreApplication.translate("Reason", "you said it"),
        "tool-verified fact with evidence": QCoreApplication.translate(
            "Reason", "a fact a tool checked, with evidence"
        ),
        "inferred by the model: unconfirmed": QCoreApplication.translate(
            "Reason", "the assistant guessed it; not confirmed"
        ),
        "from an untrusted source (web, e-mail, issue)": QCoreApplication.translate(
            "Reason", "from a source that is not trusted (web page, e-mail, issue)"
        ),
        "from an untrusted source: low confidence": QCoreApplication.translate(
            "Reason", "from a source that is not trusted"
        ),
        "instruction-like content from an untrusted source": QCoreApplication.translate(
            "Reason",
            "reads like an instruction to the assistant, from a source that is not trusted",
        ),
        "a temporary constraint, not a long-term fact": QCoreApplication.translate(
            "Reason", "a temporary situation, not a lasting fact"
        ),
        "broader scope than its evidence (cross-scope): needs your confirmation": QCoreApplication.translate(  # noqa: E501
            "Reason", "would apply more widely than where it was said: needs your confirmation"
        ),
        "extracted before compaction: candidates only": QCoreApplication.translate(
            "Reason", "picked up before the conversation was shortened: suggestions only"
        ),
        "a reusable multi-step procedure: proposed as a skill, not stored as a fact": QCoreApplication.translate(  # noqa: E501
            "Reason", "a reusable procedure: suggested as a skill, not stored as a fact"
        ),
        "approved by the user": QCoreApplication.translate("Reason", "approved by you"),
        "rejected by the user": QCoreApplication.translate("Reason", "rejected by you"),
        "disabled by the user": QCoreApplication.translate("Reason", "disabled by you"),
        "re-enabled by the user": QCoreApplication.translate("Reason", "enabled again by you"),
        "disabled in the memory center": QCoreApplication.translate(
            "Reason", "disabled in the memory center"
        ),
        "conflict resolved by the user": QCoreApplication.translate(
            "Reason", "conflict settled by you"
        ),
        "kept in the review queue": QCoreApplication.translate(
            "Reason", "kept in the review queue"
        ),
        "both kept by the user": QCoreApplication.translate("Reason", "both kept by you"),
        "compliance purge: content destroyed": QCoreApplication.translate(
            "Reason", "purged: the text was destroyed"
        ),
        "suggested for review": QCoreApplication.translate("Reason", "waiting for your review"),
        "imported": QCoreApplication.translate("Reason", "imported"),
        "imported: not said to you now": QCoreApplication.translate(
            "Reason", "imported: said earlier, not to you now"
        ),
        "stored only redacted": QCoreApplication.translate(
            "Reason", "only a redacted copy is kept"
        ),
        "needs your confirmation": QCoreApplication.translate("Reason", "needs your confirmation"),
        "same text after normalisation": QCoreApplication.translate("Reason", "the same text"),
        "same statement in other words (a word rephrased)": QCoreApplication.translate(
            "Reason", "the same statement in other words"
        ),
    }


def _patterns() -> list[tuple[re.Pattern[str], str]]:
    return [
        (
            re.compile(r"^content edited \(revision (\d+)\)$"),
            QCoreApplication.translate("Reason", "wording changed (version %1)"),
        ),
        (
            re.compile(r"^scope (.+) -> (.+)$"),
            QCoreApplication.translate("Reason", "scope changed from %1 to %2"),
        ),
        (
            re.compile(r"^excluded from session (.+)$"),
            QCoreApplication.translate("Reason", "kept out of session %1"),
        ),
        (
            re.compile(r"^included again in session (.+)$"),
            QCoreApplication.translate("Reason", "allowed again in session %1"),
        ),
        (
            re.compile(r"^undone by the user: (\w+) of (.+)$"),
            QCoreApplication.translate("Reason", "undone by you (%1 of %2)"),
        ),
        (
            re.compile(r"^the user already rejected the same memory (\S+)$"),
            QCoreApplication.translate("Reason", "you already rejected the same memory (%1)"),
        ),
        (
            re.compile(r"^matches deleted memory (\S+) \(deletion fence\)$"),
            QCoreApplication.translate("Reason", "matches a memory you deleted (%1)"),
        ),
        (
            re.compile(r"^validity ended at (.+)$"),
            QCoreApplication.translate("Reason", "stopped being valid at %1"),
        ),
        (
            re.compile(r"^imported \((.+)\)$"),
            QCoreApplication.translate("Reason", "imported (%1)"),
        ),
        (
            re.compile(r"^imported \((.+)\): not said to you now$"),
            QCoreApplication.translate("Reason", "imported (%1): said earlier, not to you now"),
        ),
        (
            re.compile(r"^kept: (.+)$"),
            QCoreApplication.translate("Reason", "kept: %1"),
        ),
        (
            re.compile(r"^superseded by (\S+): (.+)$"),
            QCoreApplication.translate("Reason", "replaced by %1: %2"),
        ),
        (
            re.compile(r"^(\S+), file (.+), session (\S+)$"),
            QCoreApplication.translate("Reason", "%1, file %2, session %3"),
        ),
        (
            re.compile(r"^(\S+), session (\S+)$"),
            QCoreApplication.translate("Reason", "%1, session %2"),
        ),
        (
            re.compile(r"^contains a secret \((.+)\)$"),
            QCoreApplication.translate("Reason", "contains a secret (%1)"),
        ),
        (
            re.compile(r"^contains personal data \((.+)\)$"),
            QCoreApplication.translate("Reason", "contains personal data (%1)"),
        ),
        (
            re.compile(r"^personal data \((.+)\) redacted$"),
            QCoreApplication.translate("Reason", "personal data (%1) hidden"),
        ),
        (
            re.compile(r"^conflicts \(both kept until you decide\) with (\S+)(?: \((.*)\))?$"),
            QCoreApplication.translate(
                "Reason", "in conflict with %1, both kept until you decide (%2)"
            ),
        ),
        (
            re.compile(r"^supersedes (\S+)(?: \((.*)\))?$"),
            QCoreApplication.translate("Reason", "replaces %1 (%2)"),
        ),
        (
            re.compile(r"^settles the pending guess (\S+)(?: \((.*)\))?$"),
            QCoreApplication.translate("Reason", "settles the unconfirmed guess %1 (%2)"),
        ),
        (
            re.compile(r"^contradicts active memory (\S+)(?: \((.*)\))?$"),
            QCoreApplication.translate("Reason", "contradicts the memory %1 (%2)"),
        ),
        (
            re.compile(r"^contradicts higher-authority memory (\S+)(?: \((.*)\))?$"),
            QCoreApplication.translate(
                "Reason", "contradicts %1, a memory from a better source (%2)"
            ),
        ),
        (
            re.compile(r"^near-duplicate of (\S+) \((.*)\): merged as more evidence$"),
            QCoreApplication.translate(
                "Reason", "almost the same as %1 (%2): added to it as more evidence"
            ),
        ),
        (
            re.compile(r"^same subject \((.*)\) with a different value: (.+)$"),
            QCoreApplication.translate("Reason", "same subject (%1), another value: %2"),
        ),
        (
            re.compile(
                r"^one denies what the other states \((new|old) statement is negated; "
                r"same subject: (.*)\)$"
            ),
            QCoreApplication.translate(
                "Reason", "one denies what the other says (%1; same subject: %2)"
            ),
        ),
        (
            re.compile(
                r"^says it replaces (.+), which the older memory states "
                r"\(same subject: (.*)\)$"
            ),
            QCoreApplication.translate(
                "Reason", "says it replaces %1, which the older memory says (same subject: %2)"
            ),
        ),
        # The governance judge's relations and its not-sure questions (#40). The numbers and
        # canonical values in parentheses are the judge's working, shown as recorded in
        # English and left out where a translation says it in words.
        (
            re.compile(r"^possibly the same as (\S+) \((.*)\): please decide$"),
            QCoreApplication.translate("Reason", "possibly the same as %1 (%2): please decide"),
        ),
        (
            re.compile(r"^possibly replaces (\S+) \((.*)\): please decide$"),
            QCoreApplication.translate("Reason", "possibly replaces %1 (%2): please decide"),
        ),
        (
            re.compile(r"^possibly contradicts (\S+) \((.*)\): please decide$"),
            QCoreApplication.translate("Reason", "possibly contradicts %1 (%2): please decide"),
        ),
        (
            re.compile(r"^the same fact in other words \((.*)\)$"),
            QCoreApplication.translate("Reason", "the same fact in other words (%1)"),
        ),
        (
            re.compile(r"^the same statement in other words \((.*)\)$"),
            QCoreApplication.translate("Reason", "the same statement in other words (%1)"),
        ),
        (
            re.compile(r"^same subject, another value \((.*)\)$"),
            QCoreApplication.translate("Reason", "same subject, another value (%1)"),
        ),
        (
            re.compile(r"^related \((.*)\)$"),
            QCoreApplication.translate("Reason", "related (%1)"),
        ),
        (
            re.compile(r"^meaning similarity ([0-9.]+)$"),
            QCoreApplication.translate("Reason", "meaning similarity %1"),
        ),
        (
            re.compile(r"^adds detail \((.*)\)$"),
            QCoreApplication.translate("Reason", "adds detail (%1)"),
        ),
        (
            re.compile(r"^a more precise value \((.*)\)$"),
            QCoreApplication.translate("Reason", "a more precise value (%1)"),
        ),
        (
            re.compile(r"^about a different subject \((.*)\)$"),
            QCoreApplication.translate("Reason", "about another subject (%1)"),
        ),
        (
            re.compile(r"^pending guess rejected: contradicted by observation (\S+): (.+)$"),
            QCoreApplication.translate(
                "Reason", "unconfirmed guess rejected: an observation (%1) says otherwise: %2"
            ),
        ),
        (
            re.compile(
                r"^deletion fence lifted: the user explicitly asked to remember it "
                r"again \(memory (\S+)\)$"
            ),
            QCoreApplication.translate(
                "Reason", "no longer blocked: you asked to remember it again (memory %1)"
            ),
        ),
    ]


# Values inside a reason that are words of the engine, not of the user's data.
def _values() -> dict[str, str]:
    return {
        "new": QCoreApplication.translate("Reason", "the new statement is negated"),
        "old": QCoreApplication.translate("Reason", "the old statement is negated"),
    }


def _split(reason: str) -> list[str]:
    """Parts joined by "; ", never splitting inside parentheses (a relation's reason may
    hold its own "; ")."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(reason):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
        elif ch == ";" and depth == 0:
            parts.append(reason[start:i])
            start = i + 1
    parts.append(reason[start:])
    return [p.strip() for p in parts if p.strip()]


def _one(part: str, exact: dict[str, str], patterns: list[tuple[re.Pattern[str], str]]) -> str:
    """One part in words: exact, by pattern (whose values may be reasons too), else as is."""
    if part in exact:
        return exact[part]
    for pattern, template in patterns:
        found = pattern.match(part)
        if found:
            text = template
            values = _values()
            for i, value in enumerate(found.groups(), start=1):
                value = value or ""
                shown = values.get(value) or (_parts(value, exact, patterns) if value else "—")
                text = text.replace(f"%{i}", shown)
            return text
    return part


def _parts(value: str, exact: dict[str, str], patterns: list[tuple[re.Pattern[str], str]]) -> str:
    """A value inside a reason, which may itself be reasons joined by "; "."""
    separator = QCoreApplication.translate("Reason", "; ")
    return separator.join(_one(part, exact, patterns) for part in _split(value))


def reason_text(reason: str) -> str:
    """One recorded reason (or several joined by "; ") in plain, translated words."""
    parts = _split(_REFERENCES.sub("", reason))
    exact = _exact()
    patterns = _patterns()
    out = []
    i = 0
    while i < len(parts):
        # The longest run of parts that is one known reason ("stated by the user; suggested
        # for review" is one), else the part alone.
        for j in range(len(parts), i, -1):
            joined = "; ".join(parts[i:j])
            if j == i + 1 or joined in exact:
                out.append(_one(joined, exact, patterns))
                i = j
                break
    separator = QCoreApplication.translate("Reason", "; ")
    return separator.join(out)


def action_text(action: str) -> str:
    """A decision's action in plain, translated words."""
    words = {
        "remember": QCoreApplication.translate("Reason", "Remembered"),
        "suggest": QCoreApplication.translate("Reason", "Suggested"),
        "extract": QCoreApplication.translate("Reason", "Picked up from a conversation"),
        "import": QCoreApplication.translate("Reason", "Imported"),
        "approve": QCoreApplication.translate("Reason", "Approved"),
        "reject": QCoreApplication.translate("Reason", "Rejected"),
        "edit": QCoreApplication.translate("Reason", "Wording changed"),
        "downgrade": QCoreApplication.translate("Reason", "Scope narrowed"),
        "widen": QCoreApplication.translate("Reason", "Scope widened"),
        "disable": QCoreApplication.translate("Reason", "Disabled"),
        "enable": QCoreApplication.translate("Reason", "Enabled again"),
        "exclude": QCoreApplication.translate("Reason", "Kept out of a session"),
        "include": QCoreApplication.translate("Reason", "Allowed in a session again"),
        "quarantine": QCoreApplication.translate("Reason", "Quarantined"),
        "resolve_conflict": QCoreApplication.translate("Reason", "Conflict settled"),
        "keep_conflicting": QCoreApplication.translate("Reason", "Conflict settled: all kept"),
        "delete": QCoreApplication.translate("Reason", "Deleted"),
        "purge": QCoreApplication.translate("Reason", "Purged"),
        "supersede": QCoreApplication.translate("Reason", "Replaced"),
        "merge": QCoreApplication.translate("Reason", "Merged with more evidence"),
        "expire": QCoreApplication.translate("Reason", "Expired"),
        "observe": QCoreApplication.translate("Reason", "Observation recorded"),
        "undo_approve": QCoreApplication.translate("Reason", "Approval undone"),
        "undo_reject": QCoreApplication.translate("Reason", "Rejection undone"),
        "undo_quarantine": QCoreApplication.translate("Reason", "Quarantine undone"),
    }
    return words.get(action, action.replace("_", " ").capitalize())
