"""Verb modules loaded only when their command is used.

Each `memory-center` call runs one verb, so importing every verb module (and through them the
engine, numpy and the embedder) up front is start-up time paid for nothing. The root group's
command table holds, per verb, where it lives and its one-line help; the module is imported
the first time the command is looked up. The help listing uses the recorded line, so
`memory-center --help` imports no verb module at all.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass

import click


@dataclass(frozen=True)
class LazyVerb:
    """A command not imported yet: `module:attribute`, and its help's first sentence."""

    target: str
    summary: str

    def load(self) -> click.Command:
        """Import the module and return the command it defines."""
        module_name, _, attribute = self.target.partition(":")
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{self.target} is not a click command")
        return command


class LazyCommands(MutableMapping[str, click.Command]):
    """A click command table whose entries are imported on first access.

    Listing names (`iter`, `in`, `len`) imports nothing; reading an entry imports its module.
    """

    def __init__(self, lazy: dict[str, LazyVerb] | None = None) -> None:
        self._loaded: dict[str, click.Command] = {}
        self._lazy: dict[str, LazyVerb] = dict(lazy or {})

    def add_lazy(self, name: str, target: str, summary: str) -> None:
        """Register `name` without importing it."""
        self._loaded.pop(name, None)
        self._lazy[name] = LazyVerb(target, summary)

    def pending(self, name: str) -> LazyVerb | None:
        """The lazy entry of `name` when it has not been imported yet."""
        return None if name in self._loaded else self._lazy.get(name)

    def __getitem__(self, name: str) -> click.Command:
        if name not in self._loaded:
            verb = self._lazy[name]  # KeyError for an unknown name, as a dict would
            self._loaded[name] = verb.load()
        return self._loaded[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._lazy.pop(name, None)
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self._loaded.pop(name, None)
        self._lazy.pop(name, None)

    def __contains__(self, name: object) -> bool:
        return name in self._loaded or name in self._lazy

    def __iter__(self) -> Iterator[str]:
        yield from self._loaded
        yield from (name for name in self._lazy if name not in self._loaded)

    def __len__(self) -> int:
        return len(self._loaded.keys() | self._lazy.keys())


class LazyGroup(click.Group):
    """A group over a `LazyCommands` table; its help lists verbs without importing them."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        table = LazyCommands()
        table.update(self.commands)
        self.commands = table

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The `Commands:` section, from recorded summaries where a verb is not loaded."""
        rows: list[tuple[str, click.Command]] = []
        table = self.commands
        for name in self.list_commands(ctx):
            verb = table.pending(name) if isinstance(table, LazyCommands) else None
            command = (
                click.Command(name, help=verb.summary) if verb else self.get_command(ctx, name)
            )
            if command is not None and not command.hidden:
                rows.append((name, command))
        if rows:
            limit = formatter.width - 6 - max(len(name) for name, _ in rows)
            with formatter.section("Commands"):
                formatter.write_dl([(name, cmd.get_short_help_str(limit)) for name, cmd in rows])
