"""A model call's snapshot as rich text: injected, dropped and why, what changed since (R27).

Memories that contradicted each other in the same call are marked, with a link to the other
one, so a replay never hides that the model was given two conflicting notes (R9).
"""

from __future__ import annotations

import html

from PySide6.QtCore import QCoreApplication

from core import Replay

from ui.presentation import local_time

# The wording of core.workflows.replay's conflict detail.
CONTRADICTS, SAME_CALL = "contradicts ", " in the same call"


def mark_text(mark: str) -> str:
    """A replay mark in plain words."""
    words = {
        "deleted": QCoreApplication.translate("Snapshot", "deleted since"),
        "superseded": QCoreApplication.translate("Snapshot", "replaced since"),
        "disabled": QCoreApplication.translate("Snapshot", "disabled since"),
        "quarantined": QCoreApplication.translate("Snapshot", "quarantined since"),
        "expired": QCoreApplication.translate("Snapshot", "expired since"),
        "purged": QCoreApplication.translate("Snapshot", "purged since"),
        "edited": QCoreApplication.translate("Snapshot", "edited since"),
        "rescoped": QCoreApplication.translate("Snapshot", "scope changed since"),
        "stale": QCoreApplication.translate("Snapshot", "may be out of date"),
        "conflict": QCoreApplication.translate("Snapshot", "contradicts another memory here"),
    }
    return words.get(mark, mark)


def _item_html(memory_id: str, content: str, marks: tuple[str, ...], others: list[str]) -> str:
    text = (
        html.escape(content[:200])
        if content
        else QCoreApplication.translate("Snapshot", "(purged)")
    )
    words = [mark_text(m) for m in marks]
    mark_html = f" <b>[{html.escape(', '.join(words))}]</b>" if words else ""
    if others:
        # Translated outside the f-string: lupdate does not find a call inside one.
        other = QCoreApplication.translate("Snapshot", "the other memory")
        links = ", ".join(f'<a href="memory:{o}">{other}</a>' for o in others)
        mark_html += " ⚠ " + QCoreApplication.translate("Snapshot", "see %1").replace("%1", links)
    style = ' style="background-color:#fff4e0"' if others else ""
    return f'<li{style}><a href="memory:{memory_id}">{text}</a>{mark_html}</li>'


def _partners(details: tuple[str, ...]) -> list[str]:
    """The other memories of the call an item contradicts (from the core's replay details)."""
    for line in details:
        if line.startswith(CONTRADICTS) and line.endswith(SAME_CALL):
            return line[len(CONTRADICTS) : -len(SAME_CALL)].split(", ")
    return []


def replay_html(rep: Replay) -> str:
    """What was injected (with marks of what changed since) and what was dropped and why."""
    snap = rep.snapshot
    head = (
        f"<p><b>{html.escape(snap.goal[:200])}</b><br>{local_time(snap.ts)} · "
        + QCoreApplication.translate("Snapshot", "%1 of %2 tokens used")
        .replace("%1", str(snap.tokens))
        .replace("%2", str(snap.budget_tokens))
        + (
            " · " + QCoreApplication.translate("Snapshot", "degraded: memory was unavailable")
            if snap.degraded
            else ""
        )
        + "</p>"
    )
    conflicting = {i.memory_id for i in rep.items if "conflict" in i.marks}
    items = [
        _item_html(
            item.memory_id,
            item.content,
            item.marks,
            [o for o in conflicting if o != item.memory_id]
            if item.memory_id in conflicting
            else [],
        )
        for item in rep.items
    ]
    dropped = [
        f'<li><a href="memory:{d.memory_id}">{d.memory_id}</a>: {html.escape(d.reason)}</li>'
        for d in snap.dropped
    ]
    injected, dropped_count = len(rep.items), len(dropped)
    body = head
    if conflicting:
        body += (
            "<p style='color:#5c3b00'><b>⚠ "
            + QCoreApplication.translate(
                "Snapshot", "The model was given memories that contradict each other."
            )
            + "</b></p>"
        )
    body += "<h4>" + QCoreApplication.translate("Snapshot", "Injected (%n)", "", injected) + "</h4>"
    body += f"<ul>{''.join(items)}</ul>" if items else "<p>—</p>"
    body += (
        "<h4>"
        + QCoreApplication.translate("Snapshot", "Dropped, and why (%n)", "", dropped_count)
        + "</h4>"
    )
    body += f"<ul>{''.join(dropped)}</ul>" if dropped else "<p>—</p>"
    return body
