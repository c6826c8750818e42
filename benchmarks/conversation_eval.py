"""Retrieval on long multi-session conversations, through the public API (R14-R16).

Usage (from the repository root)::

    python benchmarks/conversation_eval.py [--data DIR] [--conversations N]
        [--paths import,remember] [--questions N] [--budget 1000] [--no-baseline] [--json out]

The data is LoCoMo-style research data (two people chatting over months; every question names
the turns that answer it). It is read from ``$MEMORY_CENTER_CONVERSATION_DATA`` or
``../shared/data/locomo_dev`` next to the repository and never copied into it; without it the
script says so and exits 0.

Each conversation gets its own encrypted store in a temporary directory, its clock set to the
day after the last session (the store's "now"). Every turn becomes one memory in one scope,
through one of two ingest paths:

* ``import``: one export document with every turn, imported (each turn becomes a candidate the
  policy decides) and then approved one by one, as a user importing history would;
* ``remember``: each turn through ``remember``, the user-explicit path, in order.

A turn's text is its words (plus a shared photo's caption). Its session time and speaker
travel as the memory's ``said_at`` and ``speaker`` fields when the service accepts them
(``--dated-text`` puts the date into the text instead, as an agent had to before;
``--speaker-text`` writes ``Speaker: text``, as before the speaker field; ``--no-windows``
switches conversation windows off before the ingest).

Every question of categories 1-4 (multi-hop, temporal, open-domain, single-hop; category 5 has
no answer in the conversation) runs through ``search_memory`` (limit 20) and ``inject`` with the
budget. Reported per category and overall: recall@5/10/20 (the share of a question's evidence
turns among the first k hits), MRR (first evidence hit), and evidence-in-budget (the share of
evidence turns injected as full items; "+digest" also counts digest references), plus ingest
and query time. The plain baseline ranks the same texts with BM25 (the product's
``KeywordIndex``) and the same embedder, fused by reciprocal rank (k = 60), and fills the same
budget with whole turns in that order.
"""

from __future__ import annotations

import argparse
import datetime as dt
import inspect
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from core import MemoryFilter, MemoryService  # noqa: E402
from core.governance.text import estimate_tokens  # noqa: E402
from core.index.embedder import DEFAULT_EMBEDDER, EMBEDDER_ENV, make_embedder  # noqa: E402
from core.model.clock import ManualClock  # noqa: E402
from core.retrieval.keyword import KeywordIndex  # noqa: E402
from core.services.memories import Memories  # noqa: E402

DATA_ENV = "MEMORY_CENTER_CONVERSATION_DATA"
DEFAULT_DATA = REPO_ROOT.parent / "shared" / "data" / "locomo_dev"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10, 20)
RRF_K = 60
SEARCH_LIMIT = 20
PASSPHRASE = "conversation-eval-passphrase"
ACTIVE = MemoryFilter(statuses=("active",), limit=1_000_000)


@dataclass(frozen=True)
class Turn:
    """One turn of a conversation: its id (`D3:7`), speaker, text and session time."""

    dia_id: str
    speaker: str
    text: str
    said_at: dt.datetime


@dataclass(frozen=True)
class Question:
    question: str
    category: str
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]


@dataclass
class Tally:
    """Per-question scores of one system, grouped by category."""

    rows: dict[str, list[dict[str, float]]] = field(default_factory=lambda: defaultdict(list))

    def add(self, category: str, row: dict[str, float]) -> None:
        self.rows[category].append(row)

    def summary(self) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        everything: list[dict[str, float]] = []
        for cat in CATEGORIES.values():
            rows = self.rows.get(cat, [])
            everything += rows
            if rows:
                out[cat] = _mean_rows(rows)
        if everything:
            out["all"] = _mean_rows(everything)
        return out


def _mean_rows(rows: list[dict[str, float]]) -> dict[str, float]:
    keys = rows[0].keys()
    means = {k: statistics.fmean(r[k] for r in rows) for k in keys}
    return {**means, "n": float(len(rows))}


# --- data ----------------------------------------------------------------------------


def data_dir(cli: str | None) -> Path:
    return Path(cli or os.environ.get(DATA_ENV) or DEFAULT_DATA)


def load(directory: Path) -> list[Conversation]:
    out = []
    for path in sorted(directory.glob("*.json")):
        for sample in json.loads(path.read_text(encoding="utf-8")):
            out.append(_conversation(sample))
    return out


def _conversation(sample: dict) -> Conversation:  # type: ignore[type-arg]
    conv = sample["conversation"]
    turns: list[Turn] = []
    n = 1
    while f"session_{n}" in conv:
        when = _session_time(conv.get(f"session_{n}_date_time", ""))
        for t in conv[f"session_{n}"]:
            text = t.get("text", "")
            if t.get("blip_caption"):
                text += f" [shares a photo: {t['blip_caption']}]"
            turns.append(Turn(t["dia_id"], t["speaker"], text, when))
        n += 1
    known = {t.dia_id for t in turns}
    questions = []
    for q in sample["qa"]:
        cat = CATEGORIES.get(int(q.get("category", 0)))
        evidence = tuple(e for e in q.get("evidence", []) if e in known)
        if cat and evidence:
            questions.append(Question(str(q["question"]), cat, evidence))
    return Conversation(sample["sample_id"], tuple(turns), tuple(questions))


def _session_time(text: str) -> dt.datetime:
    """'1:56 pm on 8 May, 2023' -> an aware datetime (UTC)."""
    parsed = dt.datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")
    return parsed.replace(tzinfo=dt.UTC)


def memory_text(turn: Turn, dated: bool, speaker: bool = True) -> str:
    """The memory's text: the turn, after its speaker's name unless that is a field."""
    text = f"{turn.speaker}: {turn.text}" if speaker else turn.text
    if dated:
        text = f"[{turn.said_at.day} {turn.said_at:%B %Y}] {text}"
    return text


# --- the product through its public API ----------------------------------------------


def _accepts(fn: Callable[..., object], name: str) -> bool:
    return name in inspect.signature(fn).parameters


def ingest(
    service: MemoryService, conv: Conversation, path: str, dated: bool, speaker_field: bool = False
) -> tuple[dict[str, set[str]], float]:
    """All turns into the store by one ingest path; memory id -> dia ids, and seconds."""
    scope = {"user": conv.sample_id.replace("_", "-")}
    started = time.perf_counter()
    fields = [_turn_fields(turn, dated, speaker_field) for turn in conv.turns]
    owner: dict[str, set[str]] = defaultdict(set)
    if path == "import":
        doc = {
            "format": "memory-center-export-v1",
            "memories": [{**f, "kind": "fact", "scope": scope} for f in fields],
        }
        outcomes = service.memories.import_memories(doc).value
        for turn, outcome in zip(conv.turns, outcomes, strict=True):
            if outcome.record is None:
                continue
            owner[outcome.record.id].add(turn.dia_id)
            if outcome.outcome == "candidate":
                service.review.approve(outcome.record.id)
    else:
        for turn, f in zip(conv.turns, fields, strict=True):
            content = f.pop("content")
            outcome = service.memories.remember(scope, content, **f).value  # type: ignore[arg-type]
            if outcome.record is not None:
                owner[outcome.record.id].add(turn.dia_id)
    return owner, time.perf_counter() - started


def _turn_fields(turn: Turn, dated: bool, speaker_field: bool) -> dict[str, object]:
    """A turn's content and, where the service takes them, its time and speaker as fields."""
    out: dict[str, object] = {"content": memory_text(turn, dated, not speaker_field)}
    if not dated and _accepts(Memories.remember, "said_at"):
        out["said_at"] = turn.said_at.isoformat()
    if speaker_field:
        out["speaker"] = turn.speaker
    return out


def _scores(ranked_dias: list[list[str]], evidence: Sequence[str]) -> dict[str, float]:
    """Recall@k over evidence turns and reciprocal rank of the first evidence hit."""
    want = set(evidence)
    row: dict[str, float] = {}
    for k in KS:
        seen = {d for dias in ranked_dias[:k] for d in dias}
        row[f"r@{k}"] = len(want & seen) / len(want)
    rr = 0.0
    for i, dias in enumerate(ranked_dias):
        if want & set(dias):
            rr = 1.0 / (i + 1)
            break
    row["mrr"] = rr
    return row


def _settle(service: MemoryService, limit: float = 1800.0) -> float:
    """Seconds until the background embedding (vectors, conversation windows) is done, as
    `index_status` reports it: the questions are asked of a settled store, as a user's
    are after an import has finished in the background."""
    start = time.perf_counter()
    while time.perf_counter() - start < limit:
        vector = service.index.status().get("vector")
        if not isinstance(vector, dict):
            break
        if not vector.get("pending") and not vector.get("windows_pending"):
            break
        time.sleep(0.2)
    return time.perf_counter() - start


def evaluate_product(
    service: MemoryService, conv: Conversation, owner: dict[str, set[str]], budget: int
) -> tuple[Tally, list[float], list[float]]:
    scope = {"user": conv.sample_id.replace("_", "-")}
    tally = Tally()
    search_ms: list[float] = []
    inject_ms: list[float] = []
    active = {r.id for r in service.memories.list_memories(ACTIVE)}
    for q in conv.questions:
        t0 = time.perf_counter()
        hits = service.retrieval.search_memory(scope, q.question, limit=SEARCH_LIMIT)
        t1 = time.perf_counter()
        block = service.retrieval.inject(scope, q.question, budget).value
        t2 = time.perf_counter()
        search_ms.append((t1 - t0) * 1000)
        inject_ms.append((t2 - t1) * 1000)
        row = _scores([sorted(owner.get(h.memory_id, ())) for h in hits], q.evidence)
        want = set(q.evidence)
        full = {d for i in block.items if not i.in_digest for d in owner.get(i.memory_id, ())}
        dig = {d for i in block.items for d in owner.get(i.memory_id, ())}
        row["degraded"] = 1.0 if block.degraded else 0.0
        # Answered from keywords alone (the vector path was slow or down, #44).
        row["keyword_only"] = 1.0 if getattr(block, "mode", "") == "keyword_only" else 0.0
        row["in_budget"] = len(want & full) / len(want)
        row["in_budget_digest"] = len(want & dig) / len(want)
        row["findable"] = len(want & {d for m in active for d in owner.get(m, ())}) / len(want)
        tally.add(q.category, row)
    return tally, search_ms, inject_ms


def _ingest_once(
    service: MemoryService,
    conv: Conversation,
    path: str,
    dated: bool,
    marker: Path,
    speaker_field: bool,
) -> tuple[dict[str, set[str]], float]:
    """Ingest, or reuse a store ingested by an earlier run (`--reuse`: retrieval-only changes)."""
    if marker.exists():
        saved = json.loads(marker.read_text(encoding="utf-8"))
        return {k: set(v) for k, v in saved["owner"].items()}, float(saved["ingest_s"])
    owner, seconds = ingest(service, conv, path, dated, speaker_field)
    saved = {"owner": {k: sorted(v) for k, v in owner.items()}, "ingest_s": seconds}
    marker.write_text(json.dumps(saved), encoding="utf-8")
    return owner, seconds


def run_product(
    conv: Conversation,
    path: str,
    budget: int,
    dated: bool,
    max_q: int | None,
    reuse: Path | None = None,
    speaker_text: bool = False,
    windows: bool = True,
) -> dict[str, object]:
    last = max(t.said_at for t in conv.turns)
    speaker_field = not speaker_text and _accepts(Memories.remember, "speaker")
    clock = ManualClock(last + dt.timedelta(days=1))
    with tempfile.TemporaryDirectory(prefix="mc-conv-") as tmp:
        where = Path(tmp)
        if reuse is not None:
            how = "dated" if dated else "fields" if not speaker_field else "fields-speaker"
            how += "" if windows else "-no-windows"
            where = reuse / f"{conv.sample_id}-{path}-{how}"
            where.mkdir(parents=True, exist_ok=True)
        # The service reads no environment (the app does): name the embedder, or the
        # header's embedder would not be the one measured.
        service = MemoryService.open(
            where,
            passphrase=PASSPHRASE,
            clock=clock,
            prefer_keyring=False,
            embedder=os.environ.get(EMBEDDER_ENV) or None,
        )
        try:
            if not windows:
                service.index.set_conversation_windows(False)
            marker = where / "ingested.json"
            owner, ingest_s = _ingest_once(service, conv, path, dated, marker, speaker_field)
            settle_s = _settle(service)
            active = service.memories.count_memories(ACTIVE)
            conv_q = Conversation(conv.sample_id, conv.turns, conv.questions[:max_q])
            tally, search_ms, inject_ms = evaluate_product(service, conv_q, owner, budget)
        finally:
            service.close()
    return {
        "tally": tally,
        "ingest_s": ingest_s,
        "settle_s": settle_s,
        "turns": len(conv.turns),
        "active": active,
        "search_ms": search_ms,
        "inject_ms": inject_ms,
    }


# --- the plain baseline ----------------------------------------------------------------


def run_baseline(
    conv: Conversation,
    embed: Callable[[list[str], str], np.ndarray],
    budget: int,
    dated: bool,
    max_q: int | None,
) -> Tally:
    texts = [memory_text(t, dated) for t in conv.turns]
    keywords = KeywordIndex()
    for i, text in enumerate(texts):
        keywords.add(str(i), text)
    passages = embed(texts, "passage")
    tally = Tally()
    for q in conv.questions[:max_q]:
        bm25 = keywords.search(q.question)
        by_kw = sorted(bm25, key=lambda d: -bm25[d])
        cos = passages @ embed([q.question], "query")[0]
        by_vec = [str(i) for i in np.argsort(-cos)]
        fused: dict[str, float] = defaultdict(float)
        for ranking in (by_kw, by_vec):
            for r, doc in enumerate(ranking):
                fused[doc] += 1.0 / (RRF_K + r + 1)
        order = sorted(fused, key=lambda d: -fused[d])
        dias = [[conv.turns[int(d)].dia_id] for d in order]
        row = _scores(dias, q.evidence)
        row["in_budget"] = _budget_recall(order, texts, conv, q.evidence, budget)
        row["in_budget_digest"] = row["in_budget"]
        row["findable"] = 1.0
        row["degraded"] = 0.0
        row["keyword_only"] = 0.0
        tally.add(q.category, row)
    return tally


def _budget_recall(
    order: list[str], texts: list[str], conv: Conversation, evidence: Sequence[str], budget: int
) -> float:
    left, got = budget, set()
    for doc in order:
        cost = estimate_tokens(texts[int(doc)]) + 1
        if cost > left:
            break
        left -= cost
        got.add(conv.turns[int(doc)].dia_id)
    return len(set(evidence) & got) / len(evidence)


def cached_embedder(name: str) -> Callable[[list[str], str], np.ndarray]:
    model = make_embedder(name)
    model.load()

    def embed(texts: list[str], kind: str) -> np.ndarray:
        return np.asarray(model.embed(texts, kind=kind), dtype=np.float32)  # type: ignore[arg-type]

    return embed


# --- report ----------------------------------------------------------------------------


def merge(tallies: Iterable[Tally]) -> Tally:
    out = Tally()
    for t in tallies:
        for cat, rows in t.rows.items():
            out.rows[cat] += rows
    return out


def print_table(title: str, tally: Tally, with_inject: bool = True) -> None:
    summary = tally.summary()
    print(f"\n## {title}")
    cols = "| category | n | R@5 | R@10 | R@20 | MRR |"
    cols += " in budget | +digest | findable | degraded | keyword only |" if with_inject else ""
    print(cols)
    print("|" + "---|" * (cols.count("|") - 1))
    for cat in [*CATEGORIES.values(), "all"]:
        s = summary.get(cat)
        if s is None:
            continue
        line = f"| {cat} | {int(s['n'])} | {s['r@5']:.3f} | {s['r@10']:.3f} | {s['r@20']:.3f}"
        line += f" | {s['mrr']:.3f} |"
        if with_inject:
            line += f" {s['in_budget']:.3f} | {s['in_budget_digest']:.3f} | {s['findable']:.3f} |"
            line += f" {s['degraded']:.3f} | {s['keyword_only']:.3f} |"
        print(line)


def _pct(values: list[float], p: float) -> float:
    return float(np.percentile(values, p)) if values else 0.0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", help=f"data directory (default ${DATA_ENV} or {DEFAULT_DATA})")
    parser.add_argument("--conversations", type=int, default=None, help="only the first N")
    parser.add_argument("--questions", type=int, default=None, help="first N questions each")
    parser.add_argument("--paths", default="import", help="import,remember")
    parser.add_argument("--budget", type=int, default=1000)
    parser.add_argument("--dated-text", action="store_true", help="put the date in the text")
    parser.add_argument(
        "--speaker-text", action="store_true", help="put the speaker in the text, not a field"
    )
    parser.add_argument(
        "--no-windows", action="store_true", help="switch conversation windows off first"
    )
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--json", help="write the summaries here")
    parser.add_argument(
        "--reuse", help="keep each ingested store under this directory and reuse it next time"
    )
    args = parser.parse_args(argv)
    directory = data_dir(args.data)
    if not directory.is_dir():
        print(f"conversation data not found at {directory}; set ${DATA_ENV}. Skipped.")
        return 0
    convs = load(directory)[: args.conversations]
    embedder = os.environ.get(EMBEDDER_ENV, DEFAULT_EMBEDDER)
    print(
        f"# conversations: {len(convs)}, turns: {sum(len(c.turns) for c in convs)}, "
        f"questions: {sum(len(c.questions[: args.questions]) for c in convs)}, "
        f"embedder: {embedder}, budget: {args.budget}, load avg: {os.getloadavg()[0]:.1f}"
    )
    report: dict[str, object] = {}
    for path in args.paths.split(","):
        reuse = Path(args.reuse) if args.reuse else None
        runs = [
            run_product(
                c,
                path,
                args.budget,
                args.dated_text,
                args.questions,
                reuse,
                args.speaker_text,
                not args.no_windows,
            )
            for c in convs
        ]
        tally = merge(r["tally"] for r in runs)  # type: ignore[misc]
        print_table(f"product, {path} path", tally)
        turns = sum(int(r["turns"]) for r in runs)  # type: ignore[call-overload]
        active = sum(int(r["active"]) for r in runs)  # type: ignore[call-overload]
        ingest_s = sum(float(r["ingest_s"]) for r in runs)  # type: ignore[arg-type,misc]
        settle_s = sum(float(r["settle_s"]) for r in runs)  # type: ignore[arg-type,misc]
        search_ms = [x for r in runs for x in r["search_ms"]]  # type: ignore[attr-defined]
        inject_ms = [x for r in runs for x in r["inject_ms"]]  # type: ignore[attr-defined]
        print(
            f"ingest: {turns} turns in {ingest_s:.1f} s ({turns / ingest_s:.1f} turns/s); "
            f"active after ingest: {active} ({active / turns:.1%}); background embedding "
            f"(vectors, conversation windows) done {settle_s:.1f} s later"
        )
        print(
            f"search_memory ms p50 {_pct(search_ms, 50):.1f} p95 {_pct(search_ms, 95):.1f}; "
            f"inject ms p50 {_pct(inject_ms, 50):.1f} p95 {_pct(inject_ms, 95):.1f}"
        )
        report[path] = {
            "summary": tally.summary(),
            "active": active,
            "turns": turns,
            "ingest_s": ingest_s,
            "settle_s": settle_s,
            "search_p50_ms": _pct(search_ms, 50),
            "inject_p50_ms": _pct(inject_ms, 50),
        }
    if not args.no_baseline:
        embed = cached_embedder(embedder)
        tally = merge(run_baseline(c, embed, args.budget, True, args.questions) for c in convs)
        print_table(f"plain baseline: BM25 + {embedder}, RRF k={RRF_K} (dated text)", tally)
        report["baseline"] = {"summary": tally.summary()}
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
