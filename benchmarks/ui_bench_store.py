"""Build a large demo store for `ui_bench.py`.

Usage:
    python benchmarks/ui_bench_store.py DIR COUNT          # public service API (R28), slow
    python benchmarks/ui_bench_store.py DIR COUNT --bulk   # storage-level bulk loader

The default path goes through `remember()`/`suggest()` (about 20 memories/s once the store is
large, because every call is its own durable transaction). `--bulk` reuses `fill()` from
`inject_bench.py` (active facts over 1,000 project scopes of 20 users, written in large
transactions; ~3.5 min for 100k). Prints how long it took; the store is reused by later runs.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from core import MemoryService

PASSPHRASE = "benchmark passphrase"
KINDS = ("preference", "fact", "convention", "decision")


def build(path: Path, count: int) -> float:
    """Create `count` memories (mostly remembered, every 7th suggested); return seconds taken."""
    start = time.perf_counter()
    with MemoryService.open(path, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        have = sum(svc.status().memory_counts.values())
        for i in range(have, count):
            scope = {"user": f"u{i % 7}", "project": f"project-{i % 53}"}
            text = (
                f"Component {i} of service {i % 211} listens on port {10000 + i} ({KINDS[i % 4]})"
            )
            if i % 7 == 0:
                svc.memories.suggest(scope, text, kind=KINDS[i % 4])
            else:
                svc.memories.remember(scope, text, kind=KINDS[i % 4])
            if i % 1000 == 0:
                rate = (i - have + 1) / (time.perf_counter() - start)
                print(f"{i} memories, {rate:.0f}/s", flush=True)
    return time.perf_counter() - start


def build_bulk(path: Path, count: int) -> float:
    """Bulk-load `count` active memories with `inject_bench.fill`; return seconds taken."""
    from inject_bench import fill

    start = time.perf_counter()
    with MemoryService.open(path, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        have = sum(svc.status().memory_counts.values())
        if have < count:
            fill(svc, count - have, 1000, random.Random(count))
    return time.perf_counter() - start


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1].startswith("-") or not sys.argv[2].isdigit():
        sys.exit(__doc__)  # a mistyped `--help` must not become a store directory
    target = Path(sys.argv[1])
    n = int(sys.argv[2])
    took = build_bulk(target, n) if "--bulk" in sys.argv[3:] else build(target, n)
    print(f"built {n} memories in {took:.1f} s")
