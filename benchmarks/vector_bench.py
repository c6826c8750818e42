"""Measure VectorIndex: build, sealed save/load, query latency and recall, filters, deletion.

Usage (from the repository root)::

    python benchmarks/vector_bench.py [--sizes 10000 100000] [--queries 500] [--data random]

Data: ``random`` is uniform on the unit sphere (the task's baseline, and the hardest case
for HNSW: no structure to exploit); ``clustered`` draws around 2,000 centres in a
64-dimensional subspace, closer to real sentence embeddings, which are far from uniform.
Every number is single-threaded, through the public `VectorIndex` API (lock and id mapping
included), on this machine; ground truth for recall is exact numpy search.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from core.crypto.codec import Codec  # noqa: E402
from core.crypto.keys import KeySet  # noqa: E402
from core.index import vector_index  # noqa: E402
from core.index.vector_index import IndexMeta, VectorIndex  # noqa: E402

DIM = 384
EFS = (64, 128)
K = 10
Array = np.ndarray[Any, Any]


def unit(x: Array) -> Array:
    """Rows scaled to unit length, float32."""
    out: Array = (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)
    return out


def make_data(kind: str, n: int, queries: int, seed: int = 0) -> tuple[Array, Array]:
    """Corpus and query vectors of the requested kind."""
    rng = np.random.default_rng(seed)
    if kind == "random":
        return unit(rng.standard_normal((n, DIM))), unit(rng.standard_normal((queries, DIM)))
    basis = rng.standard_normal((64, DIM))
    centres = rng.standard_normal((2000, 64))

    def draw(m: int) -> Array:
        latent = centres[rng.integers(0, len(centres), m)] + 0.6 * rng.standard_normal((m, 64))
        return unit(latent @ basis + 0.3 * rng.standard_normal((m, DIM)))

    return draw(n), draw(queries)


def rss_mb() -> tuple[float, float]:
    """(current, peak) resident set size in MB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    with open("/proc/self/statm") as handle:
        current = int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    return current, peak


def timed(fn: Callable[[], object]) -> float:
    """Seconds one call takes."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def percentiles(samples_ms: Sequence[float]) -> str:
    """p50/p95/p99 of latencies in ms."""
    q = np.percentile(samples_ms, [50, 95, 99])
    return f"p50 {q[0]:.3f}  p95 {q[1]:.3f}  p99 {q[2]:.3f} ms"


def exact_topk(corpus: Array, queries: Array, k: int) -> Array:
    """Ground-truth neighbour indices by brute force (chunked to bound memory)."""
    out = []
    for start in range(0, len(queries), 256):
        scores = queries[start : start + 256] @ corpus.T
        part = np.argpartition(-scores, k, axis=1)[:, :k]
        order = np.take_along_axis(scores, part, axis=1).argsort(axis=1)[:, ::-1]
        out.append(np.take_along_axis(part, order, axis=1))
    return np.vstack(out)


def bench_queries(index: VectorIndex, queries: Array, truth: Array, ids: list[str]) -> None:
    """Latency percentiles and recall@K at each ef."""
    for ef in EFS:
        index.set_ef(ef)
        lat, hits = [], 0
        for q, want in zip(queries, truth, strict=True):
            start = time.perf_counter()
            got = index.search(q, K)
            lat.append((time.perf_counter() - start) * 1000)
            hits += len({g for g, _ in got} & {ids[i] for i in want})
        recall = hits / (K * len(queries))
        print(f"  ef={ef:<4} recall@{K} {recall:.3f}  {percentiles(lat)}")


def bench_exact(corpus: Array, queries: Array) -> None:
    """Single-query brute-force latency with numpy (the no-index baseline)."""
    lat = []
    for q in queries[:200]:
        start = time.perf_counter()
        scores = corpus @ q
        top = np.argpartition(-scores, K)[:K]
        top[np.argsort(-scores[top])]
        lat.append((time.perf_counter() - start) * 1000)
    print(f"  exact numpy     {percentiles(lat)}")


def bench_filters(index: VectorIndex, queries: Array, ids: list[str]) -> None:
    """Scoped search (R13): exact path vs hnswlib filter callable, by allowed-set size."""
    rng = np.random.default_rng(1)
    n = len(ids)
    defaults = vector_index.EXACT_FILTER_MAX, vector_index.EXACT_FILTER_SHARE
    for size in sorted({100, 1000, 2048, 10_000, n // 10, n // 2} - {0}):
        allowed = {ids[i] for i in rng.choice(n, size=min(size, n), replace=False)}
        row = f"  allowed {size:>6}:"
        for label, threshold in (("exact", n + 1), ("hnsw-filter", 0)):
            vector_index.EXACT_FILTER_MAX = threshold
            vector_index.EXACT_FILTER_SHARE = 1.0 if threshold else 0.0
            lat = _scoped_latencies(index, queries[:50], allowed)
            row += f"  {label} p50 {statistics.median(lat):.2f} ms"
        print(row)
    vector_index.EXACT_FILTER_MAX, vector_index.EXACT_FILTER_SHARE = defaults


def _scoped_latencies(index: VectorIndex, queries: Array, allowed: set[str]) -> list[float]:
    out = []
    for q in queries:
        start = time.perf_counter()
        index.search(q, K, allowed=allowed)
        out.append((time.perf_counter() - start) * 1000)
    return out


def bench_persistence(index: VectorIndex, n: int) -> None:
    """Sealed save and load times and the file size."""
    codec = Codec(KeySet.generate())
    meta = IndexMeta("bench", "random", DIM, store_revision=1)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "vectors.idx"
        save_s = timed(lambda: index.save(path, codec, meta))
        size_mb = path.stat().st_size / 2**20
        load_s = timed(lambda: VectorIndex.load(path, codec))
    print(f"  save (sealed) {save_s:.2f} s, load {load_s:.2f} s, file {size_mb:.1f} MB")


def bench_deletion(index: VectorIndex, ids: list[str]) -> None:
    """Cost of a scrubbing remove and of a full compaction."""
    victims = ids[:100]
    lat = [timed(lambda v=v: index.remove(v)) * 1000 for v in victims]
    print(f"  remove (scrub + mark_deleted) {percentiles(lat)}")
    print(f"  compact {timed(index.compact):.1f} s for {len(index)} live vectors")


def run(kind: str, n: int, queries_n: int) -> None:
    """All measurements for one corpus size (called in a fresh process, see `main`)."""
    base, _ = rss_mb()
    corpus, queries = make_data(kind, n, queries_n)
    ids = [f"mem_{i:07d}" for i in range(n)]
    truth = exact_topk(corpus, queries, K)
    index = VectorIndex(DIM, capacity=n)
    build_s = timed(lambda: index.add(ids, corpus))
    after, peak = rss_mb()
    data_mb = (corpus.nbytes + queries.nbytes) / 2**20
    print(f"\n== {kind} n={n} dim={DIM}: build {build_s:.1f} s ({n / build_s:.0f} vec/s)")
    print(
        f"  RSS after build {after:.0f} MB (interpreter+numpy {base:.0f} MB, test data "
        f"{data_mb:.0f} MB, so index ~{after - base - data_mb:.0f} MB); peak {peak:.0f} MB"
    )
    bench_queries(index, queries, truth, ids)
    bench_exact(corpus, queries)
    bench_filters(index, queries, ids)
    bench_persistence(index, n)
    bench_deletion(index, ids)
    print(f"  peak RSS {rss_mb()[1]:.0f} MB; load average {os.getloadavg()[0]:.1f}", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Run each (data, size) in its own process so that RSS figures do not mix."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--data", choices=["random", "clustered"], nargs="*", default=["random"])
    parser.add_argument("--single", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.single:
        run(args.data[0], args.sizes[0], args.queries)
        return 0
    print(
        f"cpu: {_cpu()}; cores: {os.cpu_count()}; M={vector_index.M}, "
        f"ef_construction={vector_index.EF_CONSTRUCTION}; one thread; "
        f"load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    for kind in args.data:
        for n in args.sizes:
            cmd = [sys.executable, __file__, "--single", "--data", kind, "--sizes", str(n)]
            subprocess.run([*cmd, "--queries", str(args.queries)], check=True)
    return 0


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


if __name__ == "__main__":
    raise SystemExit(main())
