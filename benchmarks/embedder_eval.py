"""Compare embedders, BM25, RRF hybrids and the product's own fusion on the retrieval set (R14).

Usage (from the repository root)::

    python benchmarks/embedder_eval.py [--set benchmarks/retrieval_set.jsonl] [--json out.json]

The set (see docs/retrieval.md) has three kinds of lines, told apart by "type":

* ``paraphrase``: the query says what the memory means in other words (the hard case for
  keywords: the model asks in the words of its current task);
* ``lexical``: the query reuses the memory's distinctive words (a port, a host, a ticket id, a
  package, a path, a version, a person's or a shop's name) inside a noisy request;
* ``distractor``: a memory without a query, a near miss for some lexical pair (another port,
  another ticket, the same generic words).

Every memory of the set forms one corpus; each query's only relevant memory is its own.

Reported per method, per query type, per language and overall: recall@1, recall@5 and MRR;
for embedders also model load time, corpus throughput (texts/s, one thread) and the latency of
embedding one query (the hot-path cost, R17). Methods: every installed embedder alone, BM25
alone (`KeywordIndex`), weighted reciprocal-rank fusion (k=60) of BM25 and an embedder, and
the product's own hybrid, `core.retrieval.ranking.fuse`, called as `Retriever.retrieve`
calls it (BM25 scores of `KeywordIndex.search`, cosines of the corpus, the embedder's
`RELEVANCE_WINDOW`). The product ranks only its hits (relevance > 0) by relevance, ties by
cosine (a non-hit has relevance 0, so non-hits follow the hits in cosine order). Also reported:
the mean number of hits per query (hits must stay few and relevant) and how often the
target is a hit at all (only hits can be injected).
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
from core.retrieval.injector import RELEVANCE_WINDOW  # noqa: E402
from core.retrieval.keyword import KeywordIndex  # noqa: E402
from core.retrieval.ranking import fuse as product_fuse  # noqa: E402

DEFAULT_SET = REPO_ROOT / "benchmarks" / "retrieval_set.jsonl"
RRF_K = 60
# (bm25 weight, dense weight) variants of the fusion, reported so the choice is visible.
FUSION_WEIGHTS = ((1.0, 1.0), (0.5, 1.0), (0.3, 1.0), (0.1, 1.0))
LATENCY_SAMPLES = 40
QUERY_TYPES = ("paraphrase", "lexical")
PRODUCT = "product fuse"
Ranking = list[int]  # corpus indices, best first (may be shorter than the corpus)


@dataclass(frozen=True)
class Item:
    """One memory of the corpus and, unless it is a distractor, its query."""

    item_id: str
    lang: str
    kind: str  # "paraphrase" | "lexical" | "distractor"
    memory: str
    query: str | None


@dataclass(frozen=True)
class EvalSet:
    """The corpus (every memory) and the queries (items with a query) with their targets."""

    items: list[Item]
    queries: list[Item]
    targets: list[int]  # corpus index of each query's own memory


@dataclass
class Result:
    """Metrics of one method."""

    name: str
    ranks: list[int | None]  # 1-based rank of each query's target, None when not retrieved
    load_s: float | None = None
    texts_per_s: float | None = None
    query_ms: float | None = None
    extra: dict[str, float] = field(default_factory=dict)


def load_set(path: Path) -> EvalSet:
    """Read the JSONL evaluation set (a line without "type" is a paraphrase pair)."""
    items = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                kind = row.get("type") or ("paraphrase" if row.get("query") else "distractor")
                items.append(Item(row["id"], row["lang"], kind, row["memory"], row.get("query")))
    queries = [item for item in items if item.query]
    targets = [i for i, item in enumerate(items) if item.query]
    return EvalSet(items, queries, targets)


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


def _ranks(rankings: Sequence[Ranking], data: EvalSet) -> list[int | None]:
    return [rank_of(r, t) for r, t in zip(rankings, data.targets, strict=True)]


def dense_scores(embedder: Embedder, data: EvalSet) -> tuple[np.ndarray, Result]:
    """Cosines of every query to every memory (queries x corpus); time load and embedding."""
    start = time.perf_counter()
    embedder.load()
    load_s = time.perf_counter() - start
    start = time.perf_counter()
    passages = embedder.embed([item.memory for item in data.items], kind="passage")
    queries = embedder.embed([q.query or "" for q in data.queries], kind="query")
    rate = (len(data.items) + len(data.queries)) / (time.perf_counter() - start)
    latencies = []
    for item in data.queries[:: max(1, len(data.queries) // LATENCY_SAMPLES)]:
        start = time.perf_counter()
        embedder.embed([item.query or ""], kind="query")
        latencies.append((time.perf_counter() - start) * 1000)
    cosines = np.asarray(queries @ passages.T, dtype=np.float64)
    rankings = [row.tolist() for row in np.argsort(-cosines, axis=1, kind="stable")]
    result = Result(embedder.name, _ranks(rankings, data), load_s, rate)
    result.query_ms = statistics.median(latencies)
    return cosines, result


def keyword_index(data: EvalSet) -> KeywordIndex:
    """The project's keyword index over the corpus."""
    index = KeywordIndex()
    for i, item in enumerate(data.items):
        index.add(str(i), item.memory)
    return index


def bm25_scores(data: EvalSet) -> list[dict[int, float]]:
    """BM25 scores of the project's keyword index (only memories sharing a term)."""
    index = keyword_index(data)
    return [{int(d): s for d, s in index.search(q.query or "").items()} for q in data.queries]


def by_score(scores: Mapping[int, float]) -> Ranking:
    """Indices sorted by score, best first, ties by index."""
    return sorted(scores, key=lambda d: (-scores[d], d))


def rrf(rankings: Sequence[tuple[float, Ranking]], k: int = RRF_K) -> Ranking:
    """Weighted reciprocal-rank fusion: sum of weight / (k + rank) over the lists."""
    scores: dict[int, float] = {}
    for weight, ranking in rankings:
        for position, doc in enumerate(ranking, start=1):
            scores[doc] = scores.get(doc, 0.0) + weight / (k + position)
    return by_score(scores)


def rrf_results(
    bm25: Sequence[Ranking], dense: Sequence[Ranking], dense_name: str, data: EvalSet
) -> list[Result]:
    """RRF of BM25 and one embedder, for each weighting in FUSION_WEIGHTS."""
    results = []
    for w_kw, w_dense in FUSION_WEIGHTS:
        fused = [rrf([(w_kw, b), (w_dense, d)]) for b, d in zip(bm25, dense, strict=True)]
        label = f"rrf({dense_name}+bm25, w_bm25={w_kw:g})"
        results.append(Result(label, _ranks(fused, data)))
    return results


def product_result(
    bm25: Sequence[Mapping[int, float]], cosines: np.ndarray, dense_name: str, data: EvalSet
) -> Result:
    """The product's `fuse` as `Retriever.retrieve` calls it; hits ranked, ties by cosine."""
    window = RELEVANCE_WINDOW.get(dense_name, 0.1)
    index = keyword_index(data)
    rankings: list[Ranking] = []
    hits: list[int] = []
    target_hits = 0
    for kw, row, target, item in zip(bm25, cosines, data.targets, data.queries, strict=True):
        relevance = product_fuse(
            {str(d): s for d, s in kw.items()},
            {str(i): float(c) for i, c in enumerate(row)},
            window,
            query=item.query or "",
            ideal=index.ideal(item.query or ""),
            tail=False,  # as `search_memory` ranks; injection adds the neighbour tail
        )
        found = {int(mid) for mid, value in relevance.items() if value > 0}
        hits.append(len(found))
        target_hits += target in found
        # Non-hits have relevance 0 and follow the hits in cosine order (ties by cosine).
        order = sorted(range(len(row)), key=lambda i: (-relevance.get(str(i), 0.0), -row[i], i))
        rankings.append(order)
    result = Result(f"{PRODUCT}({dense_name}+bm25)", _ranks(rankings, data))
    result.extra = {
        "hits_mean": statistics.fmean(hits),
        "hits_max": float(max(hits)),
        "target_is_hit": target_hits / max(1, len(hits)),
    }
    return result


def groups(data: EvalSet) -> dict[str, list[bool]]:
    """Masks over the queries: per type, per language, all."""
    out = {t: [q.kind == t for q in data.queries] for t in QUERY_TYPES}
    for lang in sorted({q.lang for q in data.queries}):
        out[lang] = [q.lang == lang for q in data.queries]
    out["all"] = [True] * len(data.queries)
    return out


def group_metrics(result: Result, data: EvalSet) -> dict[str, dict[str, float]]:
    """metrics() of one result for every group."""
    return {
        name: metrics([r for r, keep in zip(result.ranks, mask, strict=True) if keep])
        for name, mask in groups(data).items()
    }


def print_table(results: Sequence[Result], data: EvalSet) -> None:
    """Two tables: by query type (with speed and hits), then by language."""
    names = list(groups(data))
    by_type = [*QUERY_TYPES, "all"]
    by_lang = [n for n in names if n not in (*QUERY_TYPES, "all")]
    for cols, tail in ((by_type, True), (by_lang, False)):
        head = f"{'method':<36}"
        for col in cols:
            head += f" | {col[:5] + ' r@1':>10} {'r@5':>5} {'mrr':>5}"
        if tail:
            head += " | hits/q | tgt hit | load s | texts/s | 1 query ms"
        print(head)
        print("-" * len(head))
        for res in results:
            m = group_metrics(res, data)
            line = f"{res.name:<36}"
            for col in cols:
                line += f" | {m[col]['r@1']:>10.3f} {m[col]['r@5']:>5.3f} {m[col]['mrr']:>5.3f}"
            if tail:
                line += f" | {_fmt(res.extra.get('hits_mean'), '.1f'):>6}"
                line += f" | {_fmt(res.extra.get('target_is_hit'), '.3f'):>7}"
                line += f" | {_fmt(res.load_s, '.2f'):>6} | {_fmt(res.texts_per_s, '.0f'):>7}"
                line += f" | {_fmt(res.query_ms, '.1f'):>10}"
            print(line)
        print()


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def evaluate(data: EvalSet, names: Sequence[str]) -> list[Result]:
    """Run every available embedder, BM25, the RRF hybrids and the product fusion."""
    results: list[Result] = []
    cosines: dict[str, np.ndarray] = {}
    for name in names:
        try:
            matrix, result = dense_scores(make_embedder(name), data)
        except ResourceUnavailableError as exc:
            print(f"skipped {name}: {exc}", file=sys.stderr)
            continue
        cosines[name] = matrix
        results.append(result)
    bm25 = bm25_scores(data)
    bm25_rankings = [by_score(s) for s in bm25]
    results.append(Result("bm25", _ranks(bm25_rankings, data)))
    fused = [n for n in (DEFAULT_EMBEDDER, "e5-minilm") if n in cosines]
    for name in fused:
        dense = [row.tolist() for row in np.argsort(-cosines[name], axis=1, kind="stable")]
        results.extend(rrf_results(bm25_rankings, dense, name, data))
        results.append(product_result(bm25, cosines[name], name, data))
    return results


def verdict(results: Sequence[Result], data: EvalSet) -> list[str]:
    """Per fused embedder: does the product hybrid beat BM25 and the embedder overall?"""
    by_name = {r.name: group_metrics(r, data)["all"] for r in results}
    lines = []
    for res in results:
        if not res.name.startswith(PRODUCT):
            continue
        dense = res.name.split("(", 1)[1].split("+", 1)[0]
        mine = by_name[res.name]
        parts = []
        beats_all = True
        for part in (dense, "bm25"):
            other = by_name[part]
            wins = [k for k in ("r@1", "r@5", "mrr") if mine[k] > other[k]]
            beats_all &= mine["mrr"] > other["mrr"]
            parts.append(
                f"{part}: MRR {mine['mrr']:.3f} vs {other['mrr']:.3f}, better on "
                f"{', '.join(wins) or 'nothing'}"
            )
        word = "BEATS" if beats_all else "does NOT beat"
        lines.append(
            f"VERDICT: {res.name} {word} each of its parts overall (MRR): " + "; ".join(parts)
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments, run the evaluation, print the tables and the verdict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, default=DEFAULT_SET)
    parser.add_argument("--embedders", nargs="*", default=list(EMBEDDER_NAMES))
    parser.add_argument("--json", type=Path, help="also write the raw results here")
    args = parser.parse_args(argv)
    data = load_set(args.set)
    counts = {name: sum(mask) for name, mask in groups(data).items()}
    print(
        f"{len(data.items)} memories ({len(data.items) - len(data.queries)} distractors), "
        f"queries {counts}; cpu: {_cpu()}; cores: {os.cpu_count()}; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    results = evaluate(data, args.embedders)
    print_table(results, data)
    for line in verdict(results, data):
        print(line)
    if args.json:
        _write_json(args.json, results, data)
    return 0


def _write_json(path: Path, results: Sequence[Result], data: EvalSet) -> None:
    rows = [
        {
            "name": res.name,
            "metrics": group_metrics(res, data),
            "load_s": res.load_s,
            "texts_per_s": res.texts_per_s,
            "query_ms": res.query_ms,
            **res.extra,
        }
        for res in results
    ]
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
