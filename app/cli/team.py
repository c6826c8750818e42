"""CLI verbs of team stores on a database server: invite a member's device, join one (R24)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from app.cli.root import Context, handles_errors, pass_ctx
from app.compose import apply_environment, embedder_from_env
from app.paths import passphrase_from_env
from core import InvalidInputError, MemoryService, write_user_file

INVITE_CODE_ENV = "MEMORY_CENTER_INVITE_CODE"


@click.group()
def member() -> None:
    """Members of a store on a database server: invite, list, remove."""


@member.command("invite")
@click.argument("name")
@click.option(
    "--out",
    "out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the invitation file (default: ./NAME.mc-invitation).",
)
@pass_ctx
@handles_errors
def invite(ctx: Context, name: str, out: Path | None) -> None:
    """Write an invitation for NAME's device and show its one-time code."""
    raw, code = ctx.service().invite_member(name, by=os.environ.get("USER")).value
    target = out or Path(f"{name}.mc-invitation")
    if not target.parent.is_dir():
        raise InvalidInputError("--out", f"the directory {target.parent} does not exist")
    write_user_file(target, raw, "--out")
    ctx.emit(
        {"file": str(target), "code": code, "member": name},
        f"invitation for {name} written to {target}\n"
        f"one-time code: {code}\n"
        "Send the file and the code by different channels; on the other machine run:\n"
        f"  memory-center join {target.name}",
    )


@member.command("remove")
@click.argument("name")
@pass_ctx
@handles_errors
def remove(ctx: Context, name: str) -> None:
    """Remove NAME: revoke their devices and rotate the store key past them (resumable)."""

    def progress(done: int) -> None:
        if not ctx.as_json:
            click.echo(f"\rre-encrypted {done} values", nl=False, err=True)

    report = ctx.service().remove_member(name, progress=progress).value
    if not ctx.as_json:
        click.echo("", err=True)
    ctx.emit(
        report,
        f"{name} removed; the store key rotated to {report.new_key_id} "
        f"({report.rows_reencrypted} values re-encrypted). Content written from now on is "
        "unreadable with their old key.",
    )


@member.command("list")
@pass_ctx
@handles_errors
def list_members(ctx: Context) -> None:
    """Who was invited, who joined, from how many devices."""
    found = ctx.service().members()

    def human() -> None:
        if not found:
            click.echo("no members (invite one with `memory-center member invite NAME`)")
        for m in found:
            joined = m.joined_at.isoformat(timespec="minutes") if m.joined_at else "not yet"
            note = "  (created the store)" if m.founder else ""
            click.echo(f"{m.name:<20} joined: {joined:<17} devices: {m.devices}{note}")

    ctx.emit(found, human)


@click.command()
@click.argument("invitation", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--code", help=f"The one-time code (or env {INVITE_CODE_ENV}, or a prompt).")
@pass_ctx
@handles_errors
def join(ctx: Context, invitation: Path, code: str | None) -> None:
    """Join a team store from this machine with an invitation file and its code."""
    try:
        raw = invitation.read_bytes()
    except OSError as exc:
        raise InvalidInputError("INVITATION", f"cannot read {invitation}: {exc.strerror}") from None
    code = code or os.environ.get(INVITE_CODE_ENV) or _ask_code()
    service = apply_environment(
        MemoryService.join(
            ctx.data_dir,
            raw,
            code,
            passphrase=passphrase_from_env(),
            embedder=embedder_from_env(),
        )
    )
    try:
        status = service.status()
    finally:
        service.close()
    ctx.emit(status, f"joined the store at {status.path} (key: {status.key.source})")


def _ask_code() -> str:
    if not sys.stdin.isatty():
        raise InvalidInputError("--code", f"give the invitation code (--code or {INVITE_CODE_ENV})")
    return str(click.prompt("Invitation code", hide_input=False))
