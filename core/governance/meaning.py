"""Embeddings for the judge, computed at most once per text and kept (#40, R9).

The judge compares a candidate with its neighbours by meaning. Embedding costs tens of
milliseconds, so each distinct text is embedded once per process and kept in a bounded LRU
(neighbours are compared with many candidates; the candidate's own vector serves both the
judge and the deletion-fence check). Neighbours not yet seen are embedded together in one
batch call.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from core.errors import MemoryCenterError

Vector = tuple[str, Sequence[float]]


def _array(values: Sequence[float]) -> Any:  # a numpy float32 vector
    import numpy as np  # the embedder that made the vector has loaded it already

    return values if isinstance(values, np.ndarray) else np.asarray(values, dtype=np.float32)


EmbedOne = Callable[[str], Vector]
KEEP = 4096


class Meanings:
    """An LRU of text embeddings in front of an embedding function."""

    def __init__(self, embed: EmbedOne | None) -> None:
        self.embed = embed
        self._lock = threading.Lock()
        self._cache: OrderedDict[bytes, Vector] = OrderedDict()
        self.calls = 0  # embedder calls made (measured by the benchmarks)

    def vector(self, text: str) -> Vector | None:
        """The text's embedding (cached); None when no embedder is available."""
        if self.embed is None:
            return None
        key = hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
        with self._lock:
            found = self._cache.get(key)
            if found is not None:
                self._cache.move_to_end(key)
                return found
        try:
            made = self.embed(text)
        except MemoryCenterError:
            return None  # no embedder: the judge falls back to its unit rules
        self.calls += 1
        made = (made[0], _array(made[1]))
        with self._lock:
            self._cache[key] = made
            while len(self._cache) > KEEP:
                self._cache.popitem(last=False)
        return made

    def similarity(self, new: str, old: str) -> float | None:
        """Cosine of the two texts' embeddings, or None without an embedder."""
        va = self.vector(new)
        if va is None:
            return None
        vb = self.vector(old)
        if vb is None or va[0] != vb[0] or len(va[1]) != len(vb[1]):
            return None
        a: Any = _array(va[1])
        b: Any = _array(vb[1])
        norm = math.sqrt(float(a @ a) * float(b @ b))
        return float(a @ b) / norm if norm else None
