"""Agent-level pause (R26, #14): memory off for an agent, its existing and future sessions.

An agent is named by the request's `agent` scope key when it has one, and by the client its
session belongs to, recognised from the names each client gives its sessions (`mcp-...` for
the MCP server, `claude-code:...`, `codex:...`, `chatgpt:...`; any other session belongs to
an SDK runtime or tool, `sdk`). The paused names are a store setting, so they are sealed and
bound like every other setting and hold for every process and every new session. Retrieval
asks `PauseGate` once per read. Every injection writes a snapshot, so the store revision moves
on every call: the answer is kept for up to `RECHECK_SECONDS` while the revision moves (a
pause made by another process applies within that second, as the GUI's change polling does)
and dropped at once when this process changes the setting.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from sqlalchemy import Connection

from core.crypto.codec import Codec
from core.errors import DamagedRowError
from core.model.enums import ChangeKind
from core.model.records import SessionInfo
from core.model.sessions import is_internal_session
from core.model.validate import identifier
from core.storage import settings
from core.storage.store import Store, WriteTx

SETTING = "paused_agents"
SESSION_CLIENTS = (
    ("mcp-", "mcp"),
    ("claude-code:", "claude-code"),
    ("codex:", "codex"),
    ("chatgpt:", "chatgpt"),
)
OTHER_CLIENT = "sdk"
MAX_NAME = 128
RECHECK_SECONDS = 1.0


@dataclass(frozen=True)
class AgentInfo:
    """One agent as the user sees it: its name, how many sessions it has, whether paused."""

    name: str
    sessions: int
    paused: bool


def agent_of_session(session: str) -> str:
    """The agent (client) a session belongs to, from the names each client gives sessions."""
    for prefix, name in SESSION_CLIENTS:
        if session.startswith(prefix):
            return name
    return OTHER_CLIENT


def callers(request: Mapping[str, str], session: str | None) -> set[str]:
    """Every name the caller of a read goes by: its scope's agent and its session's client."""
    names = set()
    agent = request.get("agent")
    if agent:
        names.add(agent)
    if session:
        names.add(agent_of_session(session))
    return names


def valid_name(name: object) -> str:
    """An agent name: one line, no control characters, at most 128 characters."""
    return identifier(name, "agent", MAX_NAME)


def read_paused(conn: Connection, codec: Codec) -> frozenset[str]:
    """The paused agent names stored in the store.

    Raises:
        DamagedRowError: the settings do not match their binding.
    """
    value = settings.read(conn, SETTING, codec)
    if not isinstance(value, list):
        return frozenset()
    return frozenset(v for v in value if isinstance(v, str))


def set_paused(tx: WriteTx, name: str, paused: bool) -> frozenset[str]:
    """Pause or resume `name`; return the paused names afterwards."""
    current = set(read_paused(tx.conn, tx.codec))
    if paused:
        current.add(name)
    else:
        current.discard(name)
    if current:
        settings.write(tx, SETTING, sorted(current))
    else:
        settings.remove(tx, SETTING)
    # Views that list agents by their sessions learn that the sessions' memory changed.
    tx.touch(ChangeKind.SESSIONS)
    return frozenset(current)


def summarise(sessions: Iterable[SessionInfo], paused: frozenset[str]) -> list[AgentInfo]:
    """Agents seen in the sessions, plus paused names no session shows yet, by name.

    Memory Center's own sessions (governance, integrity) belong to no agent.
    """
    counts: dict[str, int] = {}
    for info in sessions:
        if is_internal_session(info.id):
            continue
        agent = agent_of_session(info.id)
        counts[agent] = counts.get(agent, 0) + 1
    names = sorted(counts.keys() | paused)
    return [AgentInfo(n, counts.get(n, 0), n in paused) for n in names]


class PauseGate:
    """Answers "is this caller paused?" on the read path without a read per call."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        # (store revision, monotonic time read, paused names)
        self._cached: tuple[int, float, frozenset[str]] | None = None

    def reason(self, request: Mapping[str, str], session: str | None, revision: int) -> str | None:
        """Why the caller gets no memory (its agent is paused), or None."""
        paused = self._paused(revision)
        if not paused:
            return None
        hit = sorted(callers(request, session) & paused)
        return f"agent {hit[0]} is paused" if hit else None

    def forget(self) -> None:
        """Drop the cached answer (this process just changed the setting)."""
        with self._lock:
            self._cached = None

    def _paused(self, revision: int) -> frozenset[str]:
        with self._lock:
            cached = self._cached
            if cached is not None and (
                cached[0] == revision or time.monotonic() - cached[1] < RECHECK_SECONDS
            ):
                return cached[2]
        try:
            with self._store.read("read paused agents") as conn:
                names = read_paused(conn, self._store.codec)
        except DamagedRowError:
            # Damaged settings apply their defaults (nothing paused); opening the store
            # reported the damage already.
            names = frozenset()
        with self._lock:
            self._cached = (revision, time.monotonic(), names)
        return names
