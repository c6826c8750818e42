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
    """Members of a store on a database server: invite, list, remove, invitations, cancel,
    password.

    Roles: the owner (who created the store) invites admins and members and removes anyone
    but themself; an admin invites and removes members; a member invites only devices of
    their own. Every device checks these rules on the signed membership records."""


@member.command("invite")
@click.argument("name")
@click.option(
    "--out",
    "out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the invitation file (default: ./NAME.mc-invitation).",
)
@click.option(
    "--role",
    type=click.Choice(["member", "admin"]),
    default=None,
    help="Role of a new member (default: member; only the owner invites admins).",
)
@click.option(
    "--expires",
    "expires_hours",
    type=click.FloatRange(min=0, min_open=True, max=720),
    default=72.0,
    show_default=True,
    help="Hours until the invitation expires.",
)
@pass_ctx
@handles_errors
def invite(
    ctx: Context, name: str, out: Path | None, role: str | None, expires_hours: float
) -> None:
    """Write a single-use invitation for a device of NAME and show its one-time code.

    Your own NAME adds another device of yours (with your role); a new NAME adds a member.
    Only a member's own devices can add a device of theirs."""
    raw, code = (
        ctx.service()
        .team.invite_member(name, by=os.environ.get("USER"), role=role, expires_hours=expires_hours)
        .value
    )
    target = out or Path(f"{name}.mc-invitation")
    if not target.parent.is_dir():
        raise InvalidInputError("--out", f"the directory {target.parent} does not exist")
    write_user_file(target, raw, "--out")
    ctx.emit(
        {"file": str(target), "code": code, "member": name},
        f"invitation for {name} written to {target}\n"
        f"one-time code: {code}\n"
        f"It joins one device, once, within {expires_hours:g} hours.\n"
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

    report = ctx.service().team.remove_member(name, progress=progress).value
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
    """Current members and those invited: role, when they joined, how many trusted devices.

    Removed members are left out (`--json` includes them, with `removed_at`); rows of the
    devices table that no trusted signature backs are listed as ignored."""
    everyone = ctx.service().team.members()
    found = [m for m in everyone if m.removed_at is None]

    def human() -> None:
        if not found:
            click.echo("no members (invite one with `memory-center member invite NAME`)")
        for m in found:
            joined = m.joined_at.isoformat(timespec="minutes") if m.joined_at else "not yet"
            click.echo(f"{m.name:<20} {m.role:<7} joined: {joined:<17} devices: {m.devices}")
        for line in problems:
            click.echo(f"ignored: {line}")

    problems = ctx.service().team.membership_problems()
    ctx.emit(everyone, human)


@member.command("invitations")
@pass_ctx
@handles_errors
def invitations(ctx: Context) -> None:
    """Every invitation, newest first: open, used, expired or cancelled."""
    found = ctx.service().team.invitations()

    def human() -> None:
        if not found:
            click.echo("no invitations")
        for i in found:
            until = i.expires_at.isoformat(timespec="minutes")
            used = f" by device {i.used_by}" if i.used_by else ""
            click.echo(
                f"{i.id}  {i.member:<16} {i.role:<7} {i.state}{used}  "
                f"(from {i.invited_by}, expires {until})"
            )

    ctx.emit(found, human)


@member.command("cancel")
@click.argument("invitation_id")
@pass_ctx
@handles_errors
def cancel(ctx: Context, invitation_id: str) -> None:
    """Cancel an open invitation (its id from `member invitations`)."""
    done = ctx.service().team.cancel_invitation(invitation_id).value
    ctx.emit(done, f"invitation {done.id} for {done.member} cancelled")


@member.command("password")
@pass_ctx
@handles_errors
def password(ctx: Context) -> None:
    """Give this device's database login a new random password.

    The server keeps only its SCRAM verifier and this device keeps it sealed in its key set;
    the old password stops working at once. Each device has a login of its own, so no other
    device is affected."""
    ctx.service().keys.change_database_password()
    ctx.emit({"changed": True}, "this device's database password was changed")


@click.command()
@click.argument("invitation", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--code",
    help=f"The one-time code (or env {INVITE_CODE_ENV}, a hidden prompt, or a line on stdin).",
)
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
    """The code from a hidden prompt on a terminal, or from the first line of stdin."""
    if sys.stdin.isatty():
        return str(click.prompt("Invitation code", hide_input=True))
    line = sys.stdin.readline().strip()
    if not line:
        raise InvalidInputError(
            "--code",
            f"give the invitation code (--code, {INVITE_CODE_ENV}, or a line on stdin)",
        )
    return line
