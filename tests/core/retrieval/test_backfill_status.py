"""`index_status()` counts the background build of a reopened store as pending, with its
progress (#44): a store reported "settled" with 112 of 664 vectors before."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from core import MemoryService
from core.index.embedder import register_embedder, unregister_embedder
from core.retrieval.vectors import SYNC_BACKFILL
from tests.conftest import PASSPHRASE
from tests.support.slow_embedder import SLOW_PASSAGES_NAME as NAME
from tests.support.slow_embedder import SlowPassageEmbedder

SCOPE = {"user": "alice", "project": "garden"}
COUNT = SYNC_BACKFILL * 2  # more than an open embeds in its queue: the backfill thread


@pytest.fixture
def slow_model() -> Iterator[None]:
    register_embedder(NAME, SlowPassageEmbedder)
    yield
    unregister_embedder(NAME)


def _vector_status(svc: MemoryService) -> dict[str, object]:
    vector = svc.index.status()["vector"]
    assert isinstance(vector, dict)
    return vector


def test_a_reopened_store_filling_in_vectors_reports_them_pending_with_progress(
    slow_model: None, data_dir: Path
) -> None:
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="none"
    ) as svc:
        svc.memories.remember_many(
            [{"scope": SCOPE, "text": f"Bed {i} gets {i % 7 + 1} litres"} for i in range(COUNT)]
        )
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder=NAME
    ) as svc:
        svc.retrieval.search_memory(SCOPE, "litres")  # the catalog and the vector file load
        during = _vector_status(svc)
        # Before #44: pending 0 while the backfill thread embedded all of them.
        assert during["settled"] is False
        pending = int(during["pending"])  # type: ignore[call-overload]
        assert pending > SYNC_BACKFILL and during["backfill_pending"] == pending
        progress = during["progress"]
        assert isinstance(progress, dict)
        assert progress["vectors_total"] == COUNT
        assert progress["vectors_done"] == COUNT - pending
        layer = svc._engine.catalog.vectors
        assert layer is not None and layer.wait_idle(120)
        after = _vector_status(svc)
        assert after["settled"] is True and after["pending"] == 0
        assert after["vectors"] == COUNT
        done = after["progress"]
        assert isinstance(done, dict)
        assert done["vectors_done"] == COUNT and done["eta_seconds"] == 0.0
        assert isinstance(done["texts_per_second"], float)
