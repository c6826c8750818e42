"""`memory-center mcp` and the standalone `memory-center-mcp`: start the server over stdio."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from app.mcp_server.config import DEFAULT_BUDGET, ServerSettings, settings_from
from app.mcp_server.gateway import Gateway
from app.mcp_server.tools import build_server
from app.mcp_server.transport import run_stdio
from app.paths import DATA_DIR_ENV, default_data_dir
from core import MemoryCenterError

if TYPE_CHECKING:
    from app.cli import Context

log = logging.getLogger("memory_center.mcp")


def serve(settings: ServerSettings) -> None:
    """Run the server over stdio until the client disconnects."""
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.WARNING,
        format="memory-center mcp: %(levelname)s %(message)s",
    )
    if not settings.scope:
        log.warning("no scope configured (--scope key=value): every tool call will fail")
    gateway = Gateway(settings)
    try:
        run_stdio(build_server(gateway))
    finally:
        gateway.close()


# --- the command line ---------------------------------------------------------------------------

F = TypeVar("F", bound=Callable[..., Any])


def _server_options(func: F) -> F:
    options = [
        click.option(
            "--scope",
            "scopes",
            multiple=True,
            metavar="KEY=VALUE",
            help="Default scope of every call (repeatable); calls may only narrow it.",
        ),
        click.option("--session", help="Session the events go to (default: mcp-<time>-<pid>)."),
        click.option(
            "--config",
            type=click.Path(dir_okay=False, exists=True, path_type=Path),
            help="TOML or JSON file with scope, session, budget_tokens, user_trust.",
        ),
        click.option(
            "--budget-tokens",
            type=click.IntRange(1, 100_000),
            help=f"Default get_context budget (default {DEFAULT_BUDGET}).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _start(
    data_dir: Path,
    scopes: tuple[str, ...],
    session: str | None,
    config: Path | None,
    budget_tokens: int | None,
) -> None:
    try:
        settings = settings_from(
            data_dir=data_dir,
            scopes=scopes,
            session=session,
            config=config,
            budget_tokens=budget_tokens,
        )
    except MemoryCenterError as exc:
        click.echo(f"error: {exc.message}", err=True)
        sys.exit(1)
    serve(settings)


@click.command("mcp")
@_server_options
@click.pass_obj
def mcp_command(
    obj: Context,
    scopes: tuple[str, ...],
    session: str | None,
    config: Path | None,
    budget_tokens: int | None,
) -> None:
    """Run the MCP server (stdio) for agents; see docs/mcp.md."""
    _start(obj.data_dir, scopes, session, config, budget_tokens)


@click.command("memory-center-mcp")
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    envvar=DATA_DIR_ENV,
    help=f"Store directory (env {DATA_DIR_ENV}).",
)
@_server_options
def standalone(
    data_dir: Path | None,
    scopes: tuple[str, ...],
    session: str | None,
    config: Path | None,
    budget_tokens: int | None,
) -> None:
    """Run the MCP server (stdio) without the main CLI."""
    _start(data_dir or default_data_dir(), scopes, session, config, budget_tokens)


def main() -> None:
    """Entry point: `python -c "from app.mcp_server import main; main()" --scope user=me`."""
    standalone(prog_name="memory-center-mcp")
