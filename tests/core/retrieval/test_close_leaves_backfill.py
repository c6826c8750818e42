"""A quitting application does not wait for a big store's vectors, and loses none (#43).

The desktop closes its service with `embed_seconds=0`: the background build stops after the
batch in flight, and that batch is small (before, 64 texts: seconds of a quitting window on
a loaded machine). What was not embedded is found missing by the next open and embedded
then.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import pytest

from core import MemoryService
from core.index.embedder import EmbedKind, register_embedder, unregister_embedder
from core.retrieval.vector_state import BACKGROUND_BATCH, SYNC_BACKFILL
from tests.conftest import PASSPHRASE
from tests.support.slow_embedder import SlowPassageEmbedder

if TYPE_CHECKING:
    from core.index.embedder import Matrix

NAME = "slow-passages-counted"
SCOPE = {"user": "alice", "project": "garden"}
COUNT = SYNC_BACKFILL * 2  # more than an open embeds in its queue: the backfill thread


class CountedSlowPassages(SlowPassageEmbedder):
    """Slow passages (0.5 s a batch), and the size of every passage batch asked for."""

    name = NAME
    batches: ClassVar[list[int]] = []

    def embed(self, texts: Sequence[str], *, kind: EmbedKind = "passage") -> Matrix:
        if kind == "passage":
            CountedSlowPassages.batches.append(len(texts))
        return super().embed(texts, kind=kind)


@pytest.fixture
def counted() -> Iterator[list[int]]:
    CountedSlowPassages.batches = []
    register_embedder(NAME, CountedSlowPassages)
    yield CountedSlowPassages.batches
    unregister_embedder(NAME)


def _vectors(svc: MemoryService) -> int:
    layer = svc._engine.catalog.vectors
    assert layer is not None
    return len(layer.index)


def test_a_quit_during_the_first_build_leaves_the_rest_to_the_next_open(
    counted: list[int], data_dir: Path
) -> None:
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="none"
    ) as svc:
        svc.memories.remember_many(
            [{"scope": SCOPE, "text": f"Bed {i} gets {i % 7 + 1} litres"} for i in range(COUNT)]
        )
    svc = MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder=NAME)
    svc.retrieval.search_memory(SCOPE, "litres")  # the catalog loads; the build starts behind it
    # A quit *during* the build: on a loaded machine the build's thread may not have asked
    # for its first batch yet when the search returns, and a close then is a quit before it.
    deadline = time.monotonic() + 60
    while not counted and time.monotonic() < deadline:
        time.sleep(0.01)
    svc.close(embed_seconds=0.0)
    # Stopped after the batch in flight: COUNT texts take COUNT / 8 batches of 0.5 s each.
    assert counted, "the background build never started"
    assert max(counted) <= BACKGROUND_BATCH, (
        f"the build embedded batches of up to {max(counted)} texts: a closing service waits "
        f"for the one in flight, so they must stay small ({BACKGROUND_BATCH})"
    )
    left_at_quit = COUNT - sum(counted)
    assert left_at_quit > 0, "the close waited for the whole build"
    # The next open finds what is missing and embeds it: nothing was lost by not waiting.
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder=NAME
    ) as again:
        again.retrieval.search_memory(SCOPE, "litres")
        layer = again._engine.catalog.vectors
        assert layer is not None and layer.wait_idle(120)
        assert _vectors(again) == COUNT
        hits = again.retrieval.search_memory(SCOPE, "Bed 3 litres")
        assert hits
