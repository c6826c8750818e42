"""CLI verbs of the event log: `event add`, `event list` (R1-R3)."""

from __future__ import annotations

import sys
from typing import Any

import click

from app.cli.root import Context, F, handles_errors, pass_ctx
from core import SCOPE_KEYS, NewEvent, Scope, TrustLevel
from core.model import commands as c
from core.model.jsonsafe import parse_json


@click.group()
def event() -> None:
    """Append to and read the event log."""


def _scope_option(func: F) -> F:
    return click.option(
        "--scope",
        "scopes",
        multiple=True,
        metavar="KEY=VALUE",
        help=f"Scope of the item (repeatable): {', '.join(SCOPE_KEYS)}.",
    )(func)


@event.command("add")
@click.option("--session", required=True, help="Session id (created on first use).")
@click.option("--actor", required=True, help="user, assistant, tool or system.")
@click.option("--trust", required=True, help="user, tool_verified, assistant or untrusted.")
@_scope_option
@click.option("--text", help="The event text. Without it, a JSON payload is read from stdin.")
@click.option("--kind", default="message", show_default=True, help="Event kind.")
@click.option("--source", help="Where the content came from (chat, web_page, email, ...).")
@pass_ctx
@handles_errors
def event_add(
    ctx: Context,
    session: str,
    actor: str,
    trust: str,
    scopes: tuple[str, ...],
    text: str | None,
    kind: str,
    source: str | None,
) -> None:
    """Append one event. Give --text, or pipe a JSON object {"text": ..., "data": {...}}."""
    data = None
    if text is None:
        text, data = _read_stdin_payload()
    item = NewEvent(
        session=session,
        actor=actor,
        trust=trust,
        scope=Scope.parse(scopes),
        text=text,
        kind=kind,
        source=source,
        data=data,
    )
    result = ctx.write(c.AppendEvent(item))
    ev = result.value
    asked = TrustLevel(item.trust)
    if ev.trust != asked:  # the edge lowered it: content from an outside source
        click.echo(
            f"note: recorded with trust {ev.trust.value}, not {asked.value}: content from "
            f"{ev.source.value if ev.source else 'this source'} is always untrusted (R11)",
            err=True,
        )
    ctx.emit(
        {"event": ev, "revision": result.changes.revision},
        f"{ev.id} appended to {ev.session_id} (seq {ev.seq}, revision {result.changes.revision})",
    )


_PAYLOAD_KEYS = frozenset({"text", "data"})


def _read_stdin_payload() -> tuple[str, dict[str, Any] | None]:
    from core import InvalidInputError

    # Bytes, not text: undecodable input is refused by name instead of smuggled in.
    stream = getattr(sys.stdin, "buffer", sys.stdin)
    doc = parse_json(stream.read(), "stdin")
    if not isinstance(doc, dict) or not isinstance(doc.get("text"), str):
        raise InvalidInputError("stdin", 'expected a JSON object with a "text" string')
    unknown = sorted(set(doc) - _PAYLOAD_KEYS)
    if unknown:  # a misspelt "data" would otherwise be dropped without a word
        raise InvalidInputError(
            "stdin", f'unknown keys {", ".join(map(repr, unknown))}: only "text" and "data"'
        )
    data = doc.get("data")
    if data is not None and not isinstance(data, dict):
        raise InvalidInputError("stdin.data", "must be a JSON object")
    return doc["text"], data


@event.command("list")
@click.option("--session", help="Only this session.")
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1, 10_000))
@click.option(
    "--after",
    "after_position",
    default=0,
    type=click.IntRange(0),
    help="Page: after this position.",
)
@pass_ctx
@handles_errors
def event_list(ctx: Context, session: str | None, limit: int, after_position: int) -> None:
    """List events in log order."""
    events = ctx.service().events.list_events(
        session=session, limit=limit, after_position=after_position
    )

    def human() -> None:
        for ev in events:
            line = ev.text.replace("\n", " ")
            click.echo(
                f"{ev.position:>6} {ev.ts:%Y-%m-%d %H:%M:%S} {ev.session_id} "
                f"{ev.actor.value}/{ev.trust.value} {ev.kind.value}: {line[:100]}"
            )

    ctx.emit(events, human)
