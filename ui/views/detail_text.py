"""Rich-text blocks of the detail panel (kept apart so the panel stays small)."""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication

from core import Decision, Event, Scope

from ui.presentation import actor_text, local_time, status_text, trust_text
from ui.reasons import action_text, reason_text

Revision = tuple[int, dt.datetime, str, Scope, str]


def sources_html(events: Sequence[Event]) -> str:
    """Each source event with its session as a link (click jumps to the Sessions view)."""
    if not events:
        return QCoreApplication.translate("Detail", "No source events.")
    rows = []
    for e in events:
        text = (
            html.escape(e.text[:240])
            if not e.redacted
            else QCoreApplication.translate("Detail", "(redacted)")
        )
        name = html.escape(e.session_id)
        rows.append(
            f'<p><a href="session:{name}#{e.id}">{name}</a>'
            f" · {local_time(e.ts)} · {html.escape(actor_text(e.actor.value))} · "
            f"{html.escape(trust_text(e.trust.value))}<br>{text}</p>"
        )
    return "".join(rows)


def history_html(decisions: Sequence[Decision]) -> str:
    """Every decision, oldest first: when, what, who, why, which policy."""
    if not decisions:
        return "—"
    rows = []
    for d in decisions:
        after = status_text(d.to_status.value)
        if d.from_status is None:
            change = QCoreApplication.translate("Detail", "new, %1").replace("%1", after)
        elif d.from_status != d.to_status:
            change = (
                QCoreApplication.translate("Detail", "%1, now %2")
                .replace("%1", status_text(d.from_status.value))
                .replace("%2", after)
            )
        else:
            change = after
        by = QCoreApplication.translate("Detail", "by %1").replace("%1", d.actor)
        rows.append(
            f"<li><b>{html.escape(action_text(d.action))}</b> ({html.escape(change)}) · "
            f"{local_time(d.ts)} · {html.escape(by)}<br>"
            f"<i>{html.escape(reason_text(d.reason))}</i></li>"
        )
    return f"<ul>{''.join(rows)}</ul>"


def revisions_html(revisions: Sequence[Revision]) -> str:
    """Each stored revision: number, time, actor, scope and text."""
    rows = []
    for number, ts, actor, scope, content in reversed(revisions):
        text = (
            html.escape(content[:240])
            if content
            else QCoreApplication.translate("Detail", "(purged)")
        )
        rows.append(
            f"<li>#{number} · {local_time(ts)} · {html.escape(actor)} · "
            f"{html.escape(str(scope))}<br>{text}</li>"
        )
    return f"<ul>{''.join(rows)}</ul>" if rows else "—"
