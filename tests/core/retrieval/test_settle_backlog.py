"""A turn waits for the vectors of records it can see only when the wait can succeed (#13,
R17): a few just written here are waited for, a bulk write's backlog is not (the keyword
path serves it while the background worker embeds it)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from core import MemoryService
from core.retrieval.vectors import worth_waiting
from tests.conftest import PASSPHRASE

SCOPE = {"user": "kim", "project": "atlas"}


@pytest.mark.parametrize(
    ("backlog", "rate", "seconds", "expected"),
    [
        (0, 30.0, 0.25, False),  # nothing to wait for
        (0, None, 0.25, False),
        (5, None, 0.25, True),  # no rate measured yet: wait, as before
        (4, 30.0, 0.25, True),  # 0.13 s of embedding
        (8, 30.0, 0.25, False),  # 0.27 s: the window would run out first
        (2000, 30.0, 0.25, False),  # a bulk write
        (2000, 10_000.0, 0.25, True),  # a fast embedder catches up in time
    ],
)
def test_worth_waiting_only_when_the_backlog_fits_the_window(
    backlog: int, rate: float | None, seconds: float, expected: bool
) -> None:
    assert worth_waiting(backlog, rate, seconds) is expected


def test_a_bulk_write_does_not_stall_the_turns_after_it(data_dir: Path) -> None:
    """With the default model, 400 memories written at once take ~10 s to embed. Turns
    during that time answer from keywords: not one waits the settle window (0.25 s), so a
    hot-path limit of 0.2 s is never hit and no turn degrades. Before, each such turn waited
    the whole window and degraded. Since the governance judge embeds each memory as it is
    written and lends the vector to the index (#40), a bulk write may leave little or no
    backlog: the turns after it must not degrade either way."""
    rng = random.Random(11)
    words = [f"topic{i}" for i in range(2000)]
    items = [
        {"scope": SCOPE, "text": "Note on " + " ".join(rng.sample(words, 6))} for _ in range(400)
    ]
    items.append({"scope": SCOPE, "text": "The atlas staging database listens on port 5433"})
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, hot_path_seconds=0.2
    ) as svc:
        svc.index.warm_up(wait=30.0)
        svc.memories.remember(
            SCOPE, "Kim reviews atlas pull requests on Mondays"
        )  # the rate is measured
        svc.retrieval.inject(SCOPE, "who reviews atlas pull requests", 300)
        svc.memories.remember_many(items)
        layer = svc._engine.catalog.vectors
        assert layer is not None
        for _ in range(5):
            result = svc.retrieval.inject(
                SCOPE, "which port does atlas staging listen on", 300
            ).value
            assert not result.degraded
            assert "5433" in result.text
