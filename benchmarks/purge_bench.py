"""Vector-side cost of delete and compliance purge at 100k memories (R19).

Delete scrubs one vector (zeroes it, marks it deleted); purge also rewrites the sealed index
file so the vector bytes are gone from disk. The database side of delete and purge is measured
by inject_bench.py. Usage:

    .venv/bin/python benchmarks/purge_bench.py [--size 100000] [--dim 384] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

from core.crypto.codec import Codec
from core.crypto.keys import KeySet
from core.index.vector_index import IndexMeta, VectorIndex


def main() -> None:
    """Build an index of random unit vectors, then time delete and purge."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((args.size, args.dim)).astype(np.float32)
    ids = [f"mem_{i:08d}" for i in range(args.size)]
    index = VectorIndex(args.dim, capacity=args.size)
    t0 = time.perf_counter()
    for start in range(0, args.size, 10_000):
        index.add(ids[start : start + 10_000], vectors[start : start + 10_000])
    build = time.perf_counter() - t0
    codec = Codec(KeySet.generate())
    meta = IndexMeta("random", "1", args.dim, 0)
    deletes, purges = [], []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "vectors.mcidx"
        index.save(path, codec, meta)
        for run in range(args.runs):
            t0 = time.perf_counter()
            index.remove(ids[run * 2])
            deletes.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            index.remove(ids[run * 2 + 1])
            index.save(path, codec, meta)
            purges.append(time.perf_counter() - t0)
        size_mb = path.stat().st_size / 2**20
    print(
        f"machine: {os.cpu_count()} cores; {args.size:,} x {args.dim} vectors; build {build:.1f} s"
    )
    print(f"delete (scrub one vector): median {statistics.median(deletes) * 1000:.2f} ms")
    print(
        f"purge (scrub + rewrite the sealed file, {size_mb:.0f} MiB): median "
        f"{statistics.median(purges):.2f} s, max {max(purges):.2f} s"
    )


if __name__ == "__main__":
    main()
