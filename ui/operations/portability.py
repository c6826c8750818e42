"""Operations for backup and transfer: export memories to a JSON file, import such a file."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from core import MemoryService, Result, write_user_file
from core.model import MemoryOutcome
from core.model import commands as c

from ui.context import UiContext
from ui.ops import MutatingOp, QueryOp, mutate, query

DESKTOP = c.Origin("desktop")


EXPORT_FILE_NAME = "memory-center-export.json"


def write_private_json(path: Path, document: Mapping[str, Any]) -> None:
    """Write `document` as readable JSON to `path`, readable by the owner only (mode 0600)."""
    text = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    # Whole or not at all, never over a link, FIFO or device (core.write_user_file).
    write_user_file(path, text.encode("utf-8"), "file")


def export_to_file(ctx: UiContext, path: Path) -> QueryOp[int]:
    """Export the active and suggested memories to `path`; the value is how many."""

    def work(s: MemoryService) -> int:
        document = s.memories.export_memories()
        write_private_json(path, document)
        memories = document.get("memories")
        return len(memories) if isinstance(memories, list) else 0

    return query(ctx, work)


def import_document(ctx: UiContext, document: Mapping[str, Any]) -> MutatingOp[list[MemoryOutcome]]:
    """Import an export document: every memory becomes a suggestion the policy decides."""

    def work(s: MemoryService) -> Result[list[MemoryOutcome]]:
        return s.commands.run(c.ImportMemories(document, by="memory-center"), DESKTOP)

    return mutate(ctx, work)
