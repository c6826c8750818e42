"""The model judge's pass over the review queue (#40): each "possibly the same as / replaces /
contradicts m_…" item is put to the configured model, one at a time, and its answer applied
under the trust rules (`core/governance/model_settle.py`).

The model is asked outside any write transaction (a slow or stalled endpoint must never hold
the store's write lock); each answer is then applied in a write transaction of its own, after
reading both memories again: an item the user answered meanwhile is skipped, never answered
twice. An endpoint that fails three times in a row ends the pass; what it did not reach stays
in the queue as before.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.errors import NotFoundError, ResourceUnavailableError
from core.governance import model_settle, resolution
from core.governance.model_judge import ModelAnswer, ModelJudge
from core.governance.model_settle import Settled
from core.governance.policy import NEEDS_CONFIRMATION
from core.model.memory import MemoryFilter
from core.storage import memories, memory_history, memory_queries
from core.storage.store import Store
from core.storage.text_index import TextIndex

MAX_FAILURES = 3


PENDING = MemoryFilter(statuses=("candidate",), limit=1_000_000)
NO_JUDGE = (
    "no model judge is configured (set MEMORY_CENTER_JUDGE_URL and MEMORY_CENTER_JUDGE_MODEL, "
    "or pass one)"
)


def pending_questions(
    store: Store,
    pending: MemoryFilter,
    texts: TextIndex | None,
    memory_ids: Sequence[str] | None,
    limit: int,
) -> list[tuple[str, str, str]]:
    """(memory id, the doubt, other id) of the review items the rule judge could not decide
    (`pending`: `PENDING` at the store's now), oldest first."""
    with store.read("possible relations") as conn:
        chosen = [
            r
            for r in memory_queries.query(conn, store.codec, pending, texts)
            if NEEDS_CONFIRMATION in r.flags and (memory_ids is None or r.id in memory_ids)
        ]
        out = []
        for record in sorted(chosen, key=lambda r: (r.created_at, r.id)):
            history = memory_history.history(conn, store.codec, record.id)
            reasons = " ".join(d.reason for d in history)
            found = resolution.possible(reasons)
            if found is not None:
                out.append((record.id, found[0], found[1]))
            if len(out) >= limit:
                break
    return out


def settle(
    store: Store, judge: ModelJudge, questions: list[tuple[str, str, str]]
) -> tuple[list[Settled], list[str]]:
    """Ask about each item and apply the answers; returns what happened and what changed."""
    settled: list[Settled] = []
    changed: list[str] = []
    failures = 0
    for memory_id, asked, other_id in questions:
        with store.read("possible relation") as conn:
            record = memories.get(conn, store.codec, memory_id)
            other = memories.get(conn, store.codec, other_id)
        try:
            answer = judge.ask(record.content, other.content)
        except ResourceUnavailableError as exc:
            failures += 1
            settled.append(Settled(memory_id, other_id, asked, "", "failed", str(exc)))
            if failures >= MAX_FAILURES:
                break
            continue
        failures = 0
        outcome, ids = _apply(store, memory_id, other_id, asked, answer)
        settled.append(outcome)
        changed += ids
    return settled, changed


def _apply(
    store: Store, memory_id: str, other_id: str, asked: str, answer: ModelAnswer
) -> tuple[Settled, list[str]]:
    with store.write("model judge answer") as tx:
        try:
            record = memories.get(tx.conn, tx.codec, memory_id)
            other = memories.get(tx.conn, tx.codec, other_id)
        except NotFoundError as exc:
            return Settled(memory_id, other_id, asked, answer.relation, "skipped", str(exc)), []
        earned = model_settle.earned_active(memory_history.history(tx.conn, tx.codec, memory_id))
        return model_settle.apply(tx, record, other, asked, answer, earned)
