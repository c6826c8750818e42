"""`get_context` latency through the MCP server over stdio, on a store of N memories.

Fills a fresh store with `service.memories.remember_many` (timed), then starts the real server as a
subprocess and makes `--calls` get_context calls through one long-lived client session,
timing each round trip. Usage:

    .venv/bin/python benchmarks/mcp_bench.py [--memories 10000] [--calls 1000]
        [--fill-limit 600] [--embedder hashing]

`--embedder hashing` leaves out the default model's query embedding (~20 ms), to show what
the rest of a call costs.

`--fill-limit` caps the fill time in seconds; the store then holds fewer memories and the
report says exactly how many.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mcp import Client, StdioServerParameters

from core import MemoryService

REPO = Path(__file__).resolve().parents[1]
PASSPHRASE = "benchmark passphrase"
PROJECTS = [f"proj{i}" for i in range(20)]


def _words(text: str) -> list[str]:
    return text.split()


SUBJECTS = _words(
    """checkout search billing invoices catalog payments shipping inventory reviews coupons
accounts sessions uploads reports exports imports emails webhooks metrics alerts backups logs
queues workers schedulers dashboards onboarding pricing refunds taxes"""
)
VERBS = _words(
    """deploys rebuilds caches validates archives mirrors throttles encrypts compresses indexes
renders batches retries signs audits shards replicates migrates snapshots monitors"""
)
OBJECTS = _words(
    """nightly hourly weekly manually automatically incrementally lazily eagerly quietly
carefully"""
)
TOOLS = _words(
    """terraform ansible helm kustomize nomad consul vault grafana sentry datadog airflow
celery redis kafka nginx envoy traefik minio rabbitmq temporal"""
)
OWNERS = _words("""platform growth payments search data security mobile web infra support""")
GOALS = [
    "how does checkout deploy",
    "who owns the billing workers",
    "which tool caches search results",
    "how are invoices archived",
]


def cpu_name() -> str:
    """The CPU model from /proc/cpuinfo."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def text(i: int) -> str:
    """A realistic memory sentence; neighbours differ in several words (no false conflicts)."""
    rng = random.Random(i)
    return (
        f"The {rng.choice(SUBJECTS)} service {rng.choice(VERBS)} {rng.choice(OBJECTS)} "
        f"with {rng.choice(TOOLS)}, owned by the {rng.choice(OWNERS)} team"
    )


FILL_BATCH = 500


def request(i: int) -> dict[str, object]:
    """The fill's `i`-th remember request: 20 project scopes of one user."""
    return {"scope": {"user": "alice", "project": PROJECTS[i % len(PROJECTS)]}, "text": text(i)}


def fill(data_dir: Path, count: int, limit: float, embedder: str | None) -> tuple[int, float]:
    """Remember up to `count` memories within `limit` seconds through the full policy, in
    `remember_many` batches (#13); return (done, seconds)."""
    started = time.perf_counter()
    done = 0
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder=embedder
    ) as svc:
        while done < count and time.perf_counter() - started <= limit:
            batch = [request(i) for i in range(done, min(count, done + FILL_BATCH))]
            svc.memories.remember_many(batch)
            done += len(batch)
            if done % 1000 == 0:
                took = time.perf_counter() - started
                print(f"  {done} memories in {took:.1f} s", flush=True)
        if svc.index.catalog.vectors is not None:
            svc.index.catalog.vectors.wait_idle(limit)  # the server then loads a complete index
        counts = dict(svc.status().memory_counts)
    print(f"  store holds memories by status: {counts}")
    return done, time.perf_counter() - started


async def measure(
    data_dir: Path, calls: int, embedder: str | None, pause: float = 0.0, fresh: bool = False
) -> tuple[float, list[float]]:
    """Connect once; time `calls` get_context round trips, `pause` seconds apart (untimed:
    the model's turn between two calls, when the server finishes what it wrote behind).
    `fresh`: every goal is new (numbered), so the query cache never answers and every call
    embeds its query; otherwise four goals repeat and only the first four calls embed."""
    env = {
        "PYTHONPATH": str(REPO),
        "MEMORY_CENTER_DATA_DIR": str(data_dir),
        "MEMORY_CENTER_PASSPHRASE": PASSPHRASE,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "OPENBLAS_NUM_THREADS": "1",
    }
    if embedder:
        env["MEMORY_CENTER_EMBEDDER"] = embedder
    args = [
        "-c",
        "from app.mcp_server import main; main()",
        "--scope",
        "user=alice",
        "--scope",
        "project=proj3",
        "--session",
        "bench",
    ]
    params = StdioServerParameters(command=sys.executable, args=args, env=env)
    started = time.perf_counter()
    async with Client(params, read_timeout_seconds=60) as client:
        first = await client.call_tool("get_context", {"goal": "warm up"})
        assert not first.is_error, first.content
        warm = time.perf_counter() - started
        times = []
        for i in range(calls):
            goal = GOALS[i % len(GOALS)] + (f" (turn {i})" if fresh else "")
            t0 = time.perf_counter()
            res = await client.call_tool("get_context", {"goal": goal})
            times.append(time.perf_counter() - t0)
            assert not res.is_error, res.content
            if pause:
                await asyncio.sleep(pause)
    return warm, times


def main() -> None:
    """Run and print the report."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--memories", type=int, default=10_000)
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--fill-limit", type=float, default=600.0)
    ap.add_argument(
        "--embedder", default=None, help="hashing: the path without the model's query embedding"
    )
    ap.add_argument(
        "--pause", type=float, nargs="+", default=[0.0], help="ms between calls (untimed)"
    )
    ap.add_argument(
        "--fresh-goals", action="store_true", help="a new goal every call: every call embeds"
    )
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp) / "store"
        print(f"machine: {os.cpu_count()} cores, {cpu_name()}, Python {platform.python_version()}")
        print(f"filling {opts.memories} memories with service.memories.remember_many ...")
        done, took = fill(data_dir, opts.memories, opts.fill_limit, opts.embedder)
        print(f"fill: {done} remember calls in {took:.1f} s ({done / took:.1f}/s)")
        for pause in opts.pause:
            warm, times = asyncio.run(
                measure(data_dir, opts.calls, opts.embedder, pause / 1000, opts.fresh_goals)
            )
            ms = sorted(t * 1000 for t in times)
            p95 = ms[int(len(ms) * 0.95) - 1]
            print(f"spawn + initialize + first get_context: {warm:.2f} s")
            print(
                f"get_context over stdio, {len(ms)} calls {pause:g} ms apart"
                f"{', every goal new' if opts.fresh_goals else ''}: "
                f"p50 {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms, max {ms[-1]:.1f} ms"
            )


if __name__ == "__main__":
    main()
