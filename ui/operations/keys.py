"""Operations on the store key (R24)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication

from core import MemoryService, Result, RotationReport

from ui.context import UiContext
from ui.ops import MutatingOp, ProgressRelay


def rotate_key(ctx: UiContext) -> MutatingOp[RotationReport]:
    """Re-encrypt everything under a new key, with progress and a Stop button (resumable)."""

    def work(s: MemoryService, relay: ProgressRelay) -> Result[Any]:
        return s.keys.rotate(progress=relay.report, should_stop=relay.should_stop)

    op: MutatingOp[RotationReport] = MutatingOp(ctx, work)
    op.with_progress(
        QCoreApplication.translate("Keys", "Re-encrypting the store under a new key…"),
        QCoreApplication.translate("Keys", "rows re-encrypted"),
    )
    return op
