"""Cold start (#13, R17): injections while the embedding model loads answer from the keyword
index, within the hot-path limit, and never open the circuit breaker.

The model is a real embedder whose load takes seconds (tests/support/slow_embedder.py),
chosen through the embedder registry and the store's normal configuration.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from core import MemoryService
from core.index.embedder import register_embedder, unregister_embedder
from core.retrieval.injector import DEGRADED_TEXT, KEYWORD_ONLY_FILE_TEXT, KEYWORD_ONLY_TEXT
from tests.conftest import PASSPHRASE
from tests.support.slow_embedder import LOAD_SECONDS, NAME, SlowLoadingEmbedder

SCOPE = {"user": "alice", "project": "garden"}
GOAL = "when to water the tomatoes"


@pytest.fixture
def slow_model() -> Iterator[None]:
    register_embedder(NAME, SlowLoadingEmbedder)
    yield
    unregister_embedder(NAME)


def _open(data_dir: Path) -> MemoryService:
    # The embedder is configuration the composition root passes in (#15).
    return MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder=NAME)


@pytest.fixture
def store_dir(slow_model: None, data_dir: Path) -> Path:
    """A store with memories and a saved vector index (this first process loads the model)."""
    with _open(data_dir) as svc:
        svc.memories.remember(SCOPE, "Water the tomatoes every morning before 9")
        svc.memories.remember(SCOPE, "The basil goes on the sunny windowsill")
    return data_dir


def _reasons(svc: MemoryService, snapshot_id: str) -> list[str]:
    return [d.reason for d in svc.retrieval.get_snapshot(snapshot_id).dropped]


@pytest.mark.parametrize("warmed_at_start", [True, False], ids=["agent-start", "first-inject"])
def test_injections_during_the_model_load_use_keywords_and_keep_memory_on(
    store_dir: Path, warmed_at_start: bool
) -> None:
    svc = _open(store_dir)
    try:
        layer = svc.index.catalog.vectors
        assert layer is not None and layer.embedder.name == NAME
        if warmed_at_start:
            svc.index.warm_up()  # as the MCP server, the SDK runtime and the hook daemon do
        # Two turns in a row while the model loads: before the fix both timed out waiting
        # for the model, and the second failure switched memory off for two minutes.
        cold = [svc.retrieval.inject(SCOPE, GOAL, 400, session="s1").value for _ in range(2)]
        assert not layer.model_ready()  # they were answered while the model still loaded
        for result in cold:
            assert not result.degraded
            assert [i.content for i in result.items][:1] == [
                "Water the tomatoes every morning before 9"
            ]
            assert _reasons(svc, result.snapshot_id) == [KEYWORD_ONLY_TEXT]
        # The first injection started the load when nothing else had.
        assert layer.model_ready(wait=LOAD_SECONDS * 4)
        warm = svc.retrieval.inject(SCOPE, GOAL, 400, session="s1").value
        # The breaker stayed closed: memory is served, now with the vector index too.
        assert not warm.degraded and warm.items
        reasons = _reasons(svc, warm.snapshot_id)
        assert KEYWORD_ONLY_TEXT not in reasons and DEGRADED_TEXT not in reasons
        assert layer.embedder.loads == 1  # type: ignore[attr-defined]
    finally:
        svc.close()


def test_a_command_that_needs_no_embedding_never_loads_the_model(store_dir: Path) -> None:
    """Opening a store, listing and status do not start the model (one-shot CLI commands)."""
    with _open(store_dir) as svc:
        svc.status()
        svc.memories.list_memories()
        layer = svc.index.catalog.vectors
        assert layer is not None
        assert layer.embedder.loads == 0  # type: ignore[attr-defined]
        assert not layer.model_ready()


def test_reads_that_time_out_before_the_catalog_loaded_keep_the_breaker_closed(
    data_dir: Path,
) -> None:
    """A fresh process's first reads may outlast the limit while the catalog (and at 100k the
    vector file) loads; they degrade that turn but do not switch memory off (#13, R17)."""
    stall = 0.3
    # A model-free embedder: the model's own grace (above) must not be what saves the turn.
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="hashing"
    ) as svc:
        svc.memories.remember(SCOPE, "Water the tomatoes every morning before 9")
    svc = MemoryService.open(
        data_dir,
        passphrase=PASSPHRASE,
        prefer_keyring=False,
        embedder="hashing",
        hot_path_seconds=stall / 3,
    )
    try:
        assert not svc.index.catalog.loaded
        svc.retrieval.faults.slow_seconds = stall
        svc.retrieval.set_fault("memory_read", "slow")
        first = [svc.retrieval.inject(SCOPE, GOAL, 400, session="s1").value for _ in range(2)]
        assert all(r.degraded for r in first)  # two in a row: enough to open the breaker
        svc.retrieval.clear_fault()
        answered = svc.retrieval.inject(SCOPE, GOAL, 400, session="s1").value
        assert not answered.degraded
        assert "Water the tomatoes" in answered.text
    finally:
        svc.close()


def test_warm_up_loads_the_catalog_and_the_vector_file_before_any_turn(data_dir: Path) -> None:
    """An agent's store warms in the background at start: the first turn finds it loaded."""
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="hashing"
    ) as svc:
        svc.memories.remember(SCOPE, "Water the tomatoes every morning before 9")
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="hashing"
    ) as svc:
        layer = svc.index.catalog.vectors
        assert layer is not None
        assert not svc.index.catalog.loaded and not layer.file_loaded
        assert svc.index.warm_up(wait=5.0)
        deadline = time.monotonic() + 10
        while not (svc.index.catalog.loaded and layer.file_loaded) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert svc.index.catalog.loaded and layer.file_loaded and len(layer.index) == 1
        svc.index.warm_up()  # idempotent: nothing more starts
        assert "Water the tomatoes" in svc.retrieval.inject(SCOPE, GOAL, 400).value.text


def test_turns_while_the_vector_file_is_read_answer_from_keywords(data_dir: Path) -> None:
    """At 100k the vector file takes about a second to read; the first turns after an open
    are served from the keyword index meanwhile, neither waiting nor degrading (#13, R17).
    The read holds the vector layer's lock for its whole length; the test holds that lock
    to keep the read from finishing."""
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="hashing"
    ) as svc:
        svc.memories.remember(SCOPE, "Water the tomatoes every morning before 9")
        svc.memories.remember(SCOPE, "The basil goes on the sunny windowsill")
    svc = MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="hashing"
    )
    try:
        layer = svc.index.catalog.vectors
        assert layer is not None
        with layer._lock:  # as the file read holds it
            during = [svc.retrieval.inject(SCOPE, GOAL, 400, session="s1").value for _ in range(3)]
            assert not layer.file_loaded
        for result in during:
            assert not result.degraded
            assert "Water the tomatoes" in result.text
            assert _reasons(svc, result.snapshot_id) == [KEYWORD_ONLY_FILE_TEXT]
        deadline = time.monotonic() + 10
        while not layer.file_loaded and time.monotonic() < deadline:
            time.sleep(0.01)
        assert layer.file_loaded and len(layer.index) == 2  # read, nothing lost or re-embedded
        after = svc.retrieval.inject(SCOPE, GOAL, 400, session="s1").value
        assert not after.degraded and "Water the tomatoes" in after.text
        reasons = _reasons(svc, after.snapshot_id)
        assert not {KEYWORD_ONLY_FILE_TEXT, KEYWORD_ONLY_TEXT, DEGRADED_TEXT} & set(reasons)
    finally:
        svc.close()
