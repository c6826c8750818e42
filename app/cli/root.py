"""The root of the `memory-center` command line (R30): the group, its context, error handling.

Every verb takes `--json`; exit codes are 0 on success, 1 on a failure the user can fix (a
one-line message on stderr), and 2 on usage errors. With no verb it starts the GUI. The verb
groups live in their own modules of this package and import this one; `app.cli` assembles them.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import io
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from app.cli.display import shown
from app.cli.options import CommonOptionsGroup
from app.paths import DATA_DIR_ENV, default_data_dir

if TYPE_CHECKING:
    from core import MemoryService
    from core.model.commands import Command
    from core.model.records import Result

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")
# A store kept open by the local daemon (`app/hooks/cli_serve.py`) for the command it runs:
# (its data directory, resolved; the open service).
_BORROWED: contextvars.ContextVar[tuple[str, MemoryService] | None] = contextvars.ContextVar(
    "memory_center_borrowed_service", default=None
)


@contextlib.contextmanager
def borrowed_service(data_dir: Path, service: MemoryService) -> Iterator[None]:
    """Commands run inside use `service` for the store at `data_dir` instead of opening it,
    and leave it open."""
    token = _BORROWED.set((os.path.realpath(data_dir), service))
    try:
        yield
    finally:
        _BORROWED.reset(token)


class Context:
    """Per-invocation state: where the store is and how to print."""

    def __init__(self, data_dir: Path, as_json: bool) -> None:
        self.data_dir = data_dir
        self.as_json = as_json
        self._service: MemoryService | None = None
        self._borrowed = False
        self.database_url: str | None = None
        self.member: str | None = None

    def service(self, *, create: bool = False, check_embedder: bool = True) -> MemoryService:
        """Open the store once per invocation.

        A configured embedder that cannot load stops every command with one line, except
        the `index` commands that show and repair it (`check_embedder=False`).
        """
        if self._service is None:
            self._service = self._borrow(create)
        if self._service is None:
            # Imported here: the engine loads for commands that open the store, not for help.
            from app.compose import open_service

            self._service = open_service(
                self.data_dir,
                create=create,
                prompt=_prompt_passphrase,
                database_url=self.database_url,
                member=self.member,
                warm_model=False,
            )
        if check_embedder:
            self._service.index.check_embedder()
        return self._service

    def _borrow(self, create: bool) -> MemoryService | None:
        """The daemon's open service when it serves exactly this store (not for `init`)."""
        lent = _BORROWED.get()
        if lent is None or create or self.database_url or self.member:
            return None
        if os.path.realpath(self.data_dir) != lent[0]:
            return None
        self._borrowed = True
        return lent[1]

    def write(self, command: Command[T]) -> Result[T]:
        """Carry out one change as a command from the CLI (#39, `service.commands`).

        On a store kept on a server that cannot be reached, even to open it, a spoolable
        write is sealed into this machine's spool with its local copy of the key set, and the
        command fails with the same "kept in this machine's spool" error an open store
        gives; the next write to the open store (or `spool flush`) applies it (R23).
        """
        from core import ServerUnavailableError
        from core.model.commands import Origin

        try:
            service = self.service()
        except ServerUnavailableError as away:
            from app.compose import offline_writer
            from core.services.commands import HANDLERS

            writer = offline_writer(self.data_dir, away.message, _prompt_passphrase)
            namespace, operation = HANDLERS[type(command)]
            raise writer.spool(f"{namespace}.{operation}", **command.arguments()) from None
        return service.commands.run(command, Origin("cli"))

    def close(self) -> None:
        """Release the store."""
        if self._service is not None and not self._borrowed:
            self._service.close()
        self._service = None
        self._borrowed = False

    def emit(self, value: Any, human: Callable[[], None] | str) -> None:
        """Print `value` as JSON, or the human form."""
        if self.as_json:
            from app.serialize import dumps

            click.echo(dumps(value))
        elif isinstance(human, str):
            click.echo(shown(human))
        else:
            # Whatever the listing prints is neutralised at once (app/cli/display.py).
            printed = _Captured()
            with contextlib.redirect_stdout(printed):
                human()
            click.echo(shown(printed.getvalue()), nl=False)


class _Captured(io.StringIO):
    """A listing's output before `shown` escapes it. It says it is a terminal so that click
    leaves escape sequences in for `shown` to make visible, instead of dropping some."""

    def isatty(self) -> bool:
        return True


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
        from core.errors import MemoryCenterError

        ctx = click.get_current_context().find_object(Context)
        try:
            return func(*args, **kwargs)
        except MemoryCenterError as exc:
            if ctx is not None and ctx.as_json:
                click.echo(json.dumps({"error": {"kind": exc.kind, "message": exc.message}}))
            click.echo(f"error: {shown(exc.message)}", err=True)
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
        click.echo(f"error: {shown(self.message)}", err=True)


class CheckedGroup(CommonOptionsGroup):
    """The root group: refuses arguments that are not valid UTF-8 before any verb runs.

    The OS hands Python undecodable argument bytes as lone surrogates; they would travel
    into the store (or crash the encoder) far from the command line.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        for index, arg in enumerate(args):
            if not arg.isascii() and _has_lone_surrogate(arg):
                before = args[index - 1] if index else ""
                what = f"the value of {before}" if before.startswith("-") else f"argument {arg!r}"
                raise BadArgument(f"{what} is not valid UTF-8 text", "--json" in args[:index])
        return super().parse_args(ctx, args)


def _has_lone_surrogate(arg: str) -> bool:
    from core.model.jsonsafe import has_lone_surrogate

    return has_lone_surrogate(arg)


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
@click.option("--demo", is_flag=True, help="Open the demo store (sample data, apart from yours).")
@pass_ctx
def gui(ctx: Context, demo: bool) -> None:
    """Open the desktop memory center."""
    from app.gui_start import start_gui
    from app.one_shot import end_process

    # The window closed its store and waited for its writes: nothing is left to free.
    end_process(start_gui(ctx.data_dir, demo=demo))


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="memory-center")
