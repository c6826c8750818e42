"""The hot-path limit is configuration of the composition root (R17): a wider limit lets a
slower read finish, a slow read beyond it still degrades, and a limit that protects nothing is
refused before anything is opened."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import InvalidInputError, MemoryService
from tests.conftest import PASSPHRASE

SCOPE = {"user": "alice", "project": "web-shop"}
GOAL = "install the web-shop dependencies"


def _open(data_dir: Path, seconds: float | None) -> MemoryService:
    return MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, hot_path_seconds=seconds
    )


@pytest.mark.parametrize("seconds", [0, -1.0, 10.5, float("nan"), "fast", True])
def test_a_limit_that_protects_nothing_is_refused_and_creates_no_store(
    data_dir: Path, seconds: object
) -> None:
    with pytest.raises(InvalidInputError, match="hot_path_seconds"):
        _open(data_dir, seconds)  # type: ignore[arg-type]
    assert not data_dir.exists() or not any(data_dir.iterdir())


def test_a_slow_read_beyond_the_limit_degrades_and_one_within_it_answers(data_dir: Path) -> None:
    stall = 0.3  # each read-path checkpoint stalls this long (there are two per read)
    with _open(data_dir, 10 * stall) as svc:
        svc.memories.remember(
            SCOPE, "web-shop uses pnpm; install with pnpm install --frozen-lockfile"
        )
        svc.retrieval.faults.slow_seconds = stall
        svc.retrieval.set_fault("memory_read", "slow")
        within = svc.retrieval.inject(SCOPE, GOAL, 300).value
        assert "pnpm install" in within.text and not within.degraded
    with _open(data_dir, stall / 3) as svc:
        svc.retrieval.faults.slow_seconds = stall
        svc.retrieval.set_fault("memory_read", "slow")
        beyond = svc.retrieval.inject(SCOPE, GOAL, 300).value
        assert beyond.degraded and "pnpm" not in beyond.text
