"""Scoring a replayed session against what it actually needed (R29).

Given the snapshots a replay produced (one per model call) and the labels of the recorded
session (which memories each next turn used), `score_session` measures, for one
configuration:

- evidence recall: of the memories the next turn used, the share that was injected;
  precision: of the injected memories, the share the next turn used;
- leakage: injected memories outside the request's scope, or not active at that store
  revision (deleted, superseded, disabled ...). A security failure: must be 0;
- stale citations: memories injected after an observation contradicted them (R10), and
  how many of those went in without the "stale" note that tells the model so;
- wrong adoption: memories that became active without the user's confirmation during the
  session and that the user later rejected, superseded or deleted;
- tokens injected per call and the latency of each call.

Status "at the time" is read from the decision ledger: the last decision at or before the
snapshot's store revision (R5, R21).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from core.model.memory import Snapshot
from core.model.records import Decision
from core.service import MemoryService

USER_ACTIONS = frozenset({"reject", "delete", "supersede", "resolve_conflict", "edit"})
AUTOMATIC = frozenset({"extract", "pre_compress", "suggest", "import"})


@dataclass(frozen=True)
class Call:
    """One model call of a replay: its snapshot, the labels of the turn, the cost."""

    snapshot_id: str | None
    used: frozenset[str]
    latency_ms: float
    labelled: bool = True


@dataclass
class Score:
    """Counts of one configuration over one or more sessions (add them up with `merge`)."""

    calls: int = 0
    used: int = 0
    used_injected: int = 0
    injected: int = 0
    leaked: int = 0
    stale: int = 0
    stale_unflagged: int = 0
    auto_adopted: int = 0
    wrong_adopted: int = 0
    tokens: list[int] = field(default_factory=list)
    latency_ms: list[float] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)
    degraded: int = 0

    def merge(self, other: Score) -> Score:
        """The sum of two scores."""
        out = Score()
        for name in (
            "calls",
            "used",
            "used_injected",
            "injected",
            "leaked",
            "stale",
            "stale_unflagged",
            "degraded",
        ):
            setattr(out, name, getattr(self, name) + getattr(other, name))
        out.auto_adopted = self.auto_adopted + other.auto_adopted
        out.wrong_adopted = self.wrong_adopted + other.wrong_adopted
        out.tokens = self.tokens + other.tokens
        out.latency_ms = self.latency_ms + other.latency_ms
        out.leaks = self.leaks + other.leaks
        return out

    def summary(self) -> dict[str, float | int]:
        """The reported numbers (rates in 0..1, tokens per call, latency in ms)."""
        lat = sorted(self.latency_ms)
        return {
            "calls": self.calls,
            "evidence_recall": _ratio(self.used_injected, self.used),
            "precision": _ratio(self.used_injected, self.injected),
            "injected_items": self.injected,
            "leakage": self.leaked,
            "leakage_rate": _ratio(self.leaked, self.injected),
            "stale_citations": self.stale,
            "stale_citation_rate": _ratio(self.stale, self.injected),
            "stale_without_note": self.stale_unflagged,
            "auto_adopted": self.auto_adopted,
            "wrong_adoption": self.wrong_adopted,
            "wrong_adoption_rate": _ratio(self.wrong_adopted, self.auto_adopted),
            "degraded_calls": self.degraded,
            "tokens_per_call": round(statistics.fmean(self.tokens), 1) if self.tokens else 0.0,
            "latency_p50_ms": round(lat[len(lat) // 2], 1) if lat else 0.0,
            "latency_p95_ms": round(lat[min(len(lat) - 1, int(0.95 * len(lat)))], 1)
            if lat
            else 0.0,
        }


def _ratio(part: int, whole: int) -> float:
    return round(part / whole, 3) if whole else 0.0


def score_session(
    service: MemoryService,
    calls: Sequence[Call],
    *,
    seeded: Iterable[str] = (),
) -> Score:
    """Score one replayed session held in `service` (see the module docstring)."""
    score = Score()
    ledgers: dict[str, list[Decision]] = {}
    for call in calls:
        score.calls += 1
        score.latency_ms.append(call.latency_ms)
        injected = _injected(service, call.snapshot_id)
        snap = service.retrieval.get_snapshot(call.snapshot_id) if call.snapshot_id else None
        score.tokens.append(snap.tokens if snap is not None else 0)
        if call.labelled:
            score.used += len(call.used)
            score.used_injected += len(call.used & set(injected))
        score.injected += len(injected)
        if snap is not None:
            _check_items(service, snap, ledgers, score)
    _adoption(service, set(seeded), score)
    return score


def _injected(service: MemoryService, snapshot_id: str | None) -> list[str]:
    if snapshot_id is None:
        return []
    return [item.memory_id for item in service.retrieval.get_snapshot(snapshot_id).injected]


def _check_items(
    service: MemoryService, snap: Snapshot, ledgers: dict[str, list[Decision]], score: Score
) -> None:
    request = dict(snap.scope.items_)
    for item in snap.injected:
        history = ledgers.setdefault(item.memory_id, service.memories.history(item.memory_id))
        then = [d for d in history if d.store_revision <= snap.store_revision]
        status = then[-1].to_status.value if then else "unknown"
        outside = any(request.get(k) != v for k, v in item.scope.items_)
        if outside or status != "active":
            score.leaked += 1
            score.leaks.append(f"{snap.id}: {item.memory_id} ({status}, scope {item.scope})")
        if any(d.action == "observe" for d in then):
            score.stale += 1
            score.stale_unflagged += 0 if "stale" in item.notes else 1


def _adoption(service: MemoryService, seeded: set[str], score: Score) -> None:
    for record in service.memories.list_memories():
        if record.id in seeded:
            continue
        history = service.memories.history(record.id)
        adopted = next((i for i, d in enumerate(history) if d.to_status.value == "active"), None)
        automatic = adopted is not None and history[adopted].action in AUTOMATIC
        if adopted is None or not automatic or record.source_trust.value == "user":
            continue  # the user's own words (an explicit "remember") are not an adoption
        score.auto_adopted += 1
        later = history[adopted + 1 :]
        if any(d.action in USER_ACTIONS or d.to_status.value == "superseded" for d in later):
            score.wrong_adopted += 1


def table(results: Mapping[str, Score]) -> str:
    """A plain-text comparison table, one row per configuration."""
    head = (
        f"{'configuration':<16} {'recall':>6} {'prec.':>6} {'leak':>5} {'stale':>5} "
        f"{'wrong':>7} {'tok/call':>8} {'p50 ms':>7} {'p95 ms':>7}"
    )
    rows = [head, "-" * len(head)]
    for name, score in results.items():
        s = score.summary()
        rows.append(
            f"{name:<16} {s['evidence_recall']:>6.2f} {s['precision']:>6.2f} "
            f"{s['leakage']:>5} {s['stale_citations']:>5} "
            f"{s['wrong_adoption']:>3}/{s['auto_adopted']:<3} {s['tokens_per_call']:>8.1f} "
            f"{s['latency_p50_ms']:>7.1f} {s['latency_p95_ms']:>7.1f}"
        )
    return "\n".join(rows)
