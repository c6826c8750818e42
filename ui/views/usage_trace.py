"""The usage trace of a memory: who used it, for what (R22, R27).

For each model call that was given the memory: when, which agent or client, in which
session, for what goal, which other memories came in the same block, and a link that opens
that call's replay in the Sessions view.
"""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication

from core import MemoryService, NotFoundError, Snapshot, agent_of_session

from ui.agent_identity import ClientIdentity, guessed_label, session_identity
from ui.presentation import local_time

MAX_USES = 20
Injection = tuple[str, str | None, dt.datetime | str]


@dataclass(frozen=True)
class Use:
    """One model call that was given the memory."""

    snapshot_id: str
    session: str | None
    ts: dt.datetime
    goal: str
    who: str
    others: tuple[tuple[str, str], ...]  # (memory id, text) of the rest of the block


def who_used(snap: Snapshot, clients: Mapping[str, ClientIdentity] | None = None) -> str:
    """The agent or client behind a call: the scope's agent, else the client its session's
    events name (`clients`, by session), else what the session's name suggests."""
    agent = snap.scope.get("agent")
    if agent:
        return QCoreApplication.translate("Usage", "agent %1").replace("%1", agent)
    session = snap.session_id or ""
    known = (clients or {}).get(session)
    return known.label() if known is not None else client_of(session)


def client_of(session: str) -> str:
    """The kind of client a session's name suggests."""
    return guessed_label(agent_of_session(session))


def load_uses(service: MemoryService, memory_id: str, injections: Sequence[Injection]) -> list[Use]:
    """The newest calls that were given `memory_id`, newest first."""
    uses = []
    clients: dict[str, ClientIdentity] = {}
    for snapshot_id, _session, _ts in reversed(list(injections)[-MAX_USES:]):
        try:
            snap = service.retrieval.get_snapshot(snapshot_id)
        except NotFoundError:
            continue
        session = snap.session_id or ""
        if session and session not in clients:
            clients[session] = session_identity(service, session)
        others = tuple((i.memory_id, i.content) for i in snap.injected if i.memory_id != memory_id)
        who = who_used(snap, clients)
        uses.append(Use(snap.id, snap.session_id, snap.ts, snap.goal, who, others))
    return uses


def uses_html(uses: Sequence[Use], total: int) -> str:
    """Who used the memory, for what, with what else, and a link to each call's replay."""
    if not total:
        return QCoreApplication.translate("Detail", "Never injected into a model call.")
    last = local_time(uses[0].ts) if uses else "—"
    head = QCoreApplication.translate("Detail", "Injected %n time(s); last used %2.", "", total)
    rows = [_use_html(u) for u in uses]
    return f"<p>{html.escape(head.replace('%2', last))}</p><ul>{''.join(rows)}</ul>"


def _use_html(use: Use) -> str:
    session = html.escape(use.session or "")
    where = (
        f'<a href="session:{session}#">{session}</a>'
        if use.session
        else QCoreApplication.translate("Detail", "no session")
    )
    goal = html.escape(use.goal[:160]) or "—"
    with_text = (
        QCoreApplication.translate("Usage", "with %1").replace(
            "%1",
            ", ".join(
                f'<a href="memory:{mid}">{html.escape(text[:40] or mid)}</a>'
                for mid, text in use.others[:5]
            ),
        )
        if use.others
        else QCoreApplication.translate("Usage", "alone")
    )
    replay = QCoreApplication.translate("Usage", "open the replay")
    return (
        f"<li>{local_time(use.ts)} · {html.escape(use.who)} · {where}<br>"
        f"“{goal}”<br><small>{with_text} · "
        f'<a href="replay:{session}#{html.escape(use.snapshot_id)}">{replay}</a></small></li>'
    )
