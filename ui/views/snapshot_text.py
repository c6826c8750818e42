"""A model call's snapshot as rich text: injected, dropped and why, what changed since (R27).

Memories that contradicted each other in the same call are marked, with a link to the other
one, so a replay never hides that the model was given two conflicting notes (R9).
"""

from __future__ import annotations

import html

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QGuiApplication, QPalette

from core import Replay

from ui.presentation import local_time
from ui.reasons import reason_text
from ui.style import DARK, LIGHT

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


def _colours() -> dict[str, str]:
    """The theme's colours: the rich text is coloured inline, so it follows the palette the
    application was given (the light warning brown was unreadable on the dark theme)."""
    window = QGuiApplication.palette().color(QPalette.ColorRole.Window)
    return DARK if window.lightness() < 128 else LIGHT


def mode_text(mode: str) -> str:
    """How a model call's memory was found (`Snapshot.mode`, #44), in plain words: the
    same modes the command line's `inject` and the MCP answer name."""
    words = {
        "hybrid": QCoreApplication.translate("Snapshot", "keyword and vector search"),
        "keyword": QCoreApplication.translate("Snapshot", "keyword search (no embedder)"),
        "keyword_only": QCoreApplication.translate(
            "Snapshot", "keyword search only: the vector search was unavailable"
        ),
        "opted_out": QCoreApplication.translate("Snapshot", "no memory: this session opted out"),
        "paused": QCoreApplication.translate("Snapshot", "no memory: paused for this agent"),
        "degraded": QCoreApplication.translate("Snapshot", "degraded: memory was unavailable"),
    }
    return words.get(mode, mode)


def why_text(reason: str) -> str:
    """Why the call's memory was not a full search (the dropped entry "*" the engine wrote,
    core/retrieval/injector.py), in plain words."""
    words = {
        "keyword_only: the embedding model is still loading": QCoreApplication.translate(
            "Snapshot", "the embedding model was still loading"
        ),
        "keyword_only: the vector index file is still being read": QCoreApplication.translate(
            "Snapshot", "the vector index file was still being read"
        ),
        "keyword_only: the vector path did not answer within the hot-path limit": (
            QCoreApplication.translate(
                "Snapshot", "the vector search did not answer within the time limit"
            )
        ),
        "keyword_only: the vector path is still busy with an earlier query": (
            QCoreApplication.translate(
                "Snapshot", "the vector search was busy with an earlier query"
            )
        ),
        "keyword_only: the vector index failed": QCoreApplication.translate(
            "Snapshot", "the vector index failed"
        ),
        "keyword_only: the vector path failed recently; retried shortly": (
            QCoreApplication.translate(
                "Snapshot", "the vector search had failed just before; it is retried shortly"
            )
        ),
        "session opted out of memory": QCoreApplication.translate(
            "Snapshot", "the session opted out of memory"
        ),
        "degraded_memory_unavailable": QCoreApplication.translate(
            "Snapshot", "memory could not be read"
        ),
    }
    return words.get(reason.strip(), reason_text(reason))


# Modes that gave the model less than a full search: shown as a warning.
PARTIAL_MODES = frozenset({"keyword_only", "opted_out", "paused", "degraded"})


def _mode_html(mode: str, why: list[str]) -> str:
    """The mode line: the mode in words, and the engine's reason when it was not full."""
    text = QCoreApplication.translate("Snapshot", "Memory found by: %1").replace(
        "%1", mode_text(mode)
    )
    if why:
        text += " (" + "; ".join(why_text(w) for w in why) + ")"
    line = html.escape(text)
    if mode in PARTIAL_MODES:
        return f"<p style='color:{_colours()['warn_fg']}'><b>⚠ {line}</b></p>"
    return f"<p>{line}</p>"


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
    style = f' style="background-color:{_colours()["warn_bg"]}"' if others else ""
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
        + "</p>"
    )
    # The entry "*" of the dropped list is about the whole call (why the vector search was
    # skipped, an opt-out): said on the mode line, not listed as a memory.
    whole_call = [d.reason for d in snap.dropped if d.memory_id == "*"]
    mode = snap.mode or ("degraded" if snap.degraded else "hybrid")
    head += _mode_html(mode, [w for w in whole_call if w.strip()])
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
        if d.memory_id != "*"
    ]
    injected, dropped_count = len(rep.items), len(dropped)
    body = head
    if conflicting:
        body += (
            f"<p style='color:{_colours()['warn_fg']}'><b>⚠ "
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
