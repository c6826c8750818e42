"""CLI verbs of the store itself: `init`, `status`, `verify`, `key rotate`."""

from __future__ import annotations

import dataclasses
import sys

import click

from app.cli.root import Context, handles_errors, pass_ctx


@click.command()
@click.option(
    "--database",
    "database_url",
    metavar="URL",
    help="Keep the tables on this PostgreSQL server (postgresql://user@host/db); "
    "remembered in the data directory. Default: a local SQLite file.",
)
@click.option(
    "--member",
    metavar="NAME",
    help="On a database server: your member name (default: owner); memories scoped "
    "user=NAME are sealed with your personal key and stay private to your devices.",
)
@pass_ctx
@handles_errors
def init(ctx: Context, database_url: str | None, member: str | None) -> None:
    """Create the store (and its key) if it does not exist yet."""
    if database_url is not None and not database_url.strip():
        # `--database "$URL"` with the variable unset must not make a local store instead.
        raise click.BadParameter(
            "is empty: give a postgresql:// URL, or leave the option out for a local store",
            param_hint="'--database'",
        )
    ctx.database_url = database_url
    ctx.member = member
    service = ctx.service(create=True)
    status = service.status()
    ctx.emit(status, f"store ready at {status.path} (key: {status.key.source})")


@click.command()
@pass_ctx
@handles_errors
def status(ctx: Context) -> None:
    """Show path, revision, schema version, key source and counts.

    With the server of a team store away it still answers (exit 0) with what this machine
    knows: that the server is not reachable, and the writes waiting in its spool."""
    from core import ServerUnavailableError, SpoolService

    try:
        st = ctx.service().status()
    except ServerUnavailableError as away:
        # What this machine still knows: the writes waiting for the server (R23).
        reason = away.message
        waiting = dataclasses.replace(SpoolService.offline_status(ctx.data_dir), offline=True)

        def offline() -> None:
            from app.cli.spool import spool_line

            click.echo(f"server:    not reachable ({reason})")
            click.echo(spool_line(waiting))

        ctx.emit({"offline": True, "reason": reason, "spool": waiting}, offline)
        return

    def human() -> None:
        click.echo(f"store:     {st.path}")
        click.echo(f"store id:  {st.store_id}")
        click.echo(f"schema:    v{st.schema_version}")
        click.echo(f"revision:  {st.revision}")
        click.echo(f"key:       {st.key.source} (active key {st.key.active_key_id})")
        click.echo(f"sessions:  {st.session_count}")
        click.echo(f"events:    {st.event_count}")
        counts = ", ".join(f"{k} {v}" for k, v in sorted(st.memory_counts.items())) or "none"
        click.echo(f"memories:  {counts}")
        if st.damaged_rows:
            click.echo(f"damaged:   {st.damaged_rows} row(s) excluded (see security events)")
        for line in st.membership_problems:
            click.echo(f"ignored:   {line}")
        _spool_status_line(ctx)

    ctx.emit(st, human)


def _spool_status_line(ctx: Context) -> None:
    from app.cli.spool import spool_line

    line = spool_line(ctx.service().commands.status())
    if line:
        click.echo(line)


@click.command()
@pass_ctx
@handles_errors
def verify(ctx: Context) -> None:
    """Check the hash chain and decrypt every row; report the first failure."""
    report = ctx.service().verify()
    if not ctx.as_json:
        for line in report.membership_problems:
            click.echo(f"ignored: {line}")
    if report.ok:
        ctx.emit(
            report,
            f"ok: {report.events_checked} events chained and decrypted "
            f"({report.redacted_events} redacted); {report.sealed_values} other sealed values "
            f"opened; {report.records_checked} memory bindings checked"
            + ("; SQLite integrity ok" if report.sqlite == "ok" else "")
            + (
                f"; {report.unreadable_values} value(s) under another member's personal key "
                "not readable here, so not checked (their devices check them)"
                if report.unreadable_values
                else ""
            ),
        )
        return
    failure = report.first_failure
    assert failure is not None
    ctx.emit(report, f"BROKEN at {failure.line()}")
    sys.exit(1)


@click.group()
def key() -> None:
    """Manage the store's encryption key."""


@key.command("rotate")
@pass_ctx
@handles_errors
def key_rotate(ctx: Context) -> None:
    """Re-encrypt everything under a new key (resumable if interrupted)."""
    result = ctx.service().keys.rotate()
    rep = result.value
    ctx.emit(
        rep,
        f"rotated {rep.old_key_id} -> {rep.new_key_id}: {rep.rows_reencrypted} values re-encrypted"
        + (" (resumed)" if rep.resumed else ""),
    )
