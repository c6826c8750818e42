"""`memory-center daemon start|stop|status`: the store's local daemon, started by hand.

The hooks start the daemon on demand; a script or agent that calls the CLI every turn can
start it up front, and the per-turn commands are then answered by it (`cli_forward`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from app.hooks import client
from core import MemoryCenterError, ResourceUnavailableError

if TYPE_CHECKING:
    from app.cli import Context

START_WAIT = 120.0
STOP_WAIT = 15.0


@click.group("daemon")
def daemon_group() -> None:
    """The store's local daemon: keeps the store open so per-turn commands answer at once.

    Hooks and the commands status, verify, search, inject, remember, event add/list, memory
    list/show and candidates list/approve/reject are answered by it while it runs."""


@daemon_group.command("start")
@click.option(
    "--idle",
    type=click.FloatRange(min=1.0),
    default=None,
    help="Seconds without a request before it exits (default 900, or MEMORY_CENTER_HOOK_IDLE).",
)
@click.pass_obj
def daemon_start(obj: Context, idle: float | None) -> None:
    """Start the daemon of this store (nothing to do when one runs) and wait until it answers."""
    try:
        pid = start(obj.data_dir, idle)
    except MemoryCenterError as exc:
        click.echo(f"error: {exc.message}", err=True)
        raise SystemExit(1) from None
    obj.emit({"daemon_pid": pid}, f"daemon running (pid {pid}) for {obj.data_dir}")


@daemon_group.command("serve", hidden=True)
@click.option("--idle", type=click.FloatRange(min=1.0), default=None)
@click.pass_obj
def daemon_serve(obj: Context, idle: float | None) -> None:
    """Run the daemon in this process (how the desktop build starts it: its one program
    cannot be run with `-m app.hooks.daemon`)."""
    from app.hooks import daemon

    extra = [] if idle is None else ["--idle", str(idle)]
    raise SystemExit(daemon.main(["--data-dir", str(obj.data_dir), *extra]))


@daemon_group.command("stop")
@click.pass_obj
def daemon_stop(obj: Context) -> None:
    """Stop the daemon of this store, if one runs."""
    pid = running_pid(obj.data_dir)
    if pid is not None:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_WAIT
        while running_pid(obj.data_dir) == pid and time.monotonic() < deadline:
            time.sleep(0.05)
    obj.emit({"stopped": pid}, f"daemon stopped (pid {pid})" if pid else "no daemon was running")


@daemon_group.command("status")
@click.pass_obj
def daemon_status(obj: Context) -> None:
    """Whether a daemon serves this store."""
    pid = running_pid(obj.data_dir)
    obj.emit({"daemon_pid": pid}, f"running (pid {pid})" if pid else "not running")


def running_pid(data_dir: Path) -> int | None:
    """The pid of the live daemon serving `data_dir`, or None."""
    try:
        paths = client.Paths(data_dir)
        pid = int(Path(paths.lock).read_text().strip() or "0")
        if pid and os.path.exists(paths.socket):
            os.kill(pid, 0)
            return pid
    except (OSError, ValueError):
        return None
    return None


def start(data_dir: Path, idle: float | None = None) -> int:
    """Start the daemon (if none runs) and return its pid once it answers."""
    try:
        paths = client.Paths(data_dir)
    except OSError as exc:
        raise ResourceUnavailableError(f"no private directory for the daemon: {exc}") from None
    started = time.time()
    spawned = False
    deadline = time.monotonic() + START_WAIT
    while time.monotonic() < deadline:
        pid = running_pid(data_dir)
        if pid is not None and client.ask(paths, "ping", b"", 5.0) is not None:
            return pid
        if client.failed_since(paths, started):
            note = ""
            with contextlib.suppress(OSError):
                note = Path(paths.error).read_text(encoding="utf-8").strip()
            raise ResourceUnavailableError(f"the daemon could not open the store: {note}")
        if not spawned:
            client.spawn_daemon(paths, idle)
            spawned = True
        time.sleep(0.05)
    raise ResourceUnavailableError(f"the daemon did not answer within {START_WAIT:.0f} s")
