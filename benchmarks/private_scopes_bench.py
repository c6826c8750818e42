"""Private `user=X` scopes on a team store: what personal keys cost (R24, #12).

Starts a throwaway local PostgreSQL server (as the tests do). Member ana writes N private
(`user=ana`) and N team memories; member ben joins from another data directory. Prints, for
each member's device: open time (includes the personal-key check), catalog load, and inject
p50/p95 for an `org + user=ana` request (ben's skips ana's private rows by their key id); and
remember p50 for a private and a team memory on ana's device.

    .venv/bin/python benchmarks/private_scopes_bench.py [--n 300] [--queries 60]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ["MEMORY_CENTER_EMBEDDER"] = "none"

from core import MemoryService  # noqa: E402
from tests.support.postgres import PostgresServer  # noqa: E402

ANA = {"org": "acme", "user": "ana"}
TEAM = {"org": "acme"}
TOPICS = ("dentist", "budget", "flight", "garden", "invoice", "recipe", "deploy", "library")


def _ms(samples: list[float], q: int) -> float:
    ordered = sorted(samples)
    return 1000 * ordered[min(len(ordered) - 1, len(ordered) * q // 100)]


def _open(data_dir: Path, passphrase: str, url: str | None = None, **kw: str) -> MemoryService:
    return MemoryService.open(
        data_dir,
        passphrase=passphrase,
        prefer_keyring=False,
        database_url=url,
        embedder="none",
        **kw,
    )


def _fill(ana: MemoryService, n: int) -> tuple[list[float], list[float]]:
    private, team = [], []
    for i in range(n):
        topic = TOPICS[i % len(TOPICS)]
        t0 = time.perf_counter()
        ana.memories.remember(ANA, f"Remember: ana's {topic} note number {i} says {i * 7}")
        private.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        ana.memories.remember(TEAM, f"Remember: acme {topic} rule number {i} is {i * 3}")
        team.append(time.perf_counter() - t0)
    return private, team


def _device(label: str, data_dir: Path, passphrase: str, queries: int) -> None:
    t0 = time.perf_counter()
    svc = _open(data_dir, passphrase)
    opened = time.perf_counter() - t0
    try:
        t0 = time.perf_counter()
        svc.index.catalog.sync()
        loaded = time.perf_counter() - t0
        times = []
        for i in range(queries):
            t0 = time.perf_counter()
            svc.retrieval.inject(ANA, f"what about the {TOPICS[i % len(TOPICS)]}", 600)
            times.append(time.perf_counter() - t0)
        visible = len(svc.memories.list_memories())
    finally:
        svc.close()
    print(
        f"{label:<5} open {opened * 1000:7.1f} ms  catalog load {loaded * 1000:7.1f} ms  "
        f"visible {visible:>5}  inject p50 {_ms(times, 50):6.2f} ms  p95 {_ms(times, 95):6.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=300, help="private and team memories each")
    parser.add_argument("--queries", type=int, default=60)
    args = parser.parse_args()
    server = PostgresServer().start()
    try:
        url = server.database()
        root = Path(tempfile.mkdtemp(prefix="mc-private-"))
        ana = _open(root / "ana", "ana passphrase", url, member="ana")
        raw, code = ana.team.invite_member("ben").value
        MemoryService.join(
            root / "ben", raw, code, passphrase="ben passphrase", prefer_keyring=False
        ).close()
        private, team = _fill(ana, args.n)
        ana.close()
        print(f"load average {os.getloadavg()[0]:.2f}; {args.n} private + {args.n} team memories")
        print(
            f"remember p50: private {statistics.median(private) * 1000:6.2f} ms, "
            f"team {statistics.median(team) * 1000:6.2f} ms"
        )
        _device("ana", root / "ana", "ana passphrase", args.queries)
        _device("ben", root / "ben", "ben passphrase", args.queries)
    finally:
        server.destroy()


if __name__ == "__main__":
    main()
