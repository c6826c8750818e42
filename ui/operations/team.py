"""Operations on a team store: members, invitations, removal with key rotation (R24)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication

from core import MemberInfo, MemoryService, Result, RotationReport, StoreStatus

from ui.context import UiContext
from ui.ops import MutatingOp, ProgressRelay, QueryOp, mutate, query


def read_team(ctx: UiContext) -> QueryOp[tuple[StoreStatus, list[MemberInfo]]]:
    """The store status (is it on a server?) and its members."""
    return query(ctx, lambda s: (s.status(), s.team.members()))


def invite(ctx: UiContext, name: str, target: Path) -> MutatingOp[str]:
    """Record the invitation and write its file (readable by the user only); the one-time
    code is the result."""

    def work(s: MemoryService) -> Result[str]:
        result = s.team.invite_member(name, by=os.environ.get("USER"))
        raw, code = result.value
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
        return Result(code, result.changes)

    return mutate(ctx, work)


def remove_member(ctx: UiContext, name: str) -> MutatingOp[RotationReport]:
    """Remove a member: revoke their devices, then rotate the key with progress (resumable).

    The one place the desktop calls member removal, so a change of the core's rotation
    progress API is a change here only.
    """

    def work(s: MemoryService, relay: ProgressRelay) -> Result[Any]:
        # The tracked form resumes a removal whose rotation was stopped or cut off.
        return s.team.remove_member_tracked(
            name,
            on_progress=lambda step: relay.report(step.reencrypted),
            should_stop=relay.should_stop,
        )

    op: MutatingOp[RotationReport] = MutatingOp(ctx, work)
    op.with_progress(
        QCoreApplication.translate(
            "Team", "Removing %1: re-encrypting the store under a new key…"
        ).replace("%1", name),
        QCoreApplication.translate("Team", "rows re-encrypted"),
    )
    return op
