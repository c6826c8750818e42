"""CLI verbs of the offline write spool of a store on a server (R23): list, flush."""

from __future__ import annotations

import click

from app.cli.root import Context, handles_errors, pass_ctx
from core import SpoolStatus


def spool_line(status: SpoolStatus) -> str | None:
    """The `status` line about the spool, or None when nothing waits and the server answers."""
    if not status.waiting and not status.offline:
        return None
    state = "server not reachable" if status.offline else "server reachable"
    oldest = f", oldest {status.oldest.isoformat(timespec='seconds')}" if status.oldest else ""
    return f"spool:     {status.waiting} write(s) waiting{oldest} ({state})"


@click.group()
def spool() -> None:
    """Writes kept on this machine while the database server was away."""


@spool.command("list")
@pass_ctx
@handles_errors
def list_spooled(ctx: Context) -> None:
    """List the writes waiting for the server, oldest first (what and when, not content).

    Works with the server away: the list is read from this machine's spool file alone."""
    from core import ServerUnavailableError, SpoolService

    try:
        entries = ctx.service().commands.entries()
    except ServerUnavailableError:
        entries = SpoolService.offline_entries(ctx.data_dir)

    def human() -> None:
        if not entries:
            click.echo("no writes waiting")
        for entry in entries:
            error = f"  (last error: {entry.last_error})" if entry.last_error else ""
            click.echo(
                f"{entry.id}  {entry.spooled_at.isoformat(timespec='seconds')}  "
                f"{entry.operation}{error}"
            )

    ctx.emit(entries, human)


@spool.command("flush")
@pass_ctx
@handles_errors
def flush(ctx: Context) -> None:
    """Apply the waiting writes now, in order; the policy decides each one as it applies."""
    report = ctx.service().commands.flush()

    def human() -> None:
        click.echo(
            f"{len(report.applied)} applied, {len(report.already)} applied before, "
            f"{len(report.refused)} refused, {report.waiting} still waiting"
        )
        for refusal in report.refused:
            click.echo(f"refused {refusal.id} ({refusal.operation}): {refusal.message}")
        if report.error:
            click.echo(f"stopped: {report.error}")

    ctx.emit(report, human)
    if report.waiting:
        raise SystemExit(1)
