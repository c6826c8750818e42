"""Follow a growing transcript file: record only what is new since the last read.

`capture_file` reads the complete lines after the file's capture cursor (a byte offset kept
in the store), turns them into events with the same parsers and trust rules as `import`,
and appends them together with the new offset in one transaction. If another capture (a
second watcher, a hook) moved the cursor meanwhile, the transaction is refused and the read
starts again from the new position, so no line is ever recorded twice.

The first read of a file the user imported before compares source ids with the session, so
turning capture on after an import adds nothing twice.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.importers.base import Problem, SourceEvent, existing_source_ids, to_new_event
from core import CaptureCursor, ConflictError, MemoryService, NewEvent, Scope
from core.model import commands as c

CAPTURE = c.Origin("capture")


MAX_CHUNK = 4 * 1024 * 1024
RETRIES = 5


@dataclass
class Chunk:
    """What one parser made of a run of complete lines."""

    sessions: dict[str, list[SourceEvent]] = field(default_factory=dict)
    cwd: str | None = None
    problems: list[Problem] = field(default_factory=list)
    # Sessions with lines copied in from another file (a fork): they may be recorded already.
    copied: set[str] = field(default_factory=set)

    def add(self, session: str, event: SourceEvent) -> None:
        """Append `event` to `session`'s list."""
        self.sessions.setdefault(session, []).append(event)


Parser = Callable[[Path, list[tuple[int, str]], dict[str, Any]], Chunk]
"""(file, [(byte offset, line)], mutable cursor state) -> Chunk."""


@dataclass
class CaptureReport:
    """What one pass over a file recorded."""

    events: int = 0
    event_ids: dict[str, list[str]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    position: int = 0


def cursor_key(agent: str, path: Path) -> str:
    """The cursor key of a file: a digest of its real path (paths stay out of the store)."""
    real = os.path.realpath(path)
    return f"{agent}:file:{hashlib.sha256(real.encode('utf-8')).hexdigest()[:40]}"


def capture_file(
    service: MemoryService,
    path: Path,
    agent: str,
    parse: Parser,
    scope_of: Callable[[Chunk], Scope],
    *,
    skip: Callable[[str, SourceEvent, int], bool] | None = None,
    until: int | None = None,
) -> CaptureReport:
    """Record the new complete lines of `path`; return what was recorded.

    `skip(session, event, mark)` may drop an event already recorded another way (a hook saw
    the tool call live); `mark` is the store's last event position at the previous read.
    `until`: read no line that ends beyond this byte offset (the file's size when a queued
    hook fired; what was written after waits for the next read).
    """
    report = CaptureReport()
    key = cursor_key(agent, path)
    for _ in range(RETRIES):
        cursor = service.events.capture_cursor(key, agent)
        try:
            _one_pass(service, path, cursor, parse, scope_of, skip, report, until)
            return report
        except ConflictError:
            continue  # someone else recorded these lines; read again from their position
    return report


def _one_pass(
    service: MemoryService,
    path: Path,
    cursor: CaptureCursor,
    parse: Parser,
    scope_of: Callable[[Chunk], Scope],
    skip: Callable[[str, SourceEvent, int], bool] | None,
    report: CaptureReport,
    until: int | None = None,
) -> None:
    while True:
        lines, end = read_lines(path, cursor.position, until)
        report.position = cursor.position
        if not lines:
            return
        state = dict(cursor.state or {})
        # Two reads back: a hook may record a tool call just before its line reaches the file.
        older, newer = [*state.get("marks", []), 0, 0][:2]
        state["marks"] = [newer, last_position(service)]
        chunk = parse(path, lines, state)
        report.problems.extend(chunk.problems)
        scope = _scope(chunk, state, scope_of)
        items = _new_events(service, cursor, chunk, scope, agent=cursor.agent)
        if skip is not None:
            items = [(s, e, n) for s, e, n in items if not skip(s, e, int(older))]
        written = service.commands.run(
            c.AppendCaptured(tuple([n for _, _, n in items]), cursor, end, state), CAPTURE
        ).value
        for (session, _, _), ev in zip(items, written, strict=True):
            report.event_ids.setdefault(session, []).append(ev.id)
        report.events += len(written)
        report.position = end
        cursor = service.events.capture_cursor(cursor.key, cursor.agent)


def _scope(chunk: Chunk, state: dict[str, Any], scope_of: Callable[[Chunk], Scope]) -> Scope:
    """The chunk's scope; a chunk naming no working directory keeps the file's last scope
    (kept in the cursor: scope values are clear metadata anyway, the path is not kept)."""
    kept = state.get("scope")
    if chunk.cwd is None and isinstance(kept, dict) and kept:
        return Scope.of(kept)
    scope = scope_of(chunk)
    state["scope"] = dict(scope.items_)
    return scope


def last_position(service: MemoryService) -> int:
    """The position of the newest event in the store (0 for an empty log)."""
    newest = service.events.list_events(limit=1, newest_first=True)
    return newest[0].position if newest else 0


def _new_events(
    service: MemoryService,
    cursor: CaptureCursor,
    chunk: Chunk,
    scope: Scope,
    *,
    agent: str,
) -> list[tuple[str, SourceEvent, NewEvent]]:
    out = []
    for session, events in chunk.sessions.items():
        first = cursor.state is None or session in chunk.copied
        seen = existing_source_ids(service, session) if first else set()
        for ev in events:
            if ev.source_id in seen:
                continue
            seen.add(ev.source_id)  # a line written twice into one file is recorded once
            out.append((session, ev, to_new_event(session, scope, ev, f"capture:{agent}")))
    return out


def read_lines(
    path: Path, offset: int, until: int | None = None
) -> tuple[list[tuple[int, str]], int]:
    """The complete lines after `offset` (a partial last line waits for its newline), none
    ending beyond `until`."""
    size = MAX_CHUNK if until is None else max(0, min(MAX_CHUNK, until - offset))
    if size == 0:
        return [], offset
    try:
        with path.open("rb") as handle:
            handle.seek(offset)
            data = handle.read(size)
    except OSError:
        return [], offset
    end = data.rfind(b"\n")
    if end < 0:
        return [], offset
    lines = []
    start = 0
    for raw in data[: end + 1].split(b"\n")[:-1]:
        # surrogateescape keeps undecodable bytes recoverable, so the parsers can report the
        # line as invalid UTF-8 (as `import` does) instead of recording replacement marks.
        text = raw.decode("utf-8", errors="surrogateescape")
        if text.strip():
            lines.append((offset + start, text))
        start += len(raw) + 1
    return lines, offset + end + 1
