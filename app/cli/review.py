"""CLI verbs of the write path and the review queue: `remember`, `extract`, `candidates` (R7)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from app.cli.helpers import echo_lines, line, scopes_option, show
from app.cli.root import Context, handles_errors, pass_ctx
from core import MemoryFilter, Scope
from core.model import commands as c
from core.model.limits import MAX_BATCH

CLI = c.Origin("cli")


if TYPE_CHECKING:
    from core import MemoryRecord, MemoryService


@click.command()
@scopes_option()
@click.option("--text", required=True, help="What to remember, in your words.")
@click.option("--kind", help="preference, fact, convention or decision (default: inferred).")
@click.option("--session", help="Session the request belongs to.")
@click.option("--expires-in-days", type=float, help="How long it stays valid.")
@click.option("--by", help="Who asks (default: the scope's user).")
@click.option("--said-at", help="When it was said (ISO-8601), for history recorded later.")
@click.option("--speaker", help="Who said it (a name), kept out of the text.")
@click.option(
    "--replaces",
    multiple=True,
    metavar="MEMORY",
    help="A memory this one replaces (id or m: reference); repeatable.",
)
@click.option("--same-as", metavar="MEMORY", help="A memory this one restates: merged into it.")
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
    said_at: str | None,
    speaker: str | None,
    replaces: tuple[str, ...],
    same_as: str | None,
) -> None:
    """Remember something, as the user's explicit request (the policy still checks it)."""
    out = ctx.write(
        c.Remember(
            Scope.parse(scopes),
            text,
            session=session,
            kind=kind,
            expires_in_days=expires_in_days,
            by=by,
            said_at=said_at,
            speaker=speaker,
            replaces=replaces,
            same_as=same_as,
        )
    ).value
    human = f"{out.outcome}: " + "; ".join(out.reasons)
    if out.record is not None:
        human += "\n" + line(out.record)
    ctx.emit(out, human)


@click.command()
@click.option("--session", required=True, help="Session whose events to read.")
@pass_ctx
@handles_errors
def extract(ctx: Context, session: str) -> None:
    """Run extraction over a session: suggested memories land in the review queue."""
    outcomes = ctx.service().commands.run(c.Extract(session), CLI).value

    def human() -> None:
        if not outcomes:
            click.echo("nothing to suggest")
        for out in outcomes:
            rec = out.record
            click.echo(
                f"{out.outcome:<11} {rec.content[:90] if rec else ''}  ({'; '.join(out.reasons)})"
            )

    ctx.emit(outcomes, human)


@click.group()
def candidates() -> None:
    """The review queue: suggested and quarantined memories."""


@candidates.command("list")
@click.option("--all", "include_quarantined", is_flag=True, help="Include quarantined items.")
@pass_ctx
@handles_errors
def candidates_list(ctx: Context, include_quarantined: bool) -> None:
    """List memories waiting for review."""
    statuses = ("candidate", "quarantined") if include_quarantined else ("candidate",)
    records = ctx.service().memories.list_memories(MemoryFilter(statuses=statuses, limit=10_000))
    ctx.emit(records, echo_lines([line(r) for r in records], "queue empty"))


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
    all the --scope pairs given, in transactions of at most 10,000.
    """
    if bool(memory_ids) == all_suggested:
        raise click.UsageError("give memory ids or --all-suggested, not both and not neither")
    if scopes and not all_suggested:
        raise click.UsageError("--scope narrows --all-suggested; it does not go with ids")
    if len(memory_ids) == 1:
        show(ctx, ctx.write(c.Approve(memory_ids[0], by=by)).value, "approved")
        return
    svc = ctx.service()
    ids = list(memory_ids) or _suggested(svc, scopes)
    if memory_ids and len(ids) > MAX_BATCH:
        raise click.UsageError(f"at most {MAX_BATCH} ids at once (one transaction); got {len(ids)}")
    records: list[MemoryRecord] = []
    # Every suggestion may be more than one transaction takes: approve them a batch at a time.
    for start in range(0, len(ids), MAX_BATCH):
        chunk = tuple(ids[start : start + MAX_BATCH])
        records += svc.commands.run(c.ApproveMany(chunk, by=by), CLI).value
    lines = [f"approved {len(records)}", *(line(r) for r in records)] if records else []
    ctx.emit(records, echo_lines(lines, "nothing to approve"))


def _suggested(svc: MemoryService, scopes: tuple[str, ...]) -> list[str]:
    within = Scope.parse(scopes) if scopes else None
    flt = MemoryFilter(statuses=("candidate",), scope_contains=within, limit=1_000_000)
    return [r.id for r in svc.memories.list_memories(flt)]


@candidates.command("settle")
@click.argument("memory_ids", nargs=-1)
@click.option("--limit", type=int, default=50, show_default=True, help="At most this many.")
@pass_ctx
@handles_errors
def candidates_settle(ctx: Context, memory_ids: tuple[str, ...], limit: int) -> None:
    """Ask the model judge about "possibly the same as / replaces / contradicts" items.

    The judge is the chat model named by MEMORY_CENTER_JUDGE_URL and
    MEMORY_CENTER_JUDGE_MODEL (off unless set). Its answers are applied under the trust
    rules: an agent's suggestion stays for you whatever it says; each step is a decision
    naming the model. Without ids: the oldest items of the queue.
    """
    settled = ctx.write(c.SettleWithModel(memory_ids, limit=limit)).value
    lines = [
        f"{s.outcome:<15} {s.memory_id} {s.asked} {s.other_id}"
        + (f": {s.answer}" if s.answer else "")
        + f" ({s.reason})"
        for s in settled
    ]
    ctx.emit(settled, echo_lines(lines, "nothing to settle"))


@candidates.command("answer")
@click.argument("memory_id")
@click.argument("answer", type=click.Choice(["same", "replaces", "both_true", "unrelated"]))
@click.option("--by", help="Who answers (default: the scope's user).")
@pass_ctx
@handles_errors
def candidates_answer(ctx: Context, memory_id: str, answer: str, by: str | None) -> None:
    """Answer an item "possibly the same as / replaces / contradicts m:...".

    same: merged into the other as more evidence; replaces: it becomes active and
    supersedes the other; both_true or unrelated: it becomes active beside the other. Each
    answer is a decision in the log, and `memory undo --last` reverses it.
    """
    records = ctx.write(c.AnswerPossible(memory_id, answer, by=by)).value
    lines = [f"answered {answer}", *(line(r) for r in records)]
    ctx.emit(records, echo_lines(lines, "nothing changed"))


@candidates.command("reject")
@click.argument("memory_id")
@click.option("--reason", help="Why (kept with the decision).")
@pass_ctx
@handles_errors
def candidates_reject(ctx: Context, memory_id: str, reason: str | None) -> None:
    """Reject a suggested memory."""
    show(ctx, ctx.write(c.Reject(memory_id, reason=reason)).value, "rejected")


@candidates.command("edit")
@click.argument("memory_id")
@click.option("--text", required=True, help="The corrected content.")
@click.option("--approve", "then_approve", is_flag=True, help="Approve after editing.")
@pass_ctx
@handles_errors
def candidates_edit(ctx: Context, memory_id: str, text: str, then_approve: bool) -> None:
    """Edit a suggested memory (optionally approve it in the same command)."""
    svc = ctx.service()
    rec = svc.commands.run(c.Edit(memory_id, text), CLI).value
    if then_approve:
        rec = svc.commands.run(c.Approve(rec.id), CLI).value
    show(ctx, rec, "edited" + (" and approved" if then_approve else ""))
