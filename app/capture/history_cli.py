"""`memory-center history recent|search`: recall of past work from the event log (#42)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from app.capture import history as past_work
from core import MemoryCenterError, Scope

if TYPE_CHECKING:
    from app.cli import Context


@click.group("history")
def history_group() -> None:
    """Past sessions from the event log: what was asked, touched, run, and how it ended.

    Only what the scope may see; nothing of opted-out sessions; purged events never."""


def _scope_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--scope",
        "scopes",
        multiple=True,
        required=True,
        metavar="KEY=VALUE",
        help="The scope looking back (repeatable), e.g. user=alice project=billing.",
    )(func)


@history_group.command("search")
@click.argument("query")
@_scope_option
@click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 100))
@click.pass_obj
def history_search(obj: Context, query: str, scopes: tuple[str, ...], limit: int) -> None:
    """Events whose text holds every word of QUERY, newest first, as quotes."""
    try:
        scope = Scope.required(dict(Scope.parse(scopes).items_))
        hits = past_work.search(obj.service(), scope, query, limit=limit)
    except MemoryCenterError as exc:
        click.echo(f"error: {exc.message}", err=True)
        sys.exit(1)
    finally:
        obj.close()
    lines = [
        f"{h.at[:16]}  {h.session}  {h.actor}: {h.quote}\n    replay: {h.replay}" for h in hits
    ]
    obj.emit([h.__dict__ for h in hits], "\n".join(lines) or "nothing found")


@history_group.command("recent")
@_scope_option
@click.option("--project", default=None, help="The project's name in the heading.")
@click.pass_obj
def history_recent(obj: Context, scopes: tuple[str, ...], project: str | None) -> None:
    """The "last time in this project" section SessionStart adds, for this scope."""
    try:
        scope = Scope.required(dict(Scope.parse(scopes).items_))
        name = project or scope.get("project") or "this scope"
        text = past_work.last_time(obj.service(), scope, "", name, 4_000)
    except MemoryCenterError as exc:
        click.echo(f"error: {exc.message}", err=True)
        sys.exit(1)
    finally:
        obj.close()
    obj.emit({"text": text}, text or "no earlier session in this scope")
