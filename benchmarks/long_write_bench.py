"""What a long text's write costs the other writers of one store (#40, #44).

One process suggests a long message (4,000 characters of short Chinese clauses, the
longest a memory may be) to a store with a standing deletion fence; a second process, on
the same store file, remembers five short facts while it runs. Prints the machine, the
long write's time and each of the other writes' times. Then, in one process, `observe` of
tool outputs of 2,000, 20,000 and 200,000 characters (log lines) with 300 memories in scope.
Usage:

    .venv/bin/python benchmarks/long_write_bench.py
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

SCOPE = {"user": "bench", "project": "long-writes"}
PASSPHRASE = "long-write-bench-passphrase"
LONG = "不，" * 1990


def _open(path: Path):  # type: ignore[no-untyped-def]
    from core import MemoryService

    return MemoryService.open(path, passphrase=PASSPHRASE, prefer_keyring=False)


def _ready(path: Path, role: str) -> Path:
    return path.with_name(f"{path.name}.{role}.ready")


def role(name: str, path: Path) -> None:
    """One side of the run, in its own process."""
    svc = _open(path)
    try:
        svc.memories.suggest(SCOPE, f"warm up the model for the {name} writer")
        _ready(path, name).write_text("1")
        while not all(_ready(path, r).exists() for r in ("long", "short")):
            time.sleep(0.05)
        if name == "long":
            start = time.perf_counter()
            svc.memories.suggest(SCOPE, LONG)
            print(f"long suggest ({len(LONG)} characters): {time.perf_counter() - start:.2f} s")
            return
        time.sleep(1.0)  # the long write is under way
        times = []
        for i in range(5):
            start = time.perf_counter()
            svc.memories.remember(SCOPE, f"Bike number {i} is the blue one")
            times.append(time.perf_counter() - start)
        print("other process's remember: " + ", ".join(f"{t:.2f}" for t in times) + " s")
    finally:
        svc.close()


def main() -> None:
    if len(sys.argv) == 3:
        role(sys.argv[1], Path(sys.argv[2]))
        return
    machine = platform.processor() or platform.machine()
    print(f"machine: {machine}, {os.cpu_count()} cores, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory(prefix="mc-long-") as tmp:
        path = Path(tmp) / "s"
        svc = _open(path)
        made = svc.memories.remember(SCOPE, "我对青霉素过敏").value
        assert made.record is not None
        svc.review.delete(made.record.id, reason="benchmark", purge=False)
        svc.close()
        runs = [
            subprocess.Popen([sys.executable, __file__, name, str(path)])
            for name in ("long", "short")
        ]
        for run in runs:
            run.wait()
        observations(Path(tmp) / "o")


def observations(path: Path) -> None:
    """`observe` of long tool outputs against 300 memories of the scope."""
    svc = _open(path)
    try:
        items = [
            {"scope": SCOPE, "text": f"Service {i} of the billing stack listens on port {5000 + i}"}
            for i in range(300)
        ]
        svc.memories.remember_many(items)
        svc.memories.observe(SCOPE, "warm up the model")
        line = "2026-12-07 10:00:01 INFO request served in 12 ms path=/api/v1/items status=200\n"
        for n in (2_000, 20_000, 200_000):
            text = (line * (n // len(line) + 1))[:n]
            start = time.perf_counter()
            svc.memories.observe(SCOPE, text)
            print(f"observe of {n:,} characters, 300 memories: {time.perf_counter() - start:.2f} s")
    finally:
        svc.close()


if __name__ == "__main__":
    main()
