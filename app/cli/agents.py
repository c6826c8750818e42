"""CLI verbs of agents: `agent list`, `agent pause NAME`, `agent resume NAME` (R26, #14)."""

from __future__ import annotations

import click

from app.cli.helpers import echo_lines
from app.cli.root import Context, handles_errors, pass_ctx
from core.model import commands as c

CLI = c.Origin("cli")


@click.group()
def agent() -> None:
    """Agents: pause or resume memory for every session of an agent, new ones too."""


@agent.command("list")
@pass_ctx
@handles_errors
def agent_list(ctx: Context) -> None:
    """List the agents seen in the sessions, and which are paused."""
    found = ctx.service().agents.list_agents()
    lines = [
        f"{a.name:<24} {a.sessions:>6} sessions  {'PAUSED' if a.paused else 'memory on'}"
        for a in found
    ]
    ctx.emit(found, echo_lines(lines, "no agents yet"))


def _set(ctx: Context, name: str, paused: bool) -> None:
    names = ctx.service().commands.run(c.SetAgentPaused(name, paused), CLI).value
    state = "paused: it gets no memory" if paused else "resumed: memory is on again"
    ctx.emit({"agent": name, "paused": paused, "paused_agents": sorted(names)}, f"{name} {state}")


@agent.command("pause")
@click.argument("name")
@pass_ctx
@handles_errors
def agent_pause(ctx: Context, name: str) -> None:
    """Turn memory off for NAME (mcp, claude-code, codex, chatgpt, sdk, or a scope's agent)."""
    _set(ctx, name, True)


@agent.command("resume")
@click.argument("name")
@pass_ctx
@handles_errors
def agent_resume(ctx: Context, name: str) -> None:
    """Turn memory on again for NAME."""
    _set(ctx, name, False)
