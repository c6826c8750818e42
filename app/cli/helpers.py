"""Shared pieces of the memory verbs: the scope option, one-line rendering, safe file writes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from app.cli.root import Context, F
from core import SCOPE_KEYS, SCOPE_KINDS, MemoryRecord


def scopes_option(required: bool = True) -> Callable[[F], F]:
    """`--scope key=value`, repeatable."""
    return click.option(
        "--scope",
        "scopes",
        multiple=True,
        required=required,
        metavar="KEY=VALUE",
        help=f"Scope (repeatable): {', '.join(k for k in SCOPE_KEYS if k in SCOPE_KINDS)}.",
    )


def line(rec: MemoryRecord, now: Any = None) -> str:
    """One memory on one line: id, status, kind, scope, content, flags."""
    flags = f" [{','.join(sorted(rec.flags))}]" if rec.flags else ""
    status = rec.effective_status(now) if now is not None else rec.status.value
    text = f"{rec.speaker}: {rec.content}" if rec.speaker else rec.content
    return f"{rec.id}  {status:<11} {rec.kind.value:<16} {rec.scope}  {text[:90]}{flags}"


def echo_lines(lines: list[str], empty: str) -> Callable[[], None]:
    """The human form of a list: its lines, or `empty` when there are none."""

    def human() -> None:
        click.echo("\n".join(lines) if lines else empty)

    return human


def show(ctx: Context, rec: MemoryRecord, message: str) -> None:
    """Emit one memory after a message saying what happened to it."""
    ctx.emit(rec, f"{message}\n{line(rec)}")


def write_file(path: Path, text: str, field: str) -> None:
    """Write a whole file owner-only, or nothing, over nothing or a regular file only: a
    failure names the path and the reason (`core.write_user_file`)."""
    from core import write_user_file

    write_user_file(path, text.encode("utf-8"), field)
