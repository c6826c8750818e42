"""CLI verbs of curated memory: `memory list|show|disable|...|export|import` (R13-R22)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from app.cli.helpers import echo_lines, line, scopes_option, show, write_file
from app.cli.root import Context, handles_errors, pass_ctx
from app.importers.base import read_source
from app.serialize import to_jsonable
from core import MemoryFilter, MemoryKind, MemoryStatus, Scope
from core.errors import InvalidInputError
from core.model import commands as c
from core.model.jsonsafe import parse_json

CLI = c.Origin("cli")


@click.group()
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
    records = ctx.service().memories.list_memories(flt)
    ctx.emit(records, echo_lines([line(r) for r in records], "no memories"))


@memory.command("show")
@click.argument("memory_id")
@pass_ctx
@handles_errors
def memoryshow(ctx: Context, memory_id: str) -> None:
    """Show one memory with its history."""
    svc = ctx.service()
    rec = svc.memories.get_memory(memory_id)
    history = svc.memories.history(rec.id)

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


def _simple(
    name: str, doc: str, call: type[c.Disable] | type[c.Enable], *, reason: bool = False
) -> None:
    @memory.command(name, help=doc)
    @click.argument("memory_id")
    @click.option("--by", help="Who acts.")
    @pass_ctx
    @handles_errors
    def command(ctx: Context, memory_id: str, by: str | None) -> None:
        rec = ctx.write(call(memory_id, by=by)).value
        show(ctx, rec, f"{name}d" if name.endswith("e") else f"{name}ed")

    del command


_simple("disable", "Keep a memory but never inject or return it.", c.Disable)
_simple("enable", "Make a disabled memory active again.", c.Enable)


@memory.command("downgrade")
@click.argument("memory_id")
@scopes_option()
@pass_ctx
@handles_errors
def memory_downgrade(ctx: Context, memory_id: str, scopes: tuple[str, ...]) -> None:
    """Narrow a memory's scope; give the complete new scope (e.g. add project=X)."""
    show(
        ctx,
        ctx.service().commands.run(c.NarrowScope(memory_id, Scope.parse(scopes)), CLI).value,
        "scope narrowed",
    )


@memory.command("exclude")
@click.argument("memory_id")
@click.option("--session", required=True, help="Session to keep it out of.")
@pass_ctx
@handles_errors
def memory_exclude(ctx: Context, memory_id: str, session: str) -> None:
    """Keep a memory out of one session's injections."""
    show(
        ctx,
        ctx.service().commands.run(c.Exclude(memory_id, session), CLI).value,
        f"excluded from {session}",
    )


@memory.command("quarantine")
@click.argument("memory_id")
@click.option("--reason", required=True, help="What went wrong.")
@pass_ctx
@handles_errors
def memory_quarantine(ctx: Context, memory_id: str, reason: str) -> None:
    """Incident action: stop injecting a memory everywhere; list the affected sessions."""
    rep = ctx.service().commands.run(c.Quarantine(memory_id, reason), CLI).value
    sessions = ", ".join(rep.affected_sessions) or "none"
    ctx.emit(rep, f"quarantined {rep.memory.id}; sessions that received it: {sessions}")


@memory.command("delete")
@click.argument("memory_id")
@click.option("--reason", required=True, help="Why (kept in the tombstone).")
@click.option("--purge", is_flag=True, help="Also destroy the content everywhere (irreversible).")
@click.option("--purge-events", is_flag=True, help="With --purge: redact the source events too.")
@click.option("--by", "requested_by", help="Who asks.")
@click.option(
    "--preview",
    is_flag=True,
    help="With --purge: show what would be redacted and kept; change nothing.",
)
@pass_ctx
@handles_errors
def memory_delete(
    ctx: Context,
    memory_id: str,
    reason: str,
    purge: bool,
    purge_events: bool,
    requested_by: str | None,
    preview: bool,
) -> None:
    """Delete a memory: tombstone and removal from every derived store (R19)."""
    if purge_events and not (purge or preview):
        # Said alone it was a plain delete: the events the user meant to redact stayed.
        raise click.UsageError("--purge-events redacts the source events of a purge: add --purge")
    if preview:
        plan = ctx.service().review.purge_preview(memory_id, purge_events=purge_events)
        lines = [f"a purge of {plan.memory_id} would redact:", *(f"  {r}" for r in plan.redacted)]
        lines += ["and keep:", *(f"  {k}" for k in plan.kept)]
        ctx.emit(plan, "\n".join(lines))
        return
    stone = ctx.write(
        c.Delete(
            memory_id,
            reason=reason,
            purge=purge,
            purge_events=purge_events,
            requested_by=requested_by,
        )
    ).value
    lines = [f"deleted {stone.memory_id}" + (" and purged" if stone.purged else ""), *stone.report]
    ctx.emit(stone, "\n".join(lines))


@memory.command("chain")
@click.argument("memory_id")
@pass_ctx
@handles_errors
def memory_chain(ctx: Context, memory_id: str) -> None:
    """The adoption chain: sources, activation, injections, corrections (R22)."""
    chain = ctx.service().memories.adoption_chain(memory_id)

    def human() -> None:
        click.echo(line(chain.memory))
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
    case = ctx.service().memories.export_regression(memory_id)
    text = json.dumps(case, ensure_ascii=False, indent=2)
    if output:
        write_file(Path(output), text + "\n", "--output")
        click.echo(f"wrote {output}", err=ctx.as_json)
    if ctx.as_json or not output:
        click.echo(text)


@memory.command("expire-sweep")
@pass_ctx
@handles_errors
def memory_expire_sweep(ctx: Context) -> None:
    """Record an `expire` decision for every memory whose validity has ended."""
    swept = ctx.service().commands.run(c.ExpireSweep(), CLI).value
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
    doc = svc.memories.export_memories(flt)
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
        # A regular file only, size-capped: a FIFO or a device is refused, not waited on (#38).
        raw = read_source(path)
    except ValueError as exc:
        raise InvalidInputError("path", f"{path}: {exc}") from None
    document = parse_json(raw, str(path))
    outcomes = ctx.service().commands.run(c.ImportMemories(document, by=by), CLI).value
    counts: dict[str, int] = {}
    for out in outcomes:
        counts[out.outcome] = counts.get(out.outcome, 0) + 1
    human = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "nothing to import"
    ctx.emit(outcomes, f"imported {len(outcomes)} memories: {human}")


@memory.command("changes")
@click.option("--memory", "memory_id", help="Only the changes of this memory.")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 1000))
@pass_ctx
@handles_errors
def memory_changes(ctx: Context, memory_id: str | None, limit: int) -> None:
    """The journal of changes, newest first: what each did to each memory (#39)."""
    found = ctx.service().review.changes(limit=limit, memory_id=memory_id)

    def human() -> None:
        if not found:
            click.echo("no journalled changes")
        for command in found:
            state = " (undone)" if command.undone_by else ""
            undoes = f" undoes {command.undoes}" if command.undoes else ""
            click.echo(
                f"{command.id} {command.ts:%Y-%m-%d %H:%M} {command.action} "
                f"by {command.actor}{undoes}{state}"
            )
            for entry in command.entries:
                before = entry.before["status"] if entry.before else "(new)"
                click.echo(f"    {entry.memory_id}: {before} -> {entry.after['status']}")

    ctx.emit(found, human)


@memory.command("undo")
@click.argument("change_id", required=False)
@click.option("--last", is_flag=True, help="Undo the latest change not undone yet.")
@click.option("--by", help="Who acts.")
@pass_ctx
@handles_errors
def memory_undo(ctx: Context, change_id: str | None, last: bool, by: str | None) -> None:
    """Undo one change (an id from `memory changes`); undoing an undo redoes it (#39)."""
    svc = ctx.service()
    if last == (change_id is not None):
        raise InvalidInputError("change", "give either a change id or --last")
    if last:
        pending = [c for c in svc.review.changes(limit=200) if not c.undone_by and not c.undoes]
        if not pending:
            raise InvalidInputError("change", "no change left to undo")
        change_id = pending[0].id
    result = svc.commands.run(c.UndoChange(str(change_id), by=by), CLI)
    human = f"undone {change_id} (as {result.changes.command_id})"
    for rec in result.value:
        human += "\n" + line(rec)
    out = {"undone": change_id, "as": result.changes.command_id, "memories": result.value}
    ctx.emit(out, human)
