"""Closing the service ends its background vector build (#13): nothing reads from the store
or writes an index file once `close` returns, and the next open finishes the build."""

from __future__ import annotations

import threading
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
COUNT = SYNC_BACKFILL * 4  # more than the open embeds in place: a background build


@pytest.fixture
def slow_model() -> Iterator[None]:
    register_embedder(NAME, SlowPassageEmbedder)
    yield
    unregister_embedder(NAME)


def _started_since(before: set[threading.Thread]) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t not in before]


def _vectors(svc: MemoryService) -> int:
    vector = svc.index.status()["vector"]
    assert isinstance(vector, dict)
    return int(vector["vectors"])


def test_close_stops_a_first_vector_build_and_the_next_open_finishes_it(
    slow_model: None, data_dir: Path
) -> None:
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="none"
    ) as svc:
        svc.memories.remember_many(
            [
                {"scope": SCOPE, "text": f"Bed {i} gets {i % 7 + 1} litres of water"}
                for i in range(COUNT)
            ]
        )
    before = set(threading.enumerate())
    svc = MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder=NAME)
    svc.retrieval.search_memory(SCOPE, "water")  # the catalog loads: every vector is missing
    assert _started_since(before), "a store this size builds its vectors in the background"
    svc.close()  # while the first batches are embedded
    assert _started_since(before) == []
    before = set(threading.enumerate())
    reopened = MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder=NAME
    )
    try:
        # Read before this process's first batch is embedded: what the file holds.
        saved = _vectors(reopened)
        # The build stopped with the batch under way when close was called (none, if it
        # was still decrypting its first slice) ...
        assert saved < COUNT
        for thread in _started_since(before):
            thread.join(60)
        # ... and the next open embedded the rest.
        assert _vectors(reopened) == COUNT
        assert reopened.verify().ok
    finally:
        reopened.close()
