"""Compare embedders, BM25 and a hybrid on the bilingual paraphrase set (R14).

Usage (from the repository root)::

    python benchmarks/embedder_eval.py [--set benchmarks/retrieval_set.jsonl] [--json out.json]

Every memory of the set forms one corpus; each query's only relevant memory is its own pair.
Queries are real paraphrases (they share few words with their memory), which is the hard
case for keyword search and the case an agent's memory meets: the model asks in the words of
the current task, not in the words the memory was written in.

Reported per method, per language and overall: recall@1, recall@5 and MRR; for embedders
also model load time, corpus throughput (texts/s, one thread) and the latency of embedding
one query (the hot-path cost, R17). The hybrid is reciprocal-rank fusion (k=60) of BM25 and
the best embedder, plus weighted variants so the docs can say what was tried.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# One thread everywhere: two BLAS threads on a busy two-core machine collapse throughput.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from core.errors import ResourceUnavailableError  # noqa: E402
from core.index.embedder import DEFAULT_EMBEDDER, EMBEDDER_NAMES, Embedder, make_embedder  # noqa: E402
from core.retrieval.keyword import KeywordIndex  # noqa: E402

DEFAULT_SET = REPO_ROOT / "benchmarks" / "retrieval_set.jsonl"
RRF_K = 60
# (bm25 weight, dense weight) variants of the fusion, reported so the choice is visible.
FUSION_WEIGHTS = ((1.0, 1.0), (0.3, 1.0), (0.1, 1.0), (0.05, 1.0))
LATENCY_SAMPLES = 40
Ranking = list[int]  # corpus indices, best first (may be shorter than the corpus)


@dataclass(frozen=True)
class Pair:
    """One memory and its paraphrased query."""

    pair_id: str
    lang: str
    memory: str
    query: str


@dataclass
class Result:
    """Metrics of one method."""

    name: str
    ranks: list[int | None]  # 1-based rank of each query's target, None when not retrieved
    load_s: float | None = None
    texts_per_s: float | None = None
    query_ms: float | None = None
    extra: dict[str, float] = field(default_factory=dict)


def load_set(path: Path) -> list[Pair]:
    """Read the JSONL evaluation set."""
    pairs = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                pairs.append(Pair(row["id"], row["lang"], row["memory"], row["query"]))
    return pairs


def rank_of(ranking: Ranking, target: int) -> int | None:
    """1-based position of `target` in `ranking`, None when absent."""
    try:
        return ranking.index(target) + 1
    except ValueError:
        return None


def metrics(ranks: Sequence[int | None]) -> dict[str, float]:
    """recall@1, recall@5 and MRR of a list of target ranks."""
    n = max(1, len(ranks))
    return {
        "r@1": sum(1 for r in ranks if r == 1) / n,
        "r@5": sum(1 for r in ranks if r is not None and r <= 5) / n,
        "mrr": sum(1.0 / r for r in ranks if r is not None) / n,
    }


def dense_rankings(embedder: Embedder, pairs: Sequence[Pair]) -> tuple[list[Ranking], Result]:
    """Rank the corpus for every query by cosine similarity; time load and embedding."""
    start = time.perf_counter()
    embedder.load()
    load_s = time.perf_counter() - start
    texts = [p.memory for p in pairs]
    start = time.perf_counter()
    passages = embedder.embed(texts, kind="passage")
    queries = embedder.embed([p.query for p in pairs], kind="query")
    rate = 2 * len(pairs) / (time.perf_counter() - start)
    latencies = []
    for pair in pairs[:: max(1, len(pairs) // LATENCY_SAMPLES)]:
        start = time.perf_counter()
        embedder.embed([pair.query], kind="query")
        latencies.append((time.perf_counter() - start) * 1000)
    order = np.argsort(-(queries @ passages.T), axis=1, kind="stable")
    rankings = [row.tolist() for row in order]
    ranks = [rank_of(r, i) for i, r in enumerate(rankings)]
    return rankings, Result(embedder.name, ranks, load_s, rate, statistics.median(latencies))


def bm25_rankings(pairs: Sequence[Pair]) -> tuple[list[Ranking], Result]:
    """Rank with the project's BM25 keyword index; unmatched memories are not ranked."""
    index = KeywordIndex()
    for i, pair in enumerate(pairs):
        index.add(str(i), pair.memory)
    rankings = []
    for pair in pairs:
        scores = index.search(pair.query)
        rankings.append([int(d) for d, _ in sorted(scores.items(), key=lambda kv: -kv[1])])
    ranks = [rank_of(r, i) for i, r in enumerate(rankings)]
    return rankings, Result("bm25", ranks)


def fuse(rankings: Sequence[tuple[float, Ranking]], k: int = RRF_K) -> Ranking:
    """Weighted reciprocal-rank fusion: sum of weight / (k + rank) over the lists."""
    scores: dict[int, float] = {}
    for weight, ranking in rankings:
        for position, doc in enumerate(ranking, start=1):
            scores[doc] = scores.get(doc, 0.0) + weight / (k + position)
    return sorted(scores, key=lambda d: -scores[d])


def hybrid_results(
    bm25: Sequence[Ranking], dense: Sequence[Ranking], dense_name: str
) -> list[Result]:
    """RRF of BM25 and one embedder, for each weighting in FUSION_WEIGHTS."""
    results = []
    for w_kw, w_dense in FUSION_WEIGHTS:
        fused = [fuse([(w_kw, b), (w_dense, d)]) for b, d in zip(bm25, dense, strict=True)]
        label = f"hybrid rrf({dense_name}+bm25, w_bm25={w_kw:g})"
        results.append(Result(label, [rank_of(r, i) for i, r in enumerate(fused)]))
    return results


def print_table(results: Sequence[Result], pairs: Sequence[Pair]) -> None:
    """One line per method: per-language and overall metrics, then speed."""
    langs = sorted({p.lang for p in pairs})
    head = f"{'method':<44}"
    for lang in [*langs, "all"]:
        head += f" | {lang + ' r@1':>8} {'r@5':>5} {'mrr':>5}"
    print(head + " | load s | texts/s | 1 query ms")
    print("-" * len(head) + "-" * 33)
    for res in results:
        line = f"{res.name:<44}"
        for lang in [*langs, "all"]:
            ranks = [r for r, p in zip(res.ranks, pairs, strict=True) if lang in ("all", p.lang)]
            m = metrics(ranks)
            line += f" | {m['r@1']:>8.3f} {m['r@5']:>5.3f} {m['mrr']:>5.3f}"
        line += f" | {_fmt(res.load_s, '.2f'):>6} | {_fmt(res.texts_per_s, '.0f'):>7}"
        print(line + f" | {_fmt(res.query_ms, '.1f'):>10}")


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def evaluate(pairs: Sequence[Pair], names: Sequence[str]) -> list[Result]:
    """Run every available embedder, BM25 and the hybrids; return all results."""
    results: list[Result] = []
    dense: dict[str, list[Ranking]] = {}
    for name in names:
        try:
            embedder = make_embedder(name)
            rankings, result = dense_rankings(embedder, pairs)
        except ResourceUnavailableError as exc:
            print(f"skipped {name}: {exc}", file=sys.stderr)
            continue
        dense[name] = rankings
        results.append(result)
    bm25, bm25_result = bm25_rankings(pairs)
    results.append(bm25_result)
    if dense:
        best = max(dense, key=lambda n: _mrr_of(results, n))
        for name in dict.fromkeys([best, DEFAULT_EMBEDDER]):
            if name in dense:
                results.extend(hybrid_results(bm25, dense[name], name))
    return results


def _mrr_of(results: Sequence[Result], name: str) -> float:
    return next(metrics(r.ranks)["mrr"] for r in results if r.name == name)


def recommend(results: Sequence[Result]) -> str:
    """One line: best quality, the default's standing, and whether a hybrid beats its parts."""
    by_name: Mapping[str, Result] = {r.name: r for r in results}
    mrr = {r.name: metrics(r.ranks)["mrr"] for r in results}
    dense = [r.name for r in results if r.texts_per_s is not None and r.name != "hashing"]
    if not dense:
        return "RECOMMENDATION: no model embedder installed; use 'hashing' (and BM25)"
    best = max(dense, key=mrr.__getitem__)
    default = DEFAULT_EMBEDDER if DEFAULT_EMBEDDER in by_name else best
    verdicts = []
    for name in dict.fromkeys([best, default]):
        hybrids = [r for r in by_name if r.startswith(f"hybrid rrf({name}+")]
        top = max(hybrids, key=mrr.__getitem__)
        wins = mrr[top] > mrr[name] and mrr[top] > mrr["bm25"]
        verdicts.append(
            f"best hybrid with {name} MRR {mrr[top]:.3f} "
            f"{'beats' if wins else 'does NOT beat'} its parts ({mrr[name]:.3f}, bm25 "
            f"{mrr['bm25']:.3f})"
        )
    return (
        f"RECOMMENDATION: default {default!r} (MRR {mrr[default]:.3f}, one numpy-only "
        f"package, bilingual); best quality {best!r} (MRR {mrr[best]:.3f}); " + "; ".join(verdicts)
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments, run the evaluation, print the table and a recommendation."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, default=DEFAULT_SET)
    parser.add_argument("--embedders", nargs="*", default=list(EMBEDDER_NAMES))
    parser.add_argument("--json", type=Path, help="also write the raw results here")
    args = parser.parse_args(argv)
    pairs = load_set(args.set)
    counts = {
        lang: sum(1 for p in pairs if p.lang == lang) for lang in sorted({p.lang for p in pairs})
    }
    print(f"{len(pairs)} pairs {counts}; cpu: {_cpu()}; cores: {os.cpu_count()}")
    results = evaluate(pairs, args.embedders)
    print_table(results, pairs)
    print(recommend(results))
    if args.json:
        _write_json(args.json, results, pairs)
    return 0


def _write_json(path: Path, results: Sequence[Result], pairs: Sequence[Pair]) -> None:
    rows = []
    for res in results:
        per_lang: dict[str, dict[str, float]] = {}
        for lang in [*sorted({p.lang for p in pairs}), "all"]:
            ranks = [r for r, p in zip(res.ranks, pairs, strict=True) if lang in ("all", p.lang)]
            per_lang[lang] = metrics(ranks)
        rows.append(
            {
                "name": res.name,
                "metrics": per_lang,
                "load_s": res.load_s,
                "texts_per_s": res.texts_per_s,
                "query_ms": res.query_ms,
            }
        )
    path.write_text(json.dumps(rows, indent=2), encoding="utf-8")


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
