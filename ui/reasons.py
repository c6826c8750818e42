"""The engine's reasons and decisions in plain, translated words.

The core records its reasons in English (they are part of the audit trail and stay as they
are). The memory center shows them translated, without requirement references such as
"(R11)" or policy versions; a reason it does not know is shown as recorded.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication

_REFERENCES = re.compile(r"\s*\((?:R\d+)(?:,\s*R\d+)*\)")


def _t(text: str) -> str:
    return QCoreApplication.translate("Reason", text)


def _exact() -> dict[str, str]:
    return {
        "the user explicitly asked to remember it": _t("you asked to remember it"),
        "stated by the user; suggested for review": _t("you said it; waiting for your review"),
        "stated by the user": _t("you said it"),
        "tool-verified fact with evidence": _t("a fact a tool checked, with evidence"),
        "inferred by the model: unconfirmed": _t("the assistant guessed it; not confirmed"),
        "from an untrusted source (web, e-mail, issue)": _t(
            "from a source that is not trusted (web page, e-mail, issue)"
        ),
        "from an untrusted source: low confidence": _t("from a source that is not trusted"),
        "instruction-like content from an untrusted source": _t(
            "reads like an instruction to the assistant, from a source that is not trusted"
        ),
        "a temporary constraint, not a long-term fact": _t(
            "a temporary situation, not a lasting fact"
        ),
        "broader scope than its evidence (cross-scope): needs your confirmation": _t(
            "would apply more widely than where it was said: needs your confirmation"
        ),
        "extracted before compaction: candidates only": _t(
            "picked up before the conversation was shortened: suggestions only"
        ),
        "a reusable multi-step procedure: proposed as a skill, not stored as a fact": _t(
            "a reusable procedure: suggested as a skill, not stored as a fact"
        ),
        "approved by the user": _t("approved by you"),
        "rejected by the user": _t("rejected by you"),
        "disabled by the user": _t("disabled by you"),
        "re-enabled by the user": _t("enabled again by you"),
        "disabled in the memory center": _t("disabled in the memory center"),
        "conflict resolved by the user": _t("conflict settled by you"),
        "kept in the review queue": _t("kept in the review queue"),
        "both kept by the user": _t("both kept by you"),
        "compliance purge: content destroyed": _t("purged: the text was destroyed"),
    }


def _patterns() -> list[tuple[re.Pattern[str], str]]:
    return [
        (re.compile(r"^content edited \(revision (\d+)\)$"), _t("wording changed (version %1)")),
        (re.compile(r"^scope (.+) -> (.+)$"), _t("scope changed from %1 to %2")),
        (re.compile(r"^excluded from session (.+)$"), _t("kept out of session %1")),
        (re.compile(r"^included again in session (.+)$"), _t("allowed again in session %1")),
        (re.compile(r"^undone by the user: (\w+) of (.+)$"), _t("undone by you (%1 of %2)")),
        (
            re.compile(r"^the user already rejected the same memory (\S+)$"),
            _t("you already rejected the same memory (%1)"),
        ),
        (
            re.compile(r"^matches deleted memory (\S+) \(deletion fence\)$"),
            _t("matches a memory you deleted (%1)"),
        ),
        (re.compile(r"^validity ended at (.+)$"), _t("stopped being valid at %1")),
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
        "remember": _t("Remembered"),
        "suggest": _t("Suggested"),
        "extract": _t("Picked up from a conversation"),
        "import": _t("Imported"),
        "approve": _t("Approved"),
        "reject": _t("Rejected"),
        "edit": _t("Wording changed"),
        "downgrade": _t("Scope narrowed"),
        "widen": _t("Scope widened"),
        "disable": _t("Disabled"),
        "enable": _t("Enabled again"),
        "exclude": _t("Kept out of a session"),
        "include": _t("Allowed in a session again"),
        "quarantine": _t("Quarantined"),
        "resolve_conflict": _t("Conflict settled"),
        "keep_conflicting": _t("Conflict settled: all kept"),
        "delete": _t("Deleted"),
        "purge": _t("Purged"),
        "supersede": _t("Replaced"),
        "merge": _t("Merged with more evidence"),
        "expire": _t("Expired"),
        "observe": _t("Observation recorded"),
        "undo_approve": _t("Approval undone"),
        "undo_reject": _t("Rejection undone"),
        "undo_quarantine": _t("Quarantine undone"),
    }
    return words.get(action, action.replace("_", " ").capitalize())
