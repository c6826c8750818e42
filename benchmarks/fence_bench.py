"""What standing deletion fences cost an agent's write (R19, #40).

A real encrypted store with `--fences` deleted memories (English and Chinese statements
about people and amounts), then `--writes` agent suggestions of chat lines in several
clauses (other people, other amounts), each checked against every fence. Prints the
machine and the latency of `suggest`. Usage:

    .venv/bin/python benchmarks/fence_bench.py [--fences 100] [--writes 300]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from core import MemoryService

SCOPE = {"user": "bench", "project": "fences"}


def deleted(n: int) -> list[str]:
    half = n // 2
    english = [
        f"My cousin number {i} lent me {i * 100} dollars for the trip to city {i}."
        for i in range(half)
    ]
    chinese = [f"我表妹{i}号借给我{i * 10}块钱，下个月还。" for i in range(1, n - half + 1)]
    return english + chinese


def later(n: int) -> list[str]:
    half = n // 2
    english = [
        f"long day, the plumber came at {i % 12 + 1}pm, my neighbour {i} owes me {i * 7} "
        "dollars, and the kids want pizza tonight, remind me."
        for i in range(half)
    ]
    chinese = [
        f"今天好累，邻居{i}号欠我{i * 3}块钱，晚饭吃面条，记得提醒我周三买菜。"
        for i in range(n - half)
    ]
    return english + chinese


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fences", type=int, default=100)
    parser.add_argument("--writes", type=int, default=300)
    args = parser.parse_args()
    machine = platform.processor() or platform.machine()
    print(f"machine: {machine}, {os.cpu_count()} cores, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory(prefix="mc-fence-") as tmp:
        svc = MemoryService.open(
            Path(tmp) / "s", passphrase="fence-bench-passphrase", prefer_keyring=False
        )
        try:
            for text in deleted(args.fences):
                made = svc.memories.remember(SCOPE, text).value
                assert made.record is not None
                svc.review.delete(made.record.id, reason="benchmark", purge=False)
            svc.memories.suggest(SCOPE, "warm up the embedder")
            times = []
            for text in later(args.writes):
                start = time.perf_counter()
                svc.memories.suggest(SCOPE, text)
                times.append(time.perf_counter() - start)
        finally:
            svc.close()
    times.sort()
    p50 = statistics.median(times) * 1000
    p95 = times[int(len(times) * 0.95)] * 1000
    what = f"suggest against {args.fences} fences, {args.writes} writes"
    print(f"{what}: p50 {p50:.1f} ms, p95 {p95:.1f} ms")


if __name__ == "__main__":
    main()
