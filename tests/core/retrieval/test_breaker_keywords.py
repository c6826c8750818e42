"""Under load the injection degrades to the keyword path, not to nothing (#44, R17, R23).

The embedder is a real implementation of the seam, registered as the store's embedder: the
hashing embedder's vectors behind one shared "model" whose every call takes `delay` seconds
(a busy machine, a model shared with the background embedding of an import). The store is
busy too: a writer thread keeps adding memories while the turns run, so the background
worker keeps the model occupied. The store's clock is a manual clock that never moves: the
breakers time their cool-down on the monotonic clock.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import pytest

from core import InvalidInputError, MemoryService
from core.index.embedder import EmbedKind, HashingEmbedder, register_embedder, unregister_embedder
from core.model.clock import ManualClock
from core.model.memory import DEGRADED, HYBRID, KEYWORD_ONLY, OPTED_OUT
from core.retrieval.guard import CircuitBreaker
from core.retrieval.injector import (
    KEYWORD_ONLY_BREAKER_TEXT,
    KEYWORD_ONLY_BUSY_TEXT,
    KEYWORD_ONLY_SLOW_TEXT,
)
from tests.conftest import PASSPHRASE

if TYPE_CHECKING:
    from core.index.embedder import Matrix

NAME = "busy-model-hashing"
SCOPE = {"user": "kim", "project": "atlas"}
GOAL = "which port does the atlas staging database listen on"
LIMIT = 2.0  # the hot-path limit: wide, so a loaded test machine never degrades the read
SLOW = 3.0  # each embedding call while the model is "busy": beyond the vector share


class BusyModelEmbedder:
    """Hashing vectors from one shared model: calls queue for it, each takes `delay`."""

    name = NAME
    version = "hashing-busy-model-v1"
    delay: ClassVar[float] = 0.0
    model: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self) -> None:
        self._inner = HashingEmbedder()
        self.dim = self._inner.dim

    def load(self) -> None:
        """Nothing to load."""

    def embed(self, texts: Sequence[str], *, kind: EmbedKind = "passage") -> Matrix:
        """Embed after waiting for the model and `delay`."""
        with BusyModelEmbedder.model:
            time.sleep(BusyModelEmbedder.delay)
            return self._inner.embed(texts, kind=kind)


@pytest.fixture
def busy_model() -> Iterator[type[BusyModelEmbedder]]:
    register_embedder(NAME, BusyModelEmbedder)
    BusyModelEmbedder.delay = 0.0
    yield BusyModelEmbedder
    BusyModelEmbedder.delay = 0.0
    unregister_embedder(NAME)


def _open(data_dir: Path, clock: ManualClock) -> MemoryService:
    return MemoryService.open(
        data_dir,
        passphrase=PASSPHRASE,
        prefer_keyring=False,
        clock=clock,
        embedder=NAME,
        hot_path_seconds=LIMIT,
    )


def _reasons(svc: MemoryService, snapshot_id: str) -> list[str]:
    return [d.reason for d in svc.retrieval.get_snapshot(snapshot_id).dropped if d.memory_id == "*"]


def test_a_busy_model_and_store_degrade_to_keywords_and_the_breaker_closes_again(
    busy_model: type[BusyModelEmbedder], data_dir: Path
) -> None:
    clock = ManualClock(dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC))  # never advanced
    svc = _open(data_dir, clock)
    stop = threading.Event()
    try:
        svc.memories.remember(SCOPE, "The atlas staging database listens on port 5433")
        svc.memories.remember(SCOPE, "Kim reviews atlas pull requests on Mondays")
        warm = svc.retrieval.inject(SCOPE, GOAL, 300).value
        assert warm.mode == HYBRID and "5433" in warm.text
        retriever = svc._engine.retriever
        # A short first cool-down, so the test does not sleep for the product's 5 s.
        retriever.vector_breaker = CircuitBreaker(cooldown=0.5)

        def write() -> None:  # the busy store: an import going on beside the turns
            n = 0
            while not stop.is_set():
                svc.memories.remember(SCOPE, f"Build note {n}: the nightly job {n} finished green")
                n += 1
                time.sleep(0.05)

        writer = threading.Thread(target=write, daemon=True)
        busy_model.delay = SLOW
        writer.start()
        results = [svc.retrieval.inject(SCOPE, f"{GOAL} ({i})", 300).value for i in range(5)]
        for result in results:
            # Before #44: two slow reads opened the breaker and the rest came back empty.
            assert not result.degraded and result.mode == KEYWORD_ONLY
            assert "5433" in result.text
        reasons = [r for result in results for r in _reasons(svc, result.snapshot_id)]
        assert KEYWORD_ONLY_SLOW_TEXT in reasons
        assert set(reasons) <= {
            KEYWORD_ONLY_SLOW_TEXT,
            KEYWORD_ONLY_BUSY_TEXT,
            KEYWORD_ONLY_BREAKER_TEXT,
        }
        stop.set()
        writer.join(10)
        busy_model.delay = 0.0
        layer = svc._engine.catalog.vectors
        assert layer is not None and layer.wait_idle(60)
        # The store clock stood still the whole time; the breaker closes all the same.
        deadline = time.monotonic() + 30
        answered = svc.retrieval.inject(SCOPE, GOAL, 300).value
        while answered.mode != HYBRID and time.monotonic() < deadline:
            time.sleep(0.2)
            answered = svc.retrieval.inject(SCOPE, GOAL, 300).value
        assert answered.mode == HYBRID and "5433" in answered.text
        assert not retriever.vector_breaker.is_open
        assert clock.now() == dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)
    finally:
        stop.set()
        BusyModelEmbedder.delay = 0.0
        svc.close()


def test_an_opted_out_session_says_so_when_its_read_fails(data_dir: Path) -> None:
    """#43 item 8: the read that would have seen the opt-out timed out (a cold process); the
    answer is still "opted out", not "memory unavailable"."""
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="hashing"
    ) as svc:
        svc.memories.remember(SCOPE, "The atlas staging database listens on port 5433")
        svc.retrieval.inject(SCOPE, GOAL, 300, session="s-out")
        svc.events.set_session_opt_out("s-out", True)
        svc.retrieval.faults.slow_seconds = 0.5
        svc.retrieval.set_fault("memory_read", "slow")
        svc._engine.retriever.timeout = 0.1
        out = svc.retrieval.inject(SCOPE, GOAL, 300, session="s-out").value
        assert out.mode == OPTED_OUT and not out.degraded and "5433" not in out.text
        snap = svc.retrieval.get_snapshot(out.snapshot_id)
        assert snap.mode == OPTED_OUT and not snap.degraded
        # Another session's read that fails is degraded, as before.
        other = svc.retrieval.inject(SCOPE, GOAL, 300, session="s-in").value
        assert other.degraded and other.mode == DEGRADED
        assert svc.retrieval.get_snapshot(other.snapshot_id).mode == DEGRADED
        svc.retrieval.clear_fault()


def test_an_opted_out_session_answered_normally_says_opted_out(data_dir: Path) -> None:
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="hashing"
    ) as svc:
        svc.memories.remember(SCOPE, "The atlas staging database listens on port 5433")
        svc.retrieval.inject(SCOPE, GOAL, 300, session="s-out")
        svc.events.set_session_opt_out("s-out", True)
        out = svc.retrieval.inject(SCOPE, GOAL, 300, session="s-out").value
        assert out.mode == OPTED_OUT and not out.degraded
        on = svc.retrieval.inject(SCOPE, GOAL, 300, session="s-on").value
        assert on.mode == HYBRID and "5433" in on.text
        assert svc.retrieval.get_snapshot(on.snapshot_id).mode == HYBRID


class Ticks:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_the_breaker_probes_early_and_backs_off_on_the_monotonic_clock() -> None:
    ticks = Ticks()
    breaker = CircuitBreaker(threshold=2, cooldown=5.0, max_cooldown=12.0, now=ticks)
    assert breaker.allow()
    breaker.failure()
    assert breaker.allow() and not breaker.is_open  # one failure does not open it
    breaker.failure()
    assert breaker.is_open and not breaker.allow()
    ticks.t += 5.0
    assert breaker.allow()  # half-open: one trial call
    assert not breaker.allow()  # the others wait for its outcome
    breaker.failure()  # the trial failed: open twice as long
    ticks.t += 5.0
    assert not breaker.allow()
    ticks.t += 5.0
    assert breaker.allow()
    breaker.failure()
    assert breaker.retry_in() == pytest.approx(12.0)  # capped at max_cooldown
    ticks.t += 12.0
    assert breaker.allow()
    breaker.success()
    assert not breaker.is_open and breaker.allow()
    # Closed again, the next trip starts from the short cool-down.
    breaker.failure()
    breaker.failure()
    assert breaker.retry_in() == pytest.approx(5.0)


def test_a_trial_that_was_not_tried_lets_the_next_call_probe() -> None:
    ticks = Ticks()
    breaker = CircuitBreaker(threshold=1, cooldown=1.0, now=ticks)
    breaker.failure()
    ticks.t += 1.0
    assert breaker.allow()
    breaker.release()
    assert breaker.allow()


@pytest.mark.parametrize(("cooldown", "most"), [(0.0, 10.0), (-1.0, 10.0), (5.0, 1.0)])
def test_a_breaker_that_would_never_reopen_or_never_close_is_refused(
    cooldown: float, most: float
) -> None:
    with pytest.raises(InvalidInputError, match="cooldown"):
        CircuitBreaker(cooldown=cooldown, max_cooldown=most)


def test_a_trial_call_that_read_nothing_leaves_the_breaker_able_to_close(data_dir: Path) -> None:
    """The vector breaker's trial call can end before the vector step (here a failed read of
    memory): the next call is the trial, so the breaker does not stay half-open for ever."""
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="hashing"
    ) as svc:
        svc.memories.remember(SCOPE, "The atlas staging database listens on port 5433")
        retriever = svc._engine.retriever
        ticks = Ticks()
        retriever.vector_breaker = CircuitBreaker(threshold=1, cooldown=1.0, now=ticks)
        retriever.vector_breaker.failure()
        ticks.t += 1.0  # the trial is due
        svc.retrieval.set_fault("memory_read", "unavailable")
        assert svc.retrieval.inject(SCOPE, GOAL, 300).value.degraded  # took the trial, read nothing
        svc.retrieval.clear_fault()
        answered = svc.retrieval.inject(SCOPE, GOAL, 300).value
        assert answered.mode == HYBRID and "5433" in answered.text
        assert not retriever.vector_breaker.is_open
