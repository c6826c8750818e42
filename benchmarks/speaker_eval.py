"""Does a request name a speaker? (#17, `ranking.names_person`) Precision and recall on a
labelled corpus (`benchmarks/data/speaker_names.jsonl`).

Half 1 was written with the rule; half 2 was written after it and never used to change it:
half 2 is the honest number. English and Chinese; names that are also words ("Will",
"Hope", "Max", "Rose") on both sides.

    python benchmarks/speaker_eval.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.retrieval.ranking import names_person

CORPUS = Path(__file__).resolve().parent / "data" / "speaker_names.jsonl"


def main() -> None:
    cases = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
    for half in (1, 2):
        tp = fp = fn = tn = 0
        wrong = []
        for case in (c for c in cases if c["half"] == half):
            said = names_person(case["query"], case["speaker"])
            tp += said and case["names"]
            fp += said and not case["names"]
            fn += not said and case["names"]
            tn += not said and not case["names"]
            if said != case["names"]:
                wrong.append(f"{case['id']} {case['speaker']!r} in {case['query']!r}")
        precision = tp / (tp + fp) if tp + fp else 1.0
        recall = tp / (tp + fn) if tp + fn else 1.0
        print(
            f"half {half}: {tp + fp + fn + tn} cases, precision {precision:.2f}, "
            f"recall {recall:.2f} (tp {tp}, fp {fp}, fn {fn}, tn {tn})"
        )
        for line in wrong:
            print(f"  wrong: {line}")


if __name__ == "__main__":
    main()
