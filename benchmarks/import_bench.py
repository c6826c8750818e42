"""Import throughput: a synthetic Claude Code transcript directory into a fresh store.

Writes `--sessions` transcript files of `--turns` turns each (a user message, an assistant
reply with a tool call, and the tool result: four events per turn), imports them, then imports
them again (the idempotent path). Prints events/s for parsing, writing + extraction, and the
re-import. Usage:

    .venv/bin/python benchmarks/import_bench.py [--sessions 40] [--turns 50]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.importers import claude_code
from app.importers.base import ImportReport, write_sessions
from core import MemoryService, Scope

PASSPHRASE = "benchmark passphrase"
SAYINGS = [
    "We always run the linter before pushing.",
    "Can you fix the failing checkout test?",
    "I prefer small commits with conventional messages.",
    "What does the billing worker do?",
]


def cpu_name() -> str:
    """The CPU model from /proc/cpuinfo."""
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def write_transcripts(root: Path, sessions: int, turns: int) -> int:
    """Create the transcript files; return the number of events they hold."""
    for s in range(sessions):
        sid = f"00000000-0000-4000-8000-{s:012d}"
        lines = []
        for t in range(turns):
            base = {
                "sessionId": sid,
                "cwd": "/home/alice/webshop",
                "timestamp": f"2026-02-10T09:{t % 60:02d}:00.000Z",
            }
            tool_id = f"toolu_{s}_{t}"
            lines.append(
                {
                    **base,
                    "type": "user",
                    "uuid": f"{sid}-u{t}",
                    "message": {"role": "user", "content": f"{SAYINGS[t % 4]} ({t})"},
                }
            )
            lines.append(
                {
                    **base,
                    "type": "assistant",
                    "uuid": f"{sid}-a{t}",
                    "message": {
                        "role": "assistant",
                        "content": [
                            {"type": "text", "text": f"Looking into it, step {t}."},
                            {
                                "type": "tool_use",
                                "id": tool_id,
                                "name": "Bash",
                                "input": {"command": f"pytest tests/test_{t}.py"},
                            },
                        ],
                    },
                }
            )
            lines.append(
                {
                    **base,
                    "type": "user",
                    "uuid": f"{sid}-r{t}",
                    "message": {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": tool_id,
                                "content": f"{t} passed in 0.{t}s",
                            }
                        ],
                    },
                }
            )
        (root / f"{sid}.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return sessions * turns * 4


def main() -> None:
    """Run and print."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=40)
    ap.add_argument("--turns", type=int, default=50)
    opts = ap.parse_args()
    print(f"machine: {os.cpu_count()} cores, {cpu_name()}, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "transcripts"
        root.mkdir()
        total = write_transcripts(root, opts.sessions, opts.turns)
        t0 = time.perf_counter()
        sessions, problems = claude_code.parse(root)
        parsed = time.perf_counter() - t0
        assert not problems and sum(len(s.events) for s in sessions) == total
        scope = Scope.of({"user": "alice"})
        with MemoryService.open(
            Path(tmp) / "plain", passphrase=PASSPHRASE, prefer_keyring=False
        ) as svc:
            t1 = time.perf_counter()
            write_sessions(svc, sessions, scope, ImportReport(), importer="bench", extract=False)
            appended = time.perf_counter() - t1
        with MemoryService.open(
            Path(tmp) / "store", passphrase=PASSPHRASE, prefer_keyring=False
        ) as svc:
            t1 = time.perf_counter()
            first = write_sessions(svc, sessions, scope, ImportReport(), importer="bench")
            wrote = time.perf_counter() - t1
            t2 = time.perf_counter()
            again = write_sessions(svc, sessions, scope, ImportReport(), importer="bench")
            rerun = time.perf_counter() - t2
        print(f"{total} events in {len(sessions)} sessions")
        print(f"parse: {parsed:.2f} s ({total / parsed:,.0f} events/s)")
        print(f"append only (no extraction): {appended:.2f} s ({total / appended:,.0f} events/s)")
        print(
            f"append + extract: {wrote:.2f} s ({first.events_written / wrote:,.0f} events/s), "
            f"suggestions {dict(first.suggestions)}"
        )
        print(
            f"re-import (nothing new): {rerun:.2f} s ({again.events_already_present / rerun:,.0f}"
            " events/s checked)"
        )


if __name__ == "__main__":
    main()
