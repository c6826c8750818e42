"""A model call's snapshot as rich text: injected, dropped and why, what changed since (R27)."""

from __future__ import annotations

import html

from PySide6.QtCore import QCoreApplication

from core import Replay

from ui.presentation import local_time


def replay_html(rep: Replay) -> str:
    """What was injected (with marks of what changed since) and what was dropped and why."""
    snap = rep.snapshot
    head = (
        f"<p><b>{html.escape(snap.goal[:200])}</b><br>{local_time(snap.ts)} · "
        + QCoreApplication.translate("Snapshot", "store revision")
        + f" {snap.store_revision} · {snap.tokens}/{snap.budget_tokens} "
        + QCoreApplication.translate("Snapshot", "tokens")
        + f" · {html.escape(snap.policy_version)}"
        + (
            " · " + QCoreApplication.translate("Snapshot", "degraded: memory was unavailable")
            if snap.degraded
            else ""
        )
        + "</p>"
    )
    items = []
    for item in rep.items:
        marks = ", ".join(item.marks)
        mark_html = f" <b>[{html.escape(marks)}]</b>" if marks else ""
        text = (
            html.escape(item.content[:200])
            if item.content
            else QCoreApplication.translate("Snapshot", "(purged)")
        )
        items.append(f'<li><a href="memory:{item.memory_id}">{text}</a>{mark_html}</li>')
    dropped = [
        f'<li><a href="memory:{d.memory_id}">{d.memory_id}</a>: {html.escape(d.reason)}</li>'
        for d in snap.dropped
    ]
    body = (
        head
        + "<h4>"
        + QCoreApplication.translate("Snapshot", "Injected")
        + f" ({len(rep.items)})</h4>"
    )
    body += f"<ul>{''.join(items)}</ul>" if items else "<p>—</p>"
    body += (
        "<h4>"
        + QCoreApplication.translate("Snapshot", "Dropped, and why")
        + f" ({len(dropped)})</h4>"
    )
    body += f"<ul>{''.join(dropped)}</ul>" if dropped else "<p>—</p>"
    return body
