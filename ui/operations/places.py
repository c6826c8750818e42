"""Which folders speak for a project: confirming or withdrawing one from Settings, as
`memory-center hook trust|untrust` does (the rule is `core/governance/places.py`)."""

from __future__ import annotations

from core.model import commands as c

from ui.context import UiContext
from ui.integrations import FolderPlace
from ui.ops import MutatingOp, QueryOp, mutate, query

DESKTOP = c.Origin("desktop")


def confirmed_folders(ctx: UiContext) -> QueryOp[dict[str, int]]:
    """How many folders are confirmed for each project (the store keeps digests, no paths)."""
    return query(ctx, lambda s: {name: len(p) for name, p in sorted(s.agents.places().items())})


def set_trusted(ctx: UiContext, folder: FolderPlace, trusted: bool) -> MutatingOp[frozenset[str]]:
    """Confirm the folder for the project it names, or withdraw it; returns the project's
    folders afterwards."""
    change = c.BindProjectPlace if trusted else c.UnbindProjectPlace
    return mutate(ctx, lambda s: s.commands.run(change(folder.project, folder.place), DESKTOP))
