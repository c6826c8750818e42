"""Evaluate the secret/PII scanner (R8) against the labelled corpus.

Usage (from the repository root)::

    python benchmarks/sensitivity_eval.py [path/to/corpus.jsonl]

Metrics are sample-level, matching how the policy uses the scanner (a candidate is rejected or
redacted as soon as anything is found):

* a positive sample is a true positive when at least one finding has a type in ``expected``;
* a negative sample (``expected == []``) is a false positive when anything is found.

The corpus holds only fabricated secrets, so printing the offending spans is safe here.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from core.governance.sensitivity import Finding, scan  # noqa: E402

DEFAULT_CORPUS = REPO_ROOT / "tests" / "core" / "governance" / "sensitivity_corpus.jsonl"


@dataclass
class Evaluation:
    """Sample-level confusion counts plus the samples that went wrong."""

    tp: int = 0
    fn: int = 0
    fp: int = 0
    tn: int = 0
    expected_by_type: Counter[str] = field(default_factory=Counter)
    detected_by_type: Counter[str] = field(default_factory=Counter)
    false_positive_types: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        """Share of flagged samples that really were sensitive."""
        flagged = self.tp + self.fp
        return self.tp / flagged if flagged else 1.0

    @property
    def recall(self) -> float:
        """Share of sensitive samples that were flagged with a matching type."""
        positives = self.tp + self.fn
        return self.tp / positives if positives else 1.0


def load_corpus(path: Path) -> list[dict[str, object]]:
    """Read the JSONL corpus, skipping blank lines."""
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _describe(text: str, findings: list[Finding]) -> str:
    """Render findings with their spans for the error report."""
    return ", ".join(f"{f.type.value}/{f.detector}={text[f.start : f.end]!r}" for f in findings)


def _score_sample(ev: Evaluation, sample: dict[str, object]) -> None:
    """Update the evaluation with one sample's outcome."""
    text = str(sample["text"])
    expected = {str(t) for t in sample["expected"]}  # type: ignore[attr-defined]
    findings = scan(text)
    found = {f.type.value for f in findings}
    note = sample.get("note", "")
    if expected:
        ev.expected_by_type.update(expected)
        ev.detected_by_type.update(expected & found)
        if expected & found:
            ev.tp += 1
        else:
            ev.fn += 1
            ev.errors.append(
                f"FN [{note}] expected={sorted(expected)} got={sorted(found)}\n    {text[:160]!r}"
            )
    elif findings:
        ev.fp += 1
        ev.false_positive_types.update(found)
        ev.errors.append(f"FP [{note}] {_describe(text, findings)}\n    {text[:160]!r}")
    else:
        ev.tn += 1


def evaluate(samples: list[dict[str, object]]) -> Evaluation:
    """Score every sample of the corpus."""
    ev = Evaluation()
    for sample in samples:
        _score_sample(ev, sample)
    return ev


def measure_throughput(texts: list[str], min_seconds: float = 1.0) -> float:
    """Scans per second over the corpus, repeated until the timing is meaningful."""
    count = 0
    started = time.perf_counter()
    while True:
        for text in texts:
            scan(text)
        count += len(texts)
        elapsed = time.perf_counter() - started
        if elapsed >= min_seconds:
            return count / elapsed


def report(ev: Evaluation, samples: list[dict[str, object]], scans_per_second: float) -> None:
    """Print errors, metrics and per-type counts."""
    for line in ev.errors:
        print(line)
    if ev.errors:
        print()
    positives, negatives = ev.tp + ev.fn, ev.fp + ev.tn
    zh = sum(1 for s in samples if s.get("lang") == "zh")
    print(f"samples: {len(samples)} (positives {positives}, negatives {negatives}, zh {zh})")
    print(f"TP={ev.tp} FN={ev.fn} FP={ev.fp} TN={ev.tn}")
    print(f"precision: {ev.precision:.4f}")
    print(f"recall:    {ev.recall:.4f}")
    print("per type (positive samples expecting it: detected / expected):")
    for kind in sorted(ev.expected_by_type):
        print(f"  {kind:<18} {ev.detected_by_type[kind]:>3} / {ev.expected_by_type[kind]:<3}")
    if ev.false_positive_types:
        print("false-positive types on negatives:", dict(sorted(ev.false_positive_types.items())))
    print(f"throughput: {scans_per_second:,.0f} scans/s")


def main(argv: list[str] | None = None) -> int:
    """Run the evaluation; exit status 1 if precision or recall is below 0.95."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args(argv)
    samples = load_corpus(args.corpus)
    ev = evaluate(samples)
    report(ev, samples, measure_throughput([str(s["text"]) for s in samples]))
    return 0 if ev.precision >= 0.95 and ev.recall >= 0.95 else 1


if __name__ == "__main__":
    raise SystemExit(main())
