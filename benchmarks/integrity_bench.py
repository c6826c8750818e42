"""Cost of the integrity checks (#10): metadata bindings, full verify, purge reach.

Builds a store through the public service (hashing embedder, so no model load), with
memories in a few scopes, injections (snapshots) and MCP-audited calls, then prints:
the binding check per row, catalog load, `verify` of everything, and a compliance purge
with and without `purge_events` (which scans the audit events and snapshot goals of the
scopes that can see the memory). Usage:

    .venv/bin/python benchmarks/integrity_bench.py [--memories 600] [--snapshots 300]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ["MEMORY_CENTER_EMBEDDER"] = "hashing"

from app.mcp_server import Caller, Gateway, ServerSettings
from core import MemoryService, Scope
from core.crypto.codec import Codec
from core.crypto.keys import KeySet
from core.storage import binding

PASSPHRASE = "benchmark passphrase"
TOPICS = ["garden", "dentist", "flight", "budget", "paper", "build", "boiler", "school"]


def binding_cost(rows: int = 100_000) -> float:
    """Microseconds to check one row's binding (pure CPU, no database)."""
    codec = Codec(KeySet.generate())
    row = {name: f"value-{name}" for name in binding.BOUND_FIELDS}
    row["binding"] = binding.compute(codec, row)
    t0 = time.perf_counter()
    for _ in range(rows):
        binding.problem(codec, row)
    return (time.perf_counter() - t0) / rows * 1e6


def build(data_dir: Path, memories: int, snapshots: int) -> tuple[MemoryService, list[str]]:
    svc = MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="hashing"
    )
    ids = []
    for i in range(memories):
        scope = {"user": f"u{i % 4}", "project": TOPICS[i % len(TOPICS)]}
        text = f"Note {i} about the {TOPICS[i % len(TOPICS)]}: item {i * 7919 % 10007} matters."
        out = svc.memories.remember(scope, text).value
        if out.record is not None:
            ids.append(out.record.id)
    gateway = Gateway(
        ServerSettings(data_dir, Scope.of({"user": "u0", "project": "garden"}), "agent"),
        opener=lambda _path: svc,
    )
    for i in range(snapshots):
        gateway.get_context(Caller("bench", "1"), f"what about item {i} in the garden", 300, None)
    return svc, ids


def timed(label: str, fn: object) -> None:
    t0 = time.perf_counter()
    fn()  # type: ignore[operator]
    print(f"{label:<58} {time.perf_counter() - t0:8.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memories", type=int, default=600)
    parser.add_argument("--snapshots", type=int, default=300)
    args = parser.parse_args()
    print(f"binding check per row: {binding_cost():.2f} us")
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp) / "store"
        t0 = time.perf_counter()
        svc, ids = build(data_dir, args.memories, args.snapshots)
        print(
            f"built {len(ids)} memories, {args.snapshots} audited injections in "
            f"{time.perf_counter() - t0:.1f} s"
        )
        svc.index.catalog.invalidate()
        timed("catalog load (bindings checked, content decrypted)", svc.index.catalog.sync)
        report = svc.verify()
        print(
            f"verify: ok={report.ok}, {report.events_checked} events, "
            f"{report.sealed_values} sealed values, {report.records_checked} bindings"
        )
        timed("verify (SQLite check, chain, sealed columns, bindings)", svc.verify)
        garden = [i for i in ids if svc.memories.get_memory(i).scope.get("project") == "garden"]
        timed("delete + purge", lambda: svc.review.delete(garden[0], reason="b", purge=True))
        timed(
            "delete + purge + purge_events (audit events, goals)",
            lambda: svc.review.delete(garden[1], reason="b", purge=True, purge_events=True),
        )
        svc.close()


if __name__ == "__main__":
    main()
