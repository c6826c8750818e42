"""`--json` and `--data-dir` at every level of the command line.

`memory-center --json memory list` and `memory-center memory list --json` mean the same; the
options are added to every command and group when it is looked up, so commands registered by
any module (memory verbs, importers, the MCP server) get them without repeating them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from app.cli.lazy import LazyGroup

COMMON = ("common_json", "common_data_dir")


def _set_json(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        for obj in _contexts(ctx):
            obj.as_json = True


def _set_data_dir(ctx: click.Context, _param: click.Parameter, value: Path | None) -> None:
    if value is not None:
        for obj in _contexts(ctx):
            obj.data_dir = value


def _contexts(ctx: click.Context) -> list[Any]:
    # The root group's callback has made the per-invocation Context before any subcommand
    # parses its arguments; `find_object` walks up to it.
    found = ctx.find_root().obj
    return [found] if found is not None else []


def _options() -> list[click.Option]:
    return [
        click.Option(
            ["--json", COMMON[0]],
            is_flag=True,
            expose_value=False,
            callback=_set_json,
            help="Print machine-readable JSON (also accepted before the command).",
        ),
        click.Option(
            ["--data-dir", COMMON[1]],
            type=click.Path(file_okay=False, path_type=Path),
            expose_value=False,
            callback=_set_data_dir,
            help="Store directory (also accepted before the command).",
        ),
    ]


def with_common_options(command: click.Command) -> click.Command:
    """Give `command` (and, for a group, every command below it) `--json` and `--data-dir`."""
    names = {p.name for p in command.params}
    flags = {opt for p in command.params for opt in getattr(p, "opts", [])}
    if COMMON[0] not in names and "--json" not in flags:
        command.params.extend(o for o in _options() if not set(o.opts) & flags)
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            with_common_options(sub)
    return command


class CommonOptionsGroup(LazyGroup):
    """The root group: every subcommand accepts `--json` and `--data-dir` too."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """Look a subcommand up and make sure it has the common options."""
        command = super().get_command(ctx, cmd_name)
        return with_common_options(command) if command is not None else None
