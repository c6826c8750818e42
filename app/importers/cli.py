"""`memory-center import claude-code|codex|chatgpt PATH [--scope KEY=VALUE]`: the importer verbs.

Without --scope, imported events belong to the login user (`user=<login name>`), as the
hooks and the desktop importer scope them; Claude Code sessions also get their project
folder's name (`project=...`) as they do. An import that finds nothing to import (every line
skipped, an empty file, a FIFO or a device) says why and exits 1; one that imports something
exits 0 and lists what it skipped (#38).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from app.hooks.workspace import login_user
from app.importers import chatgpt, claude_code, codex
from app.importers.base import ImportReport, Problem, SourceSession, printable, write_sessions
from core import MemoryCenterError, MemoryService, Scope

if TYPE_CHECKING:
    from app.cli import Context

Parser = Callable[[Path], tuple[list[SourceSession], list[Problem]]]


@click.group("import")
def import_group() -> None:
    """Import agent transcripts into the event log; suggestions go to the review queue."""


def _common(func: Any) -> Any:
    func = click.option(
        "--scope",
        "scopes",
        multiple=True,
        metavar="KEY=VALUE",
        help="Scope of the imported events (repeatable), e.g. user=alice; "
        "default: user=<your login name>.",
    )(func)
    func = click.option(
        "--extract/--no-extract",
        default=True,
        show_default=True,
        help="Run extraction afterwards so suggestions reach the review queue.",
    )(func)
    return click.argument("path", type=click.Path(exists=True, path_type=Path))(func)


@import_group.command("claude-code")
@_common
@click.pass_obj
def import_claude_code(obj: Context, path: Path, scopes: tuple[str, ...], extract: bool) -> None:
    """Import Claude Code transcripts: one .jsonl file or a directory of them.

    Without a project key in --scope, each session is scoped to its working directory's name.
    """
    _run(obj, path, scopes, claude_code.parse, "import:claude-code", extract)


@import_group.command("codex")
@_common
@click.pass_obj
def import_codex(obj: Context, path: Path, scopes: tuple[str, ...], extract: bool) -> None:
    """Import Codex CLI session logs: one rollout-*.jsonl file or a sessions directory.

    Without a project key in --scope, each session is scoped to its working directory's name.
    """
    _run(obj, path, scopes, codex.parse, "import:codex", extract)


@import_group.command("chatgpt")
@_common
@click.pass_obj
def import_chatgpt(obj: Context, path: Path, scopes: tuple[str, ...], extract: bool) -> None:
    """Import a ChatGPT export: conversations.json (or the unzipped export directory)."""
    _run(obj, path, scopes, chatgpt.parse, "import:chatgpt", extract)


def _run(
    obj: Context, path: Path, scopes: tuple[str, ...], parse: Parser, name: str, extract: bool
) -> None:
    try:
        given = dict(Scope.parse(scopes).items_)
        scope = Scope.required(given or {"user": login_user()})
        sessions, problems = parse(path)
        report = ImportReport(problems=list(problems))
        if not sessions:
            _nothing(path, problems)
        service = obj.service(create=True)
        _write(obj, service, sessions, scope, report, name, extract)
    except MemoryCenterError as exc:
        click.echo(f"error: {exc.message}", err=True)
        sys.exit(1)
    finally:
        obj.close()
    _print(obj, report)


def _nothing(path: Path, problems: list[Problem]) -> None:
    """Nothing in `path` could be imported: say why on stderr and exit 1."""
    for problem in problems:
        click.echo(f"skipped {problem}", err=True)
    reason = f"{len(problems)} skipped" if problems else "no conversation in it"
    click.echo(f"error: {printable(str(path))}: nothing to import ({reason})", err=True)
    sys.exit(1)


def _write(
    obj: Context,
    service: MemoryService,
    sessions: list[SourceSession],
    scope: Scope,
    report: ImportReport,
    name: str,
    extract: bool,
) -> None:
    if obj.as_json or not sessions:
        write_sessions(service, sessions, scope, report, importer=name, extract=extract)
        return
    with click.progressbar(
        length=len(sessions), label="importing sessions", file=sys.stderr
    ) as bar:
        write_sessions(
            service,
            sessions,
            scope,
            report,
            importer=name,
            extract=extract,
            progress=lambda _s: bar.update(1),
        )


def _print(obj: Context, report: ImportReport) -> None:
    for problem in report.problems:
        click.echo(f"skipped {problem}", err=True)
    summary = {
        "sessions_seen": report.sessions_seen,
        "sessions_written": report.sessions_written,
        "events_written": report.events_written,
        "events_already_present": report.events_already_present,
        "sessions_resumed": report.sessions_resumed,
        "suggestions": dict(report.suggestions),
        "problems": [str(p) for p in report.problems],
    }
    outcomes = ", ".join(f"{v} {k}" for k, v in sorted(report.suggestions.items())) or "none"
    resumed = (
        f"; extraction finished for {report.sessions_resumed} sessions an earlier run left"
        if report.sessions_resumed
        else ""
    )
    obj.emit(
        summary,
        f"imported {report.events_written} events in {report.sessions_written} sessions "
        f"({report.events_already_present} already present, {len(report.problems)} skipped)"
        f"{resumed}; suggested memories: {outcomes}",
    )
