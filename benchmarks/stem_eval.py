"""The keyword index's English stems on pairs written after the stemmer was chosen (#17).

Usage (from the repository root)::

    .venv/bin/python benchmarks/stem_eval.py [--set benchmarks/data/stem_pairs.jsonl]

Each line of the set is ``{"memory", "query"}`` (``query`` null for a distractor). Every
memory forms one corpus; a query's only relevant memory is its own. BM25 of the product's
`KeywordIndex` ranks the corpus twice: with the terms it had before (plurals folded only) and
with today's (`core.retrieval.terms`, Snowball stems). Printed: recall@1, recall@3 and MRR
of each. The set mixes queries whose words differ from the memory's by inflection, queries
that reuse the memory's own forms, and distractors that share a stem with them without
sharing the meaning (universe / university, organ / organization, general / generator,
police / policy, news / new); it was written after the stemmer was built, as the held-out
half beside the conversation benchmark the stemmer was chosen on.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import core.retrieval.keyword as keyword_module  # noqa: E402
from core.governance.text import tokens  # noqa: E402
from core.retrieval.keyword import KeywordIndex  # noqa: E402
from core.retrieval.terms import search_terms  # noqa: E402

DEFAULT_SET = REPO_ROOT / "benchmarks" / "data" / "stem_pairs.jsonl"


def evaluate(
    lines: list[dict[str, str | None]], terms: Callable[[str], list[str]]
) -> dict[str, float]:
    keyword_module.search_terms = terms  # the analyzer under test, for index and queries
    index = KeywordIndex()
    for i, line in enumerate(lines):
        index.add(str(i), str(line["memory"]))
    ranks = []
    for i, line in enumerate(lines):
        if line["query"] is None:
            continue
        scores = index.search(str(line["query"]))
        order = sorted(scores, key=lambda d: (-scores[d], d))
        ranks.append(order.index(str(i)) + 1 if str(i) in order else None)
    return {
        "queries": float(len(ranks)),
        "r@1": statistics.fmean(1.0 if r == 1 else 0.0 for r in ranks),
        "r@3": statistics.fmean(1.0 if r is not None and r <= 3 else 0.0 for r in ranks),
        "mrr": statistics.fmean(1.0 / r if r else 0.0 for r in ranks),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", type=Path, default=DEFAULT_SET)
    args = parser.parse_args()
    lines = [json.loads(x) for x in args.set.read_text(encoding="utf-8").splitlines() if x]
    for name, terms in (
        ("plurals folded (before)", tokens),
        ("Snowball stems (now)", search_terms),
    ):
        got = evaluate(lines, terms)
        print(
            f"{name:26} queries {got['queries']:.0f}  r@1 {got['r@1']:.3f}  "
            f"r@3 {got['r@3']:.3f}  MRR {got['mrr']:.3f}"
        )
    keyword_module.search_terms = search_terms
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
