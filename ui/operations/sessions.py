"""Operations on sessions (R26, R27)."""

from __future__ import annotations

from core import SessionInfo
from core.model import commands as c

from ui.context import UiContext
from ui.ops import MutatingOp, mutate

DESKTOP = c.Origin("desktop")


def set_session_opt_out(ctx: UiContext, session: str, opted_out: bool) -> MutatingOp[SessionInfo]:
    """Switch a session's memory opt-out: nothing injected into it, nothing extracted from it."""
    return mutate(ctx, lambda s: s.commands.run(c.SetSessionOptOut(session, opted_out), DESKTOP))
