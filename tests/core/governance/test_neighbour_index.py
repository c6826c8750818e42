"""The per-scope neighbour index the policy compares candidates with (#13).

Its choice must not depend on how it is computed: plain Python for a few postings, numpy for
many, before and after dead slots are compacted, always the exact idf-weighted top.
"""

from __future__ import annotations

import math
import random

import pytest

from core.governance import neighbours
from core.governance.neighbours import _ScopeIndex, units_for
from core.model.records import MemoryRecord
from tests.core.governance.test_policy import rec

WORDS = ["pnpm", "yarn", "Lisbon", "Porto", "deploys", "budget", "kalo", "renmi", "tosa", "vite"]
WORDS += ["meets", "prefers", "allergic", "peanuts", "redis", "Osaka", "days", "team", "port"]


def record(memory_id: str, text: str) -> MemoryRecord:
    return rec(text, ident=memory_id)


def sentence(rng: random.Random) -> str:
    # Skewed: the first words are common (long posting lists), the last ones rare.
    picked = {WORDS[min(int(rng.expovariate(0.25)), len(WORDS) - 1)] for _ in range(5)}
    return f"The {' '.join(sorted(picked))} note {rng.randint(1, 40)}."


def reference(index: _ScopeIndex, query: frozenset[str], limit: int) -> list[tuple[float, str]]:
    """Every live record scored from scratch: (score, id) of the best `limit`, best first."""
    n = len(index.records)
    df = {u: sum(u in units for units in index.units.values()) for u in query}
    weight = {u: math.log(1 + (n - d + 0.5) / (d + 0.5)) for u, d in df.items() if d}
    scored = []
    for memory_id, units in index.units.items():
        shared = sorted(units & weight.keys(), key=lambda u: (df[u], u))
        if shared:
            total = 0.0
            for unit in shared:  # the index adds weights rarest first, so must this
                total += weight[unit]
            scored.append((total, memory_id))
    scored.sort(reverse=True)
    return scored[:limit]


def scores_of(index: _ScopeIndex, chosen: list[str], query: frozenset[str]) -> list[float]:
    return sorted(
        (s for s, m in reference(index, query, len(index.records)) if m in chosen), reverse=True
    )


@pytest.mark.parametrize("numpy_from", [0, 10**9], ids=["numpy", "python"])
def test_the_best_are_the_exact_top_through_puts_changes_drops_and_compaction(
    monkeypatch: pytest.MonkeyPatch, numpy_from: int
) -> None:
    monkeypatch.setattr(neighbours, "NUMPY_FROM", numpy_from)
    monkeypatch.setattr(neighbours, "NUMPY_LOADED_FROM", numpy_from)
    monkeypatch.setattr(neighbours, "COMPACT_AFTER", 50)
    rng = random.Random(7)
    index = _ScopeIndex()
    compacted = False
    for step in range(1500):
        memory_id = f"m{rng.randint(0, 400)}"
        if rng.random() < 0.2:
            index.drop(memory_id)
        else:
            index.put(record(memory_id, sentence(rng)))  # new or changed
        compacted = compacted or (step > 100 and not index.dead)
        if step % 25 == 0:
            query = units_for(sentence(rng))
            chosen = index.best(query, 20)
            expected = reference(index, query, 20)
            assert len(chosen) == len(expected)
            assert len(set(chosen)) == len(chosen)
            # The same scores (ties may pick different records of equal score).
            assert scores_of(index, chosen, query) == pytest.approx([s for s, _ in expected], abs=0)
    assert compacted, "the dead slots were never compacted; the test missed that path"
    assert len(index.slots) - len(index.dead) == len(index.records)


def test_both_ways_choose_the_same_records_ties_going_to_the_later_filed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(11)
    index = _ScopeIndex()
    for i in range(3000):
        index.put(record(f"m{i}", sentence(rng)))
    for i in range(0, 3000, 7):
        index.drop(f"m{i}")
    for _ in range(30):
        query = units_for(sentence(rng))
        monkeypatch.setattr(neighbours, "NUMPY_FROM", 0)
        by_numpy = index.best(query, 20)
        monkeypatch.setattr(neighbours, "NUMPY_FROM", 10**9)
        monkeypatch.setattr(neighbours, "NUMPY_LOADED_FROM", 10**9)
        by_python = index.best(query, 20)
        assert by_numpy == by_python
    # Two records with the same text tie; the one filed later wins the last place.
    small = _ScopeIndex()
    small.put(record("older", "The kalo team meets in Porto."))
    small.put(record("newer", "The kalo team meets in Porto."))
    assert small.best(units_for("kalo Porto"), 1) == ["newer"]


def test_a_dropped_unit_leaves_no_posting_behind() -> None:
    index = _ScopeIndex()
    index.put(record("a", "Renmi is allergic to peanuts."))
    index.put(record("b", "The tosa service uses vite."))
    index.drop("a")
    assert not index.best(units_for("renmi peanuts allergic"), 20)
    assert "peanuts" not in index.postings and "peanuts" not in index.df
    assert index.best(units_for("tosa vite"), 20) == ["b"]
