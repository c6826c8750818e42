"""`memory-center watch claude-code|codex [DIR]`: live capture of agent transcripts."""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from app.capture.watch import AGENTS, Watcher, WatchTotals
from core import MemoryCenterError, Scope

if TYPE_CHECKING:
    from app.cli import Context


@click.command("watch")
@click.argument("agent", type=click.Choice(sorted(AGENTS)))
@click.argument("folder", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--once", is_flag=True, help="One pass over the files, then exit.")
@click.option(
    "--interval",
    default=1.0,
    show_default=True,
    type=click.FloatRange(0.05, 3600),
    help="Seconds between passes.",
)
@click.option(
    "--from-now",
    is_flag=True,
    help="Files never followed start at their current end (history is not imported).",
)
@click.option(
    "--scope",
    "scopes",
    multiple=True,
    metavar="KEY=VALUE",
    help="Scope keys set on every captured event (repeatable); by default the scope comes "
    "from each transcript's working directory.",
)
@click.option("--extract/--no-extract", default=True, show_default=True)
@click.pass_obj
def watch_command(
    obj: Context,
    agent: str,
    folder: Path | None,
    once: bool,
    interval: float,
    from_now: bool,
    scopes: tuple[str, ...],
    extract: bool,
) -> None:
    """Follow an agent's session files as they grow and record new events.

    Default folders: ~/.claude/projects (claude-code), ~/.codex/sessions (codex). Resume
    positions are kept in the store, so a restarted watcher (or a second one) records
    nothing twice.
    """
    spec = AGENTS[agent]
    target = folder or spec.default_dir
    if not target.is_dir():
        click.echo(f"error: {target}: no such folder (nothing to watch)", err=True)
        sys.exit(1)
    try:
        scope = Scope.of(dict(Scope.parse(scopes).items_)) if scopes else None
        service = obj.service(create=True)
        watcher = Watcher(service, spec, target, scope=scope, from_now=from_now, extract=extract)
        totals = watcher.run_once() if once else _loop(watcher, interval, obj.as_json)
    except MemoryCenterError as exc:
        click.echo(f"error: {exc.message}", err=True)
        sys.exit(1)
    finally:
        obj.close()
    _print(obj, agent, target, totals)


def _loop(watcher: Watcher, interval: float, quiet: bool) -> WatchTotals:
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    if not quiet:
        click.echo(f"watching {watcher.folder} (Ctrl-C to stop)", err=True)
    seen = 0
    while not stop.is_set():
        totals = watcher.run_once()
        if totals.events != seen and not quiet:
            click.echo(f"recorded {totals.events - seen} new events", err=True)
            seen = totals.events
        stop.wait(interval)
    return watcher.totals


def _print(obj: Context, agent: str, folder: Path, totals: WatchTotals) -> None:
    for problem in totals.problems:
        click.echo(f"skipped {problem}", err=True)
    summary: dict[str, Any] = {
        "agent": agent,
        "folder": str(folder),
        "files_with_new_events": totals.files,
        "events_written": totals.events,
        "suggestions": totals.suggestions,
        "problems": [str(p) for p in totals.problems],
    }
    obj.emit(
        summary,
        f"captured {totals.events} new events from {totals.files} {agent} files "
        f"({totals.suggestions} suggestions, {len(totals.problems)} skipped)",
    )
