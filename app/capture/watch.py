"""Follow an agent's transcript directory and record new events as files grow (R1, R30).

One pass looks at every transcript file whose size changed since the last pass and records
its new complete lines (`follow.capture_file`: resume position per file in the store, safe
with several watchers). New events then go through extraction, so suggestions reach the
review queue as with `import`. Scope comes from the working directory the transcript names
(the same rule as the hooks: `.memory-center.toml`, else the git root's name), narrowed by
`--scope` values given by the user.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from app.capture import claude_code, codex
from app.capture.follow import Chunk, Parser, capture_file, cursor_key
from app.hooks.places import kept_apart
from app.hooks.workspace import resolve
from app.importers import extraction
from app.importers.base import Problem
from app.importers.claude_code import transcript_files
from core import MemoryCenterError, MemoryService, Scope
from core.model import commands as c

CAPTURE = c.Origin("capture")


@dataclass(frozen=True)
class Agent:
    """How to find and read one agent's transcripts."""

    name: str
    default_dir: Path
    files: Callable[[Path], list[Path]]
    parse: Parser


AGENTS = {
    "claude-code": Agent(
        "claude-code",
        Path.home() / ".claude" / "projects",
        lambda d: [p for p in transcript_files(d) if p.suffix == ".jsonl"],
        claude_code.parse_lines,
    ),
    "codex": Agent(
        "codex",
        Path(os.environ.get("CODEX_HOME", Path.home() / ".codex")) / "sessions",
        codex.session_files,
        codex.parse_lines,
    ),
}


@dataclass
class WatchTotals:
    """What the watcher recorded so far."""

    files: int = 0
    events: int = 0
    suggestions: int = 0
    problems: list[Problem] = field(default_factory=list)


class Watcher:
    """Polls one directory; `run_once` is one pass, `run` loops until stopped."""

    def __init__(
        self,
        service: MemoryService,
        agent: Agent,
        folder: Path,
        *,
        scope: Scope | None = None,
        from_now: bool = False,
        extract: bool = True,
    ) -> None:
        self.service = service
        self.agent = agent
        self.folder = folder
        self.scope = scope
        self.from_now = from_now
        self.extract = extract
        self.sizes: dict[Path, int] = {}
        self.totals = WatchTotals()

    def run(self, interval: float, should_stop: Callable[[], bool]) -> WatchTotals:
        """Pass after pass until `should_stop()`."""
        while not should_stop():
            self.run_once()
            time.sleep(interval)
        return self.totals

    def run_once(self) -> WatchTotals:
        """Record what is new in every file that changed since the last pass."""
        for path in self.agent.files(self.folder) if self.folder.exists() else []:
            try:
                size = path.stat().st_size
            except OSError:
                continue
            if self.sizes.get(path) == size:
                continue
            self.sizes[path] = size
            self._follow(path, size)
        return self.totals

    def _follow(self, path: Path, size: int) -> None:
        if self.from_now and self._skip_history(path, size):
            return
        try:
            report = capture_file(
                self.service, path, self.agent.name, self.agent.parse, self._scope
            )
        except MemoryCenterError as exc:
            self.totals.problems.append(Problem(str(path), "file", exc.message))
            return
        self.totals.files += 1 if report.events else 0
        self.totals.events += report.events
        self.totals.problems.extend(report.problems)
        if self.extract:
            # Through the sessions' extraction marks: what a killed pass recorded but never
            # extracted is extracted on the next one (#38).
            outcomes, _ = extraction.finish(self.service, report.event_ids)
            self.totals.suggestions += sum(outcomes.values())

    def _skip_history(self, path: Path, size: int) -> bool:
        """--from-now: a file never followed starts at its current end."""
        cursor = self.service.events.capture_cursor(
            cursor_key(self.agent.name, path), self.agent.name
        )
        if cursor.state is not None:
            return False
        self.service.commands.run(
            c.AppendCaptured(tuple([]), cursor, _complete_end(path, size), {"from_now": True}),
            CAPTURE,
        )
        return True

    def _scope(self, chunk: Chunk) -> Scope:
        """The working directory's scope (as the hooks see it), with the user's keys on top."""
        given = dict(self.scope.items_) if self.scope is not None else {}
        try:
            found: dict[str, str] = {}
            if chunk.cwd:
                ws = resolve(chunk.cwd)
                if "project" not in given:
                    # A folder naming a project known from elsewhere is kept apart (hooks too).
                    ws = kept_apart(self.service, ws, chunk.cwd, CAPTURE)
                found = dict(ws.scope.items_)
        except MemoryCenterError:
            found = {"project": Path(chunk.cwd or "").name} if chunk.cwd else {}
        return Scope.required({**found, **given} or {"agent": self.agent.name})


def _complete_end(path: Path, size: int) -> int:
    """The offset after the last complete line (a partial line is read when it completes)."""
    with path.open("rb") as handle:
        handle.seek(max(0, size - 65536))
        tail = handle.read(size - handle.tell())
    cut = tail.rfind(b"\n")
    return size - len(tail) + cut + 1 if cut >= 0 else 0
