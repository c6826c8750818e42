"""An embedder whose model takes seconds to load, registered through the embedder registry.

It is a real implementation of the embedder seam: the hashing embedder's vectors behind a
lazy load that takes `LOAD_SECONDS` (as a large model on a busy machine does), with the same
contract as the model-backed embedders: `load()` is idempotent, `embed()` loads first and
waits for a load in progress, `is_loaded()` says whether embedding will wait.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from core.index.embedder import EmbedKind, HashingEmbedder

if TYPE_CHECKING:
    from core.index.embedder import Matrix

NAME = "slow-loading-hashing"
LOAD_SECONDS = 2.5


class SlowLoadingEmbedder:
    """Hashing vectors behind a slow model load."""

    name = NAME
    version = "hashing-behind-a-slow-load-v1"

    def __init__(self) -> None:
        self._inner = HashingEmbedder()
        self.dim = self._inner.dim
        self._lock = threading.Lock()
        self._loaded = False
        self.loads = 0

    def load(self) -> None:
        """Load the "weights": slow the first time, then instant."""
        with self._lock:
            if not self._loaded:
                self.loads += 1
                time.sleep(LOAD_SECONDS)
                self._loaded = True

    def is_loaded(self) -> bool:
        """True once loaded."""
        return self._loaded

    def embed(self, texts: Sequence[str], *, kind: EmbedKind = "passage") -> Matrix:
        """Embed, loading first (and waiting for a load in progress)."""
        self.load()
        return self._inner.embed(texts, kind=kind)


SLOW_PASSAGES_NAME = "slow-passages-hashing"
PASSAGE_BATCH_SECONDS = 0.5


class SlowPassageEmbedder(SlowLoadingEmbedder):
    """Loaded at once, but each batch of passages takes `PASSAGE_BATCH_SECONDS` (a model on a
    busy machine building a big store's vectors); queries stay fast."""

    name = SLOW_PASSAGES_NAME
    version = "hashing-slow-passages-v1"

    def load(self) -> None:
        """Nothing to wait for."""
        self._loaded = True

    def embed(self, texts: Sequence[str], *, kind: EmbedKind = "passage") -> Matrix:
        """Embed; passages slowly."""
        if kind == "passage":
            time.sleep(PASSAGE_BATCH_SECONDS)
        return self._inner.embed(texts, kind=kind)
