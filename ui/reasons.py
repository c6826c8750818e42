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
    ]


def reason_text(reason: str) -> str:
    """One recorded reason (or several joined by "; ") in plain, translated words."""
    parts = [p.strip() for p in _REFERENCES.sub("", reason).split(";") if p.strip()]
    exact = _exact()
    patterns = _patterns()
    out = []
    for part in parts:
        if part in exact:
            out.append(exact[part])
            continue
        for pattern, template in patterns:
            found = pattern.match(part)
            if found:
                text = template
                for i, value in enumerate(found.groups(), start=1):
                    text = text.replace(f"%{i}", value)
                out.append(text)
                break
        else:
            out.append(part)
    return "; ".join(out)


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
