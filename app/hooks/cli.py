"""`memory-center hook ...`: the agent hook command and its installer."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from app.cli.root import handles_errors, pass_ctx
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
    except MemoryCenterError as exc:
        click.echo(f"error: {exc.message}", err=True)
        sys.exit(1)
    problem = None
    totals: dict[str, tuple[int, int]] = {}
    folder: dict[str, str] | None = None
    try:
        totals = obj.service().events.capture_totals()
        folder = _folder(obj, project or Path.cwd())
    except MemoryCenterError as exc:
        problem = exc.message  # still say what is installed and what the hooks see (#42)
    finally:
        obj.close()
    daemon = running_pid(obj.data_dir)
    hooks_note, queued = _hook_side(obj.data_dir)
    doc = {
        "settings": {w: {"path": str(files[w]), "events": e} for w, e in installed.items()},
        "daemon_pid": daemon,
        "captured": {a: {"files": f, "events": n} for a, (f, n) in totals.items()},
        "store_error": problem,
        "hooks_error": hooks_note,
        "queued_bytes": queued,
        "folder": folder,
    }

    obj.emit(doc, lambda: _print_status(doc))
    if problem:
        sys.exit(1)


# The folder `hook trust` and `hook untrust` act on.
_FOLDER = click.option(
    "--folder",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="The folder the agent works in (default: the current directory).",
)


@hook_group.command("trust")
@_FOLDER
@pass_ctx
@handles_errors
def hook_trust(ctx: Context, folder: Path | None) -> None:
    """Confirm that this folder is the project it names, so that its sessions get that
    project's memories and record into it.

    The hooks keep apart a folder that names a project Memory Center knows from another
    folder (or from the MCP server, the CLI, an import): a cloned repository chooses its
    own name, and one named after your project would otherwise read its memories.
    """
    _change_folder(ctx, folder, withdraw=False)


@hook_group.command("untrust")
@_FOLDER
@pass_ctx
@handles_errors
def hook_untrust(ctx: Context, folder: Path | None) -> None:
    """Withdraw this folder's confirmation: its sessions no longer get the project's
    memories and are kept apart again (a folder reused for something else, or trusted by
    mistake). Nothing recorded is changed."""
    _change_folder(ctx, folder, withdraw=True)


def _change_folder(ctx: Context, folder: Path | None, *, withdraw: bool) -> None:
    """Confirm (or withdraw) the folder for the project it names, and say where it stands."""
    from app.hooks.places import place_of
    from app.hooks.workspace import resolve
    from core.model import commands as c

    here = folder or Path.cwd()
    if not here.is_dir():  # click's check lets a FIFO or a socket through as "not a file"
        raise click.UsageError(f"--folder: {here} is not a directory")
    ws = resolve(here)
    change = c.UnbindProjectPlace if withdraw else c.BindProjectPlace
    mine = ctx.write(change(ws.project, place_of(ws, here))).value
    where = ws.root or here
    count = f"{len(mine)} folder{'s' if len(mine) != 1 else ''}"
    ctx.emit(
        {"project": ws.project, "folder": str(where), "folders": len(mine)},
        f"{where} no longer speaks for project {ws.project!r} ({count} left)"
        if withdraw
        else f"{where} now speaks for project {ws.project!r} ({count} in all)",
    )


def _print_status(doc: dict[str, Any]) -> None:
    """`hook status` for a person: one line a finding."""
    for where, found in doc["settings"].items():
        state = ", ".join(found["events"]) if found["events"] else "not installed"
        click.echo(f"{where:<8} {found['path']}: {state}")
    daemon = doc["daemon_pid"]
    click.echo("daemon   " + (f"running (pid {daemon})" if daemon else "not running"))
    if doc["hooks_error"]:
        click.echo(f"hooks    memory is off: {doc['hooks_error']}")
    if doc["queued_bytes"]:
        click.echo(f"queue    {doc['queued_bytes']} bytes of hook calls wait for the daemon")
    if doc["store_error"]:
        click.echo(f"store    cannot open: {doc['store_error']}")
    for agent, seen in sorted(doc["captured"].items()):
        click.echo(f"captured {agent}: {seen['events']} events from {seen['files']} files")
    folder = doc["folder"]
    if folder is not None:
        hint = " (run `memory-center hook trust` here if it is)"
        click.echo(
            f"folder   {folder['project']!r}: {folder['state']}"
            + (hint if folder["state"] == "kept apart" else "")
        )


def _folder(obj: Context, here: Path) -> dict[str, str]:
    """The project the folder names and how it stands (`places.standing`): whether its
    sessions get that project's memories."""
    from app.hooks.places import standing
    from app.hooks.workspace import resolve

    ws = resolve(here)
    return {"project": ws.project, "state": standing(obj.service(), ws, here)}


def _hook_side(data_dir: Path) -> tuple[str | None, int]:
    """What the hooks see: the daemon's recent note that it could not open the store (the
    reason Claude Code's sessions are told), and how much waits in the hook queue."""
    import os
    import time

    try:
        paths = client.Paths(data_dir)
    except OSError:
        return None, 0
    note = None
    if client.failed_since(paths, time.time() - client.STALE_ERROR):
        try:
            note = Path(paths.error).read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            note = None
    try:
        queued = os.stat(paths.queue).st_size
    except OSError:
        queued = 0
    return note, queued
