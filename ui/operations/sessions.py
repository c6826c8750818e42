"""Operations on sessions (R26, R27)."""

from __future__ import annotations

from core import SessionInfo

from ui.context import UiContext
from ui.ops import MutatingOp, mutate


def set_session_opt_out(ctx: UiContext, session: str, opted_out: bool) -> MutatingOp[SessionInfo]:
    """Switch a session's memory opt-out: nothing injected into it, nothing extracted from it."""
    return mutate(ctx, lambda s: s.events.set_session_opt_out(session, opted_out))
