"""The PostgreSQL backend beside SQLite: inject latency, append throughput, device catch-up.

Starts a throwaway local PostgreSQL server (initdb + pg_ctl, as the tests do), then prints:

- inject p50/p95/p99 and search p50 at each size, on SQLite and on PostgreSQL (keyword path,
  no query embedding, like inject_bench.py; the store is bulk-filled below the service);
- append throughput on PostgreSQL with 1 and 3 writer processes (one event per transaction,
  and in batches of 100), every event landing on one hash chain;
- remember throughput with 1 and 3 writer processes (devices of invited members, each
  through its own login and the row-level security policies), one memory per call, each
  through the whole policy (fences, neighbours, conflicts) into a team scope;
- catch-up: how long a second device takes to bring its catalog up to date after the first
  device made 10,000 changes (and its first inject after that);
- the offline spool (R23): with the server stopped, how fast writes go to the local spool,
  then, with it started again, the flush rate (writes applied per second, each through the
  policy, with its id claimed in the store).

    .venv/bin/python benchmarks/postgres_bench.py [--sizes 10000 100000] [--queries 300]
        [--gap-ms 20]
        [--events 1000] [--changes 10000] [--per-tx 10] [--spool 1000]
        [--remembers 200] [--only inject append remember catch-up spool]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ["MEMORY_CENTER_EMBEDDER"] = "none"

from inject_bench import fill, pct, time_queries  # noqa: E402

from core import MemoryService  # noqa: E402
from tests.support.postgres import PostgresServer  # noqa: E402

PASSPHRASE = "benchmark passphrase"
MEASURES = ("inject", "append", "remember", "catch-up", "spool")

WRITER = """
import random, sys, time
from pathlib import Path
from core import MemoryService, NewEvent
from policy_bench import MIX, sentence
data_dir, name, sync = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[5])
rng = random.Random(name)
n, batch = int(sys.argv[3]), int(sys.argv[4])
with MemoryService.open(
    data_dir, passphrase=sys.argv[6], prefer_keyring=False, embedder="none"
) as svc:
    (sync / f"ready-{name}").touch()
    while not (sync / "go").exists():
        time.sleep(0.002)
    ev = lambda i: NewEvent(session=name, actor="tool", trust="tool_verified",
                            scope={"org": "acme"}, text=f"{name} event {i}")
    for start in range(0, n, max(batch, 1)):
        if batch == 0:
            # The policy benchmark's mix (duplicates, replacements, secrets, untrusted text).
            svc.memories.remember(
                {"org": "acme", "project": name}, sentence(rng, rng.choice(MIX)[2])
            )
        elif batch == 1:
            svc.events.append_event(ev(start))
        else:
            svc.events.append_events([ev(i) for i in range(start, min(n, start + batch))])
"""


def _open(data_dir: Path, url: str | None) -> MemoryService:
    # No vectors: the figures exclude query embedding, and no backfill thread competes.
    return MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, database_url=url, embedder="none"
    )


def _join(data_dir: Path, raw: bytes, code: str) -> MemoryService:
    return MemoryService.join(
        data_dir, raw, code, passphrase=PASSPHRASE, prefer_keyring=False, embedder="none"
    )


def inject_latency(label: str, svc: MemoryService, n: int, queries: int, gap: float = 0.0) -> None:
    """Fill n memories over 1,000 scopes, then time inject and search."""
    rng = random.Random(n)
    t0 = time.perf_counter()
    scopes = fill(svc, n, 1000, rng)
    fill_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    svc.index.catalog.sync()
    load_s = time.perf_counter() - t0
    inject_t, search_t = time_queries(svc, scopes, rng, queries, gap)
    print(
        f"{label:<11} {n:>7,}  fill {fill_s:6.1f} s  load {load_s:5.2f} s  inject p50 "
        f"{pct(inject_t, 50):6.2f} ms  p95 {pct(inject_t, 95):6.2f}  p99 {pct(inject_t, 99):6.2f}"
        f"  search p50 {pct(search_t, 50):6.2f} ms"
    )


def append_throughput(server: PostgresServer, writers: int, n: int, batch: int) -> None:
    """`writers` processes (separate devices) append n events each; events per second.
    `batch` 0: n single remembers each instead; memories per second."""
    url = server.database()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        owner = _open(base / "owner", url)
        dirs = []
        for k in range(writers):
            raw, code = owner.team.invite_member(f"device{k}").value
            _join(base / f"d{k}", raw, code).close()
            dirs.append(base / f"d{k}")
        sync = base / "sync"
        sync.mkdir()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "benchmarks")]))
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    WRITER,
                    str(d),
                    f"w{k}",
                    str(n),
                    str(batch),
                    str(sync),
                    PASSPHRASE,
                ],
                env=env,
            )
            for k, d in enumerate(dirs)
        ]
        while len(list(sync.glob("ready-*"))) < writers:
            time.sleep(0.01)
        t0 = time.perf_counter()
        (sync / "go").touch()
        for proc in procs:
            proc.wait()
        elapsed = time.perf_counter() - t0
        report = owner.verify()
        owner.close()
    total = n * writers
    if batch == 0:
        print(
            f"remember   writers {writers}  one per call  {total:>6} memories  "
            f"{total / elapsed:8.1f} memories/s  verify ok: {report.ok}  "
            f"load {os.getloadavg()[0]:.1f}"
        )
        return
    print(
        f"append     writers {writers}  batch {batch:>3}  {total:>6} events  "
        f"{total / elapsed:8.0f} events/s  chain ok: {report.ok} ({report.events_checked})  "
        f"load {os.getloadavg()[0]:.1f}"
    )


def catch_up(server: PostgresServer, changes: int, per_tx: int) -> None:
    """Device B's derived indexes catch up after device A made `changes` changes.

    A writes `changes` memories, `per_tx` per transaction (so `changes / per_tx` change-feed
    rows); then B, open the whole time, brings its catalog up to date from the change feed
    and answers its first inject.
    """
    url = server.database()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        a = _open(base / "a", url)
        raw, code = a.team.invite_member("b").value
        b = _join(base / "b", raw, code)
        b.index.catalog.sync()
        rng = random.Random(7)
        t0 = time.perf_counter()
        for _start in range(0, changes, per_tx):
            fill(a, per_tx, 50, rng)
        write_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        b.index.catalog.sync()
        sync_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        b.retrieval.inject({"user": "user3", "project": "project3"}, "garden budget plan", 600)
        first_s = time.perf_counter() - t0
        count = len(b.index.catalog.records)
        a.close()
        b.close()
    print(
        f"catch-up   device B after {changes:,} new memories in {changes // per_tx:,} "
        f"transactions (A wrote them in {write_s:.1f} s): catalog {sync_s:.2f} s, "
        f"first inject {first_s * 1000:.0f} ms ({count:,} active)"
    )


WORDS = [
    "garden",
    "kettle",
    "violin",
    "harbour",
    "ledger",
    "pepper",
    "tundra",
    "cobalt",
    "lantern",
    "meadow",
    "orbit",
    "quartz",
    "saddle",
    "thimble",
    "walnut",
    "yonder",
    "amber",
    "bishop",
    "canyon",
    "dolphin",
    "ember",
    "falcon",
    "glacier",
    "hazel",
    "indigo",
    "jasmine",
    "kayak",
    "lemur",
    "mosaic",
    "nectar",
    "oyster",
    "prairie",
    "quiver",
    "raven",
    "sierra",
    "tulip",
]


def _mixed_writes(svc: MemoryService, n: int, rng: random.Random) -> int:
    """n writes: two events, then one remembered fact of unrelated words, and so on.
    Returns how many were spooled."""
    from core import NewEvent, WriteSpooledError

    spooled = 0
    for i in range(n):
        words = " ".join(rng.sample(WORDS, 4))
        try:
            if i % 3 == 2:
                svc.memories.remember(
                    {"user": "ann", "project": f"p{i % 7}"}, f"Ann noted: {words}"
                )
            else:
                svc.events.append_event(
                    NewEvent(f"s{i % 5}", "tool", "tool_verified", {"user": "ann"}, words)
                )
        except WriteSpooledError:
            spooled += 1
    return spooled


def spool_flush(server: PostgresServer, n: int) -> None:
    """The same n writes made with the server up (direct), and made while it is away, then
    flushed when it is back: direct rate, spool rate, flush rate."""
    with tempfile.TemporaryDirectory() as tmp:
        svc = _open(Path(tmp) / "direct", server.database())
        t0 = time.perf_counter()
        _mixed_writes(svc, n, random.Random(3))
        direct_s = time.perf_counter() - t0
        svc.close()
        svc = _open(Path(tmp) / "a", server.database())
        server.stop("fast")
        t0 = time.perf_counter()
        waiting = _mixed_writes(svc, n, random.Random(3))
        spool_s = time.perf_counter() - t0
        server.restart()
        t0 = time.perf_counter()
        report = svc.commands.flush()
        flush_s = time.perf_counter() - t0
        ok = svc.verify().ok
        svc.close()
    print(
        f"spool      {n:,} writes (2 events : 1 remember): direct {n / direct_s:6.0f} /s; "
        f"offline {waiting:,} spooled at {waiting / spool_s:6.0f} /s; flushed "
        f"{len(report.applied):,} at {len(report.applied) / flush_s:6.0f} /s "
        f"({report.waiting} left, chain ok: {ok})"
    )


def main() -> None:
    """Parse arguments, start the server, run every measure."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--events", type=int, default=1000, help="events per writer")
    parser.add_argument("--remembers", type=int, default=200, help="memories per writer")
    parser.add_argument("--changes", type=int, default=10_000)
    parser.add_argument("--per-tx", type=int, default=10, help="memories per transaction (A)")
    parser.add_argument("--spool", type=int, default=1000, help="writes spooled offline")
    parser.add_argument("--only", choices=MEASURES, nargs="+", help="default: all")
    parser.add_argument(
        "--gap-ms",
        type=float,
        default=0.0,
        help="idle time before each inject, as between an agent's turns (default 0)",
    )
    args = parser.parse_args()
    parts = set(args.only or MEASURES)
    print(
        f"machine: {os.cpu_count()} cores; python {sys.version.split()[0]}; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    server = PostgresServer().start()
    try:
        for n in args.sizes if "inject" in parts else []:
            with tempfile.TemporaryDirectory() as tmp:
                svc = _open(Path(tmp), None)
                inject_latency("sqlite", svc, n, args.queries, args.gap_ms / 1000)
                svc.close()
            with tempfile.TemporaryDirectory() as tmp:
                svc = _open(Path(tmp), server.database())
                inject_latency("postgresql", svc, n, args.queries, args.gap_ms / 1000)
                svc.close()
        for writers in (1, 3) if "append" in parts else ():
            for batch in (1, 100):
                append_throughput(server, writers, args.events, batch)
        for writers in (1, 3) if "remember" in parts else ():
            append_throughput(server, writers, args.remembers, 0)
        if "catch-up" in parts:
            catch_up(server, args.changes, args.per_tx)
        if "spool" in parts:
            spool_flush(server, args.spool)
    finally:
        server.destroy()


if __name__ == "__main__":
    main()
