"""CLI verbs of sessions: `session list`, `session opt-out` (R26)."""

from __future__ import annotations

import click

from app.cli.helpers import echo_lines
from app.cli.root import Context, handles_errors, pass_ctx
from core.model import commands as c

CLI = c.Origin("cli")


@click.group()
def session() -> None:
    """Sessions: list, opt out of memory."""


@session.command("list")
@pass_ctx
@handles_errors
def session_list(ctx: Context) -> None:
    """List sessions, most recent first."""
    rows = ctx.service().events.list_sessions()
    lines = [
        f"{s.id:<32} {s.event_count:>6} events{' OPTED OUT' if s.opted_out else ''}" for s in rows
    ]
    ctx.emit(rows, echo_lines(lines, "no sessions"))


@session.command("opt-out")
@click.argument("name")
@click.option("--undo", is_flag=True, help="Opt the session back in.")
@pass_ctx
@handles_errors
def session_opt_out(ctx: Context, name: str, undo: bool) -> None:
    """Per-session opt-out: nothing injected into it, nothing extracted from it."""
    info = ctx.service().commands.run(c.SetSessionOptOut(name, not undo), CLI).value
    ctx.emit(info, f"{info.id}: {'opted out' if info.opted_out else 'opted in'}")
