"""Append throughput of the encrypted, hash-chained event log (issue: foundation).

Prints events/s for one transaction per event and for batched transactions, on a fresh
store in a temporary directory with real encryption. Usage:

    .venv/bin/python benchmarks/append_throughput.py [--events N] [--batch B]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core import MemoryService, NewEvent

TEXT = (
    "The assistant ran `pnpm test` in web-shop; 312 tests passed in 41 s. The user asked to "
    "keep the staging database on port 5433 and to write commit messages in English."
)


def _event(i: int, session: str) -> NewEvent:
    return NewEvent(
        session=session,
        actor="assistant",
        trust="assistant",
        scope={"user": "alice", "project": "web-shop"},
        text=f"{TEXT} #{i}",
    )


def run(events: int, batch: int) -> None:
    """Measure and print."""
    with tempfile.TemporaryDirectory() as tmp:
        svc = MemoryService.open(Path(tmp), passphrase="benchmark passphrase", prefer_keyring=False)
        start = time.perf_counter()
        for i in range(events):
            svc.events.append_event(_event(i, "single"))
        single = events / (time.perf_counter() - start)

        start = time.perf_counter()
        for base in range(0, events * 10, batch):
            svc.events.append_events([_event(base + j, "batched") for j in range(batch)])
        batched = events * 10 / (time.perf_counter() - start)

        start = time.perf_counter()
        report = svc.verify()
        verify_rate = report.events_checked / (time.perf_counter() - start)
        svc.close()
    print(
        f"machine: {platform.machine()} {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    print(f"one transaction per event: {single:,.0f} events/s ({events} events)")
    print(f"batched ({batch} per transaction): {batched:,.0f} events/s ({events * 10} events)")
    print(f"verify (chain + decrypt): {verify_rate:,.0f} events/s ({report.events_checked} events)")


def main() -> None:
    """Parse arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=500)
    args = parser.parse_args()
    run(args.events, args.batch)


if __name__ == "__main__":
    main()
