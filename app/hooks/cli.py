"""`memory-center hook ...`: the agent hook command and its installer."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from app.hooks import client, install
from app.hooks.daemon_cli import running_pid
from core import MemoryCenterError

if TYPE_CHECKING:
    from app.cli import Context

AGENTS = click.Choice(["claude-code"])
F = TypeVar("F", bound=Callable[..., Any])


@click.group("hook", invoke_without_command=False)
def hook_group() -> None:
    """Agent lifecycle hooks: inject memory per prompt, record events as they happen."""


@hook_group.command("claude-code")
@click.pass_obj
def hook_claude_code(obj: Context) -> None:
    """Handle one Claude Code hook call (JSON on stdin). Always exits 0.

    Prints the memory block for SessionStart and UserPromptSubmit (as
    hookSpecificOutput.additionalContext); records events for the other events.
    """
    raw = sys.stdin.buffer.read()
    out = client.run("claude-code", raw, obj.data_dir)
    if out:
        click.echo(out)
    sys.exit(0)


def _target(project: Path | None, user: bool) -> Path:
    if project is not None and user:
        raise click.UsageError("give --project DIR or --user, not both")
    return install.settings_path(project, user)


def _where(func: F) -> F:
    func = click.option("--user", is_flag=True, help="The user's settings (~/.claude).")(func)
    return click.option(
        "--project",
        type=click.Path(file_okay=False, exists=True, path_type=Path),
        help="A project's .claude/settings.json (default: the current directory).",
    )(func)


@hook_group.command("install")
@click.argument("agent", type=AGENTS)
@_where
@click.pass_obj
def hook_install(obj: Context, agent: str, project: Path | None, user: bool) -> None:
    """Write the hook entries into the agent's settings, keeping everything else there."""
    path = _target(project, user)
    try:
        report = install.install(path, obj.data_dir.expanduser().resolve())
    except MemoryCenterError as exc:
        click.echo(f"error: {exc.message}", err=True)
        sys.exit(1)
    obj.emit(
        report,
        f"{agent} hooks installed in {report.path} for {', '.join(report.events)}"
        + (f" (replaced {report.removed} earlier entries)" if report.removed else ""),
    )


@hook_group.command("uninstall")
@click.argument("agent", type=AGENTS)
@_where
@click.pass_obj
def hook_uninstall(obj: Context, agent: str, project: Path | None, user: bool) -> None:
    """Remove exactly the hook entries `install` wrote."""
    path = _target(project, user)
    try:
        report = install.uninstall(path)
    except MemoryCenterError as exc:
        click.echo(f"error: {exc.message}", err=True)
        sys.exit(1)
    obj.emit(report, f"removed {report.removed} {agent} hook entries from {report.path}")


@hook_group.command("status")
@click.option(
    "--project",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="The project to look at (default: the current directory).",
)
@click.pass_obj
def hook_status(obj: Context, project: Path | None) -> None:
    """Where the hooks are installed, whether the daemon runs, what capture recorded."""
    files = {
        "project": install.settings_path(project, False),
        "user": install.settings_path(None, True),
    }
    try:
        installed = {where: install.installed(path) for where, path in files.items()}
        totals = obj.service().capture_totals()
    except MemoryCenterError as exc:
        click.echo(f"error: {exc.message}", err=True)
        sys.exit(1)
    finally:
        obj.close()
    daemon = running_pid(obj.data_dir)
    doc = {
        "settings": {w: {"path": str(files[w]), "events": e} for w, e in installed.items()},
        "daemon_pid": daemon,
        "captured": {a: {"files": f, "events": n} for a, (f, n) in totals.items()},
    }

    def human() -> None:
        for where, events in installed.items():
            state = ", ".join(events) if events else "not installed"
            click.echo(f"{where:<8} {files[where]}: {state}")
        click.echo("daemon   " + (f"running (pid {daemon})" if daemon else "not running"))
        for agent, (count, captured) in sorted(totals.items()):
            click.echo(f"captured {agent}: {captured} events from {count} files")

    obj.emit(doc, human)
