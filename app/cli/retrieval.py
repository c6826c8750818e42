"""CLI verbs of the read path: `search`, `inject`, `snapshot show`, `replay`, `resume` (R13-R21)."""

from __future__ import annotations

import json

import click

from app.cli.display import shown
from app.cli.helpers import scopes_option
from app.cli.root import Context, handles_errors, pass_ctx
from app.serialize import to_jsonable
from core import Scope


@click.command()
@scopes_option()
@click.argument("query")
@click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 100))
@click.option("--session", help="The session asking.")
@pass_ctx
@handles_errors
def search(
    ctx: Context, scopes: tuple[str, ...], query: str, limit: int, session: str | None
) -> None:
    """Search active memory visible to a scope (the model's search_memory)."""
    hits = ctx.service().retrieval.search_memory(
        Scope.parse(scopes), query, limit=limit, session=session
    )

    def human() -> None:
        for h in hits:
            notes = f" [{', '.join(h.notes)}]" if h.notes else ""
            text = f"{h.speaker}: {h.content}" if h.speaker else h.content
            click.echo(f"{h.score:.3f} {h.memory_id} {h.kind:<11} {text[:90]}{notes}")
            click.echo(f"      why visible: {h.why_visible}")
        if not hits:
            click.echo("no matching memory")

    ctx.emit(hits, human)


# Seconds a one-shot `inject` waits for the model and the indexes to load.
ONE_SHOT_LOAD_SECONDS = 60.0
# What the last line says about how the block was answered (`InjectResult.mode`, #44).
MODE_NOTES = {
    "hybrid": "keyword and vector search",
    "keyword": "keyword search (no embedder)",
    "keyword_only": "keyword search only: the vector path was unavailable (see the snapshot)",
    "opted_out": "opted out: this session asked for no memory",
    "paused": "paused: memory is paused for this agent",
    "degraded": "DEGRADED: memory unavailable",
}


@click.command()
@scopes_option()
@click.argument("goal")
@click.option(
    "--budget",
    default=400,
    show_default=True,
    type=click.IntRange(1, 100_000),
    help="Token budget of the block.",
)
@click.option("--session", help="The session the model call belongs to.")
@pass_ctx
@handles_errors
def inject(
    ctx: Context, scopes: tuple[str, ...], goal: str, budget: int, session: str | None
) -> None:
    """Build the memory block for a model call and record its snapshot."""
    svc = ctx.service()
    # A one-shot command has no agent turn to protect: it waits for the model, the catalog
    # and the vector file to load (together), so the hot-path limit measures the read, not
    # the start of this process, and the block is the one an agent's warm store gives (#44).
    svc.index.warm_up(wait=ONE_SHOT_LOAD_SECONDS)
    res = svc.retrieval.inject(Scope.parse(scopes), goal, budget, session=session).value
    if ctx.as_json:
        click.echo(
            json.dumps(
                to_jsonable(
                    {"result": res, "snapshot": svc.retrieval.get_snapshot(res.snapshot_id)}
                ),
                ensure_ascii=False,
                indent=2,
            )
        )
        return
    click.echo(shown(res.text) or "(no memory injected)")
    how = MODE_NOTES.get(res.mode, res.mode)
    click.echo(f"\nsnapshot {res.snapshot_id} · {res.tokens} tokens · {how}", err=True)


@click.group()
def snapshot() -> None:
    """Snapshots of what model calls were given (R18)."""


@snapshot.command("show")
@click.argument("snapshot_id")
@pass_ctx
@handles_errors
def snapshot_show(ctx: Context, snapshot_id: str) -> None:
    """Print a snapshot: request, hits with scores, injected, dropped with reasons."""
    snap = ctx.service().retrieval.get_snapshot(snapshot_id)

    def human() -> None:
        click.echo(f"snapshot {snap.id}  session {snap.session_id}  revision {snap.store_revision}")
        click.echo(f"scope {snap.scope}  budget {snap.budget_tokens}  goal: {snap.goal}")
        click.echo(
            f"policy {snap.policy_version}  index {snap.index_version}  embedder {snap.embedder}"
        )
        for h in snap.hits:
            click.echo(f"  hit     {h.score:.3f} {h.memory_id}")
        for i in snap.injected:
            click.echo(
                f"  inject  {i.memory_id}{' (digest)' if i.in_digest else ''}: {i.why_visible}"
            )
        for d in snap.dropped:
            click.echo(f"  dropped {d.memory_id}: {d.reason}")
        click.echo("\n" + (snap.text or "(empty)"))

    ctx.emit(snap, human)


@click.command()
@click.argument("snapshot_id")
@pass_ctx
@handles_errors
def replay(ctx: Context, snapshot_id: str) -> None:
    """Diagnostic replay: what a model call was given, and what changed since (R21)."""
    rep = ctx.service().retrieval.replay(snapshot_id)

    def human() -> None:
        click.echo(rep.text or "(nothing was injected)")
        for item in rep.items:
            marks = ", ".join(item.marks) or "unchanged"
            click.echo(f"  {item.memory_id}: {marks} {' '.join(item.details)}")

    ctx.emit(rep, human)


@click.command()
@click.argument("session")
@click.option("--snapshot", "snapshot_id", help="Snapshot to resume from (default: the latest).")
@pass_ctx
@handles_errors
def resume(ctx: Context, session: str, snapshot_id: str | None) -> None:
    """Live resume through the ResumeGate: what may be injected again now (R21)."""
    res = ctx.service().retrieval.resume(session, snapshot_id)

    def human() -> None:
        click.echo(res.text or "(nothing to re-inject)")
        for d in res.removed:
            click.echo(f"  removed {d.memory_id}: {d.reason}")
        for c in res.changed:
            click.echo(f"  changed {c}")

    ctx.emit(res, human)
