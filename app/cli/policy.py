"""CLI verbs of the MemoryPolicy settings: `policy show`, `policy set`."""

from __future__ import annotations

import json

import click

from app.cli.root import Context, handles_errors, pass_ctx
from core.model import commands as c


@click.group()
def policy() -> None:
    """The MemoryPolicy settings (stored in the store)."""


@policy.command("show")
@pass_ctx
@handles_errors
def policy_show(ctx: Context) -> None:
    """Show the settings in force."""
    current = ctx.service().policy.settings().to_dict()
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
    new = ctx.write(c.UpdatePolicySettings(changes)).value.to_dict()
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
