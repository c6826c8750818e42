"""Memory Center's own sessions: where its governance and direct writes are logged.

They share one prefix so that every view listing an agent's sessions can leave them out with
one test, and no caller has to know the spelling.
"""

from __future__ import annotations

INTERNAL_SESSION_PREFIX = "memory-center:"


def internal_session(name: str) -> str:
    """The id of one of Memory Center's own sessions."""
    return INTERNAL_SESSION_PREFIX + name


def is_internal_session(session_id: str) -> bool:
    """True for Memory Center's own sessions, which are not an agent's conversation."""
    return session_id.startswith(INTERNAL_SESSION_PREFIX)


GOVERNANCE_SESSION = internal_session("governance")
"""Decisions, security and redaction events that no agent session caused."""

DIRECT_SESSION = internal_session("direct")
"""Memories the user writes directly (remember, import) outside any agent session."""
