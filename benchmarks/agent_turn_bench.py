"""What an agent's turn costs beside the ranking itself, in process (#13).

Measured on a store filled as `mcp_bench.py` fills its own (10,000 memories over 20 project
scopes; the turns' scope, `user=alice project=proj3`, sees ~500 of them), with the hashing
embedder unless a line says otherwise:

- listing: `list_memories(visible_to=scope, limit=1 | 20)`, what the MCP server's
  `list_recent` asks, p50 of 50 calls;
- snapshots: 300 injections 30 ms apart (the model's turn), each with a new goal: the
  injection's p50, the CPU time of every thread of the process per injection (the snapshot
  written behind the turn included) and how much the store's files grew per injection;
- backlog: with the default model, ten turns right after `remember_many` of `--bulk`
  memories in the turns' scope, in the same process, while the background worker embeds
  them: each turn's retrieval time.

Usage:

    .venv/bin/python benchmarks/agent_turn_bench.py [--memories 10000] [--bulk 2000]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[0]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mcp_bench import GOALS, PASSPHRASE, cpu_name, fill

from core import MemoryFilter, MemoryService, Scope

SCOPE = Scope.of({"user": "alice", "project": "proj3"})


def p50_ms(fn: Callable[[int], object], runs: int) -> float:
    times = []
    for i in range(runs):
        started = time.perf_counter()
        fn(i)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def store_bytes(data_dir: Path) -> int:
    return sum(p.stat().st_size for p in data_dir.glob("memory-center.sqlite3*"))


def open_store(data_dir: Path, embedder: str | None) -> MemoryService:
    return MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder=embedder
    )


def listing(data_dir: Path) -> None:
    with open_store(data_dir, "hashing") as svc:
        for limit in (1, 20):
            flt = MemoryFilter(statuses=("active",), visible_to=SCOPE, limit=limit)
            svc.memories.list_memories(flt)
            took = p50_ms(lambda _i, f=flt: svc.memories.list_memories(f), 50)
            print(f"list_memories(visible_to, limit={limit}): p50 {took:.2f} ms")


def snapshots(data_dir: Path) -> None:
    with open_store(data_dir, "hashing") as svc:
        svc.index.warm_up(wait=60.0)
        svc.retrieval.inject(SCOPE, "warm up", 800)
        time.sleep(0.5)
        size, cpu = store_bytes(data_dir), time.process_time()
        times = []
        for i in range(300):
            started = time.perf_counter()
            svc.retrieval.inject(SCOPE, f"{GOALS[i % len(GOALS)]} ({i})", 800, session="bench")
            times.append(time.perf_counter() - started)
            time.sleep(0.03)  # uses no CPU
        time.sleep(0.5)
        cpu = time.process_time() - cpu
    grown = store_bytes(data_dir) - size
    print(
        f"inject p50 {statistics.median(times) * 1000:.2f} ms; per injection: CPU of every "
        f"thread {cpu / 300 * 1000:.2f} ms, store growth {grown / 300 / 1024:.1f} KiB"
    )


def backlog(count: int) -> None:
    rng = random.Random(11)
    words = [f"topic{i}" for i in range(3000)]
    items = [
        {"scope": dict(SCOPE), "text": "Note on " + " ".join(rng.sample(words, 6))}
        for _ in range(count)
    ]
    with tempfile.TemporaryDirectory() as tmp, open_store(Path(tmp) / "s", None) as svc:
        svc.index.warm_up(wait=60.0)
        svc.memories.remember(SCOPE, "The proj3 staging database listens on port 5433")
        svc.retrieval.inject(SCOPE, "which port does staging listen on", 300)
        svc.memories.remember_many(items)
        retriever = svc._engine.retriever
        turns = []
        for _ in range(10):
            started = time.perf_counter()
            retriever.retrieve(SCOPE, "which port does staging listen on", None, fill=True)
            turns.append((time.perf_counter() - started) * 1000)
        waiting = svc.index.catalog.vectors.pending() if svc.index.catalog.vectors else 0
    shown = " ".join(f"{t:.1f}" for t in turns)
    print(f"retrieval after remember_many({count}), ms per turn: {shown} ({waiting} still queued)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--memories", type=int, default=10_000)
    ap.add_argument("--bulk", type=int, default=2000)
    opts = ap.parse_args()
    print(f"machine: {os.cpu_count()} cores, {cpu_name()}, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp) / "store"
        done, took = fill(data_dir, opts.memories, 600.0, "hashing")
        print(f"fill: {done} memories in {took:.1f} s")
        listing(data_dir)
        snapshots(data_dir)
    backlog(opts.bulk)


if __name__ == "__main__":
    main()
