"""Claude Code transcripts, line by line: the `import claude-code` parser for a growing file.

Lines are turned into events exactly as `app.importers.claude_code` does (same source ids
`<uuid>#<block>`, same trust: tool results are `untrusted`, compaction summaries and the
tags Claude Code adds are not the user's); tool-use ids are kept in `data.tool_use_id` so a
tool call a hook already recorded live is not recorded again.

A rewound branch is recorded as it was written: a live reader cannot know, when a line
arrives, that the user will go back later (the log is append-only). `import` of the
finished file keeps only the final branch.

A line copied in from another session (a fork, an older `--resume`) is that session's line:
the chunk names the session in `copied`, so the store is asked what it already holds.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from app.capture.follow import Chunk
from app.importers import claude_code as importer
from app.importers.base import Problem, SourceEvent

AGENT = "claude-code"
MAX_TOOLS = 200


def parse_lines(path: Path, lines: list[tuple[int, str]], state: dict[str, Any]) -> Chunk:
    """Events of complete transcript lines; `state` keeps tool names across reads."""
    chunk = Chunk()
    tools: dict[str, str] = dict(state.get("tools", {}))
    for offset, raw in lines:
        try:
            entry = importer.entry_of(raw.encode("utf-8", errors="surrogateescape"))
            events = list(importer.line_events(entry, tools)) if entry is not None else []
        except (ValueError, TypeError, RecursionError) as exc:
            chunk.problems.append(Problem(str(path), f"byte {offset}", str(exc)))
            continue
        if entry is None or not events:
            continue
        sid = importer.SESSION_PREFIX + importer.home_session(entry, path)
        if importer.copied_in(entry, path):
            chunk.copied.add(sid)
        cwd = entry.get("cwd")
        if isinstance(cwd, str) and cwd and chunk.cwd is None:
            chunk.cwd = cwd  # for the scope; never kept in the cursor (paths stay out)
        for ev in events:
            chunk.add(sid, _with_tool_id(entry, ev))
    state["tools"] = dict(list(tools.items())[-MAX_TOOLS:])
    return chunk


def _with_tool_id(entry: dict[str, Any], ev: SourceEvent) -> SourceEvent:
    if ev.kind not in ("tool_call", "tool_result"):
        return ev
    index = int(ev.source_id.rsplit("#", 1)[1].split(".", 1)[0])
    block = entry["message"]["content"][index]
    tool_id = block.get("id") if ev.kind == "tool_call" else block.get("tool_use_id")
    if not isinstance(tool_id, str):
        return ev
    return dataclasses.replace(ev, extra={**ev.extra, "tool_use_id": tool_id})
