"""The `memory-center` command line (R30).

Every verb takes `--json`; exit codes are 0 on success, 1 on a failure the user can fix (a
one-line message on stderr), and 2 on usage errors. With no verb it starts the GUI.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from app.cli_common import CommonOptionsGroup
from app.compose import open_service
from app.paths import DATA_DIR_ENV, default_data_dir
from app.serialize import dumps, to_jsonable
from core import MemoryCenterError, MemoryService, NewEvent, Scope, ServerUnavailableError
from core.model.jsonsafe import has_lone_surrogate, parse_json

F = TypeVar("F", bound=Callable[..., Any])


class Context:
    """Per-invocation state: where the store is and how to print."""

    def __init__(self, data_dir: Path, as_json: bool) -> None:
        self.data_dir = data_dir
        self.as_json = as_json
        self._service: MemoryService | None = None
        self.database_url: str | None = None

    def service(self, *, create: bool = False, check_embedder: bool = True) -> MemoryService:
        """Open the store once per invocation.

        A configured embedder that cannot load stops every command with one line, except
        the `index` commands that show and repair it (`check_embedder=False`).
        """
        if self._service is None:
            self._service = open_service(
                self.data_dir,
                create=create,
                prompt=_prompt_passphrase,
                database_url=self.database_url,
            )
        if check_embedder:
            self._service.check_embedder()
        return self._service

    def close(self) -> None:
        """Release the store."""
        if self._service is not None:
            self._service.close()
            self._service = None

    def emit(self, value: Any, human: Callable[[], None] | str) -> None:
        """Print `value` as JSON, or the human form."""
        if self.as_json:
            click.echo(dumps(value))
        elif isinstance(human, str):
            click.echo(human)
        else:
            human()


def _prompt_passphrase(new_store: bool) -> str | None:
    if not sys.stdin.isatty():
        return None
    if new_store:
        text = click.prompt(
            "No OS keyring is available. Choose a passphrase to protect the store key",
            hide_input=True,
            confirmation_prompt=True,
        )
    else:
        text = click.prompt("Passphrase for the memory store", hide_input=True)
    return str(text)


def handles_errors(func: F) -> F:
    """Turn core errors into a one-line message and exit code 1."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        ctx = click.get_current_context().find_object(Context)
        try:
            return func(*args, **kwargs)
        except MemoryCenterError as exc:
            if ctx is not None and ctx.as_json:
                click.echo(json.dumps({"error": {"kind": exc.kind, "message": exc.message}}))
            click.echo(f"error: {exc.message}", err=True)
            sys.exit(1)
        finally:
            if ctx is not None:
                ctx.close()

    return wrapper  # type: ignore[return-value]


pass_ctx = click.make_pass_decorator(Context)


class BadArgument(click.ClickException):
    """An argument that is not text (undecodable bytes): bad data, exit 1, one line."""

    exit_code = 1

    def __init__(self, message: str, as_json: bool) -> None:
        super().__init__(message)
        self.as_json = as_json

    def show(self, file: Any = None) -> None:
        if self.as_json:
            error = {"kind": "invalid_input", "message": self.message}
            click.echo(json.dumps({"error": error}))
        click.echo(f"error: {self.message}", err=True)


class CheckedGroup(CommonOptionsGroup):
    """The root group: refuses arguments that are not valid UTF-8 before any verb runs.

    The OS hands Python undecodable argument bytes as lone surrogates; they would travel
    into the store (or crash the encoder) far from the command line.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        for index, arg in enumerate(args):
            if has_lone_surrogate(arg):
                before = args[index - 1] if index else ""
                what = f"the value of {before}" if before.startswith("-") else f"argument {arg!r}"
                raise BadArgument(f"{what} is not valid UTF-8 text", "--json" in args[:index])
        return super().parse_args(ctx, args)


@click.group(cls=CheckedGroup, invoke_without_command=True)
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    envvar=DATA_DIR_ENV,
    help=f"Store directory (default: the user data directory; env {DATA_DIR_ENV}).",
)
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@click.version_option(package_name="memory-center")
@click.pass_context
def cli(ctx: click.Context, data_dir: Path | None, as_json: bool) -> None:
    """Memory Center: a long-term memory for AI agents that you can see, steer and trust.

    With no command, the desktop memory center opens.
    """
    ctx.obj = Context(data_dir or default_data_dir(), as_json)
    if ctx.invoked_subcommand is None:
        ctx.invoke(gui)


@cli.command()
@click.option(
    "--database",
    "database_url",
    metavar="URL",
    help="Keep the tables on this PostgreSQL server (postgresql://user@host/db); "
    "remembered in the data directory. Default: a local SQLite file.",
)
@pass_ctx
@handles_errors
def init(ctx: Context, database_url: str | None) -> None:
    """Create the store (and its key) if it does not exist yet."""
    ctx.database_url = database_url
    service = ctx.service(create=True)
    status = service.status()
    ctx.emit(status, f"store ready at {status.path} (key: {status.key.source})")


@cli.command()
@pass_ctx
@handles_errors
def status(ctx: Context) -> None:
    """Show path, revision, schema version, key source and counts."""
    try:
        st = ctx.service().status()
    except ServerUnavailableError:
        # What this machine still knows: the writes waiting for the server (R23).
        if not ctx.as_json:
            from app.cli_spool import spool_line

            waiting = MemoryService.offline_spool_status(ctx.data_dir)
            click.echo(spool_line(dataclasses.replace(waiting, offline=True)))
        raise

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
        _spool_status_line(ctx)

    ctx.emit(st, human)


def _spool_status_line(ctx: Context) -> None:
    from app.cli_spool import spool_line

    line = spool_line(ctx.service().spool_status())
    if line:
        click.echo(line)


@cli.command()
@pass_ctx
@handles_errors
def verify(ctx: Context) -> None:
    """Check the hash chain and decrypt every row; report the first failure."""
    report = ctx.service().verify()
    if report.ok:
        ctx.emit(
            report,
            f"ok: {report.events_checked} events chained and decrypted "
            f"({report.redacted_events} redacted); {report.sealed_values} other sealed values "
            f"opened; {report.records_checked} memory bindings checked; SQLite integrity ok",
        )
        return
    failure = report.first_failure
    assert failure is not None
    ctx.emit(report, f"BROKEN at {failure.line()}")
    sys.exit(1)


@cli.group()
def event() -> None:
    """Append to and read the event log."""


def _scope_option(func: F) -> F:
    return click.option(
        "--scope",
        "scopes",
        multiple=True,
        metavar="KEY=VALUE",
        help="Scope of the item (repeatable): user, org, project, repo, agent, session, "
        "environment, visibility.",
    )(func)


@event.command("add")
@click.option("--session", required=True, help="Session id (created on first use).")
@click.option("--actor", required=True, help="user, assistant, tool or system.")
@click.option("--trust", required=True, help="user, tool_verified, assistant or untrusted.")
@_scope_option
@click.option("--text", help="The event text. Without it, a JSON payload is read from stdin.")
@click.option("--kind", default="message", show_default=True, help="Event kind.")
@click.option("--source", help="Where the content came from (chat, web_page, email, ...).")
@pass_ctx
@handles_errors
def event_add(
    ctx: Context,
    session: str,
    actor: str,
    trust: str,
    scopes: tuple[str, ...],
    text: str | None,
    kind: str,
    source: str | None,
) -> None:
    """Append one event. Give --text, or pipe a JSON object {"text": ..., "data": {...}}."""
    data = None
    if text is None:
        text, data = _read_stdin_payload()
    item = NewEvent(
        session=session,
        actor=actor,
        trust=trust,
        scope=Scope.parse(scopes),
        text=text,
        kind=kind,
        source=source,
        data=data,
    )
    result = ctx.service().append_event(item)
    ev = result.value
    ctx.emit(
        {"event": ev, "revision": result.changes.revision},
        f"{ev.id} appended to {ev.session_id} (seq {ev.seq}, revision {result.changes.revision})",
    )


def _read_stdin_payload() -> tuple[str, dict[str, Any] | None]:
    from core import InvalidInputError

    # Bytes, not text: undecodable input is refused by name instead of smuggled in.
    stream = getattr(sys.stdin, "buffer", sys.stdin)
    doc = parse_json(stream.read(), "stdin")
    if not isinstance(doc, dict) or not isinstance(doc.get("text"), str):
        raise InvalidInputError("stdin", 'expected a JSON object with a "text" string')
    data = doc.get("data")
    if data is not None and not isinstance(data, dict):
        raise InvalidInputError("stdin.data", "must be a JSON object")
    return doc["text"], data


@event.command("list")
@click.option("--session", help="Only this session.")
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1, 10_000))
@click.option(
    "--after",
    "after_position",
    default=0,
    type=click.IntRange(0),
    help="Page: after this position.",
)
@pass_ctx
@handles_errors
def event_list(ctx: Context, session: str | None, limit: int, after_position: int) -> None:
    """List events in log order."""
    events = ctx.service().list_events(session=session, limit=limit, after_position=after_position)

    def human() -> None:
        for ev in events:
            line = ev.text.replace("\n", " ")
            click.echo(
                f"{ev.position:>6} {ev.ts:%Y-%m-%d %H:%M:%S} {ev.session_id} "
                f"{ev.actor.value}/{ev.trust.value} {ev.kind.value}: {line[:100]}"
            )

    ctx.emit(events, human)


@cli.group()
def key() -> None:
    """Manage the store's encryption key."""


@key.command("rotate")
@pass_ctx
@handles_errors
def key_rotate(ctx: Context) -> None:
    """Re-encrypt everything under a new key (resumable if interrupted)."""
    result = ctx.service().rotate_key()
    rep = result.value
    ctx.emit(
        rep,
        f"rotated {rep.old_key_id} -> {rep.new_key_id}: {rep.rows_reencrypted} values re-encrypted"
        + (" (resumed)" if rep.resumed else ""),
    )


@cli.command()
@click.option("--demo", is_flag=True, help="Open the demo store (sample data, apart from yours).")
@pass_ctx
def gui(ctx: Context, demo: bool) -> None:
    """Open the desktop memory center."""
    from app.gui import run_gui

    sys.exit(run_gui(ctx.data_dir, demo=demo))


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="memory-center")


__all__ = ["cli", "main", "to_jsonable"]

# The memory verbs live in their own module and register themselves on `cli`.
from app import cli_memory, cli_spool, cli_team  # noqa: E402, F401
from app.importers.cli import import_group  # noqa: E402
from app.mcp_server import mcp_command  # noqa: E402

cli.add_command(mcp_command)
cli.add_command(import_group)
from app.capture.cli import watch_command  # noqa: E402
from app.evaluation.cli import eval_group  # noqa: E402
from app.hooks.cli import hook_group  # noqa: E402

cli.add_command(hook_group)
cli.add_command(watch_command)
cli.add_command(eval_group)
