"""Candidate precision on messages written by independent authors (#42): of the messages
extraction suggests as memories, how many a reviewer would approve, and of the messages a
reviewer would approve, how many are suggested.

The messages are in ``benchmarks/data/candidate_messages.jsonl``, written and labelled by
authors who never saw the extractor, each briefed only with
``benchmarks/data/candidate_labelling_guide.md`` and a persona (people chatting over months,
and people working with an assistant; English, Chinese, mixed). Parts: ``dev`` (looked at
while changing the extractor), ``check`` (only its numbers looked at), ``final-N`` (written
after the design was frozen; its first run is the number reported).

Each message is one event of a session of its own, said by the user, and extracted with the
store's extractor through the public API. A message is *suggested* when extraction leaves a
memory from it that is not quarantined.

    .venv/bin/python benchmarks/candidate_precision_written.py [--parts dev check ...] [-v]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from core import Actor, MemoryService, NewEvent, TrustLevel  # noqa: E402

MESSAGES = ROOT / "benchmarks" / "data" / "candidate_messages.jsonl"


def load(parts: set[str] | None) -> list[dict]:  # type: ignore[type-arg]
    rows = [json.loads(line) for line in MESSAGES.read_text(encoding="utf-8").splitlines() if line]
    return [r for r in rows if parts is None or r["part"] in parts]


def suggested(rows: list[dict], embedder: str | None) -> dict[str, str | None]:  # type: ignore[type-arg]
    """Message id -> the suggestion's text (None when nothing is suggested)."""
    out: dict[str, str | None] = {}
    with tempfile.TemporaryDirectory() as tmp:
        svc = MemoryService.open(
            Path(tmp) / "store",
            passphrase="candidate precision",
            prefer_keyring=False,
            embedder=embedder,
        )
        try:
            for row in rows:
                session = f"m-{row['id']}"
                svc.events.append_event(
                    NewEvent(session, Actor.USER, TrustLevel.USER, {"user": "writer"}, row["text"])
                )
                found = svc.memories.extract(session).value
                kept = [
                    o.record.content
                    for o in found
                    if o.record is not None and o.outcome.value != "quarantined"
                ]
                out[row["id"]] = kept[0] if kept else None
        finally:
            svc.close()
    return out


def _line(name: str, rows: list[dict], got: dict[str, str | None]) -> str:  # type: ignore[type-arg]
    approve = [r for r in rows if r["label"] == "approve"]
    shown = [r for r in rows if got[r["id"]] is not None]
    right = [r for r in shown if r["label"] == "approve"]
    precision = len(right) / len(shown) if shown else 0.0
    recall = len(right) / len(approve) if approve else 0.0
    return (
        f"{name:<22} messages {len(rows):>4}  approvable {len(approve):>4}  suggested "
        f"{len(shown):>4}  approved {len(right):>4}  precision {precision:.2f}  "
        f"recall {recall:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--parts", nargs="+", default=None, help="default: every part")
    parser.add_argument("--embedder", default=None, help="the store's embedder (default: its own)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every mistake")
    args = parser.parse_args()
    rows = load(set(args.parts) if args.parts else None)
    got = suggested(rows, args.embedder)
    groups: dict[str, list[dict]] = defaultdict(list)  # type: ignore[type-arg]
    for row in rows:
        groups[row["part"]].append(row)
        groups[f"{row['part']} {row['setting']}"].append(row)
        groups[f"{row['part']} {row['lang']}"].append(row)
    for name in sorted(groups):
        print(_line(name, groups[name], got))
    print(_line("all", rows, got))
    if args.verbose:
        for row in rows:
            shown = got[row["id"]] is not None
            if shown != (row["label"] == "approve"):
                mark = "suggested, reject" if shown else "missed, approve"
                print(f"[{mark}] {row['id']}: {row['text']}  ({row.get('why', '')})")


if __name__ == "__main__":
    main()
