"""Import Codex CLI session logs (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).

The lines are read by the same parser as `watch codex` (`app.capture.codex`), with the same
source ids (`<session>@<byte offset>`), so a file imported and later watched (or watched,
then imported) is recorded once. What Codex injects as user messages (environment context,
AGENTS.md instructions) is left out; tool outputs, `apply_patch` results included, are
`untrusted` (R2, R11).
"""

from __future__ import annotations

from pathlib import Path, PurePath
from typing import Any

from app.capture import codex as rollout
from app.importers.base import Problem, SourceSession, read_source


def rollout_files(path: Path) -> list[Path]:
    """The rollout files of a sessions directory (recursively, oldest first), or the file."""
    if path.is_dir():
        return rollout.session_files(path)
    return [path]


def parse(path: Path) -> tuple[list[SourceSession], list[Problem]]:
    """Every session in `path` (a rollout file or a directory), and what was skipped."""
    sessions: dict[str, SourceSession] = {}
    problems: list[Problem] = []
    for file in rollout_files(path):
        try:
            data = read_source(file)
        except ValueError as exc:
            problems.append(Problem(str(file), "file", str(exc)))
            continue
        state: dict[str, Any] = {}
        chunk = rollout.parse_lines(file, _lines(data), state)
        problems.extend(chunk.problems)
        for name, events in chunk.sessions.items():
            sess = sessions.setdefault(name, SourceSession(name, origin=str(file)))
            if chunk.cwd and "project" not in sess.scope_extra:
                sess.scope_extra["project"] = PurePath(chunk.cwd).name or chunk.cwd
            sess.events.extend(events)
    return [s for s in sessions.values() if s.events], problems


def _lines(data: bytes) -> list[tuple[int, str]]:
    """(byte offset, text) of every non-blank line, offsets as `watch` counts them."""
    out = []
    offset = 0
    for raw in data.split(b"\n"):
        if raw.strip():
            # surrogateescape: the parser reports an undecodable line instead of guessing.
            out.append((offset, raw.decode("utf-8", errors="surrogateescape")))
        offset += len(raw) + 1
    return out
