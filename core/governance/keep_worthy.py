"""How likely a reviewer is to approve a message as a long-term memory, from its meaning
(#42).

The rule extractor's word rules were fitted to the examples in front of them and held on
fresh text only at precision 0.56-0.75 with recall 0.56-0.70: whether a chat message states
something lasting about its speaker ("we're moving to Chorlton on the 14th of June") or
only reacts, cheers or remarks ("we should all write more letters") is a matter of meaning,
which the multilingual embedder carries across wording and languages. The model is a
logistic regression over the embedder's passage vector, fitted on messages labelled by
independent authors (`benchmarks/fit_keep_worthy.py`, numbers in `keep_worthy_model.py`).
It reads the words the suggestion shows (`extractor.suggested_text`): "Thanks, Mel! I'm a
nurse" is judged as "I'm a nurse", which is what the reviewer approves or not.

It is valid only for the embedder it was fitted with: with any other (hashing, MiniLM, or
none), `KeepWorthy.for_embedder` gives None and the rules decide alone.

The model only adds: a statement the rules pass over is suggested when the model is sure
(p >= `SURE`); it never takes back what the rules suggest. It was measured to be sure and
wrong on terse impersonal project facts ("The billing service runs on port 8443." 0.02,
"Our CI runs on GitHub Actions." 0.02): its authors' messages had few of them, and many
terse technical status lines labelled reject. A veto at p <= 0.1 would have dropped those
facts, which the rules suggest. Refit with more of them, it still drops 14 of 90 terse
facts two new authors wrote ("api listens on 9090", "网关是 Nginx 1.24"; docs/hooks.md).
"""

from __future__ import annotations

import base64
import functools
from typing import Any

from core.governance import keep_worthy_model as fitted

SURE = 0.65


class KeepWorthy:
    """The fitted model over vectors of its embedder."""

    def __init__(self) -> None:
        import numpy as np  # loaded with the embedder that made the vectors

        def unpacked(packed: str) -> Any:
            return np.frombuffer(base64.b64decode(packed), dtype="<f4").astype(np.float32)

        self._np = np
        self._mean = unpacked(fitted.MEAN)
        self._scale = unpacked(fitted.SCALE)
        self._weights = unpacked(fitted.WEIGHTS)

    @staticmethod
    def for_embedder(name: str | None) -> KeepWorthy | None:
        """The model when `name` is the embedder it was fitted with, else None."""
        return _the_model() if name == fitted.EMBEDDER else None

    def probabilities(self, vectors: Any) -> list[float]:
        """P(a reviewer approves) for each row of `vectors` (the embedder's passage vectors)."""
        np = self._np
        rows = np.asarray(vectors, dtype=np.float32)
        if rows.ndim != 2 or rows.shape[1] != self._weights.shape[0]:
            raise ValueError(f"expected vectors of {self._weights.shape[0]} dimensions")
        logits = ((rows - self._mean) / self._scale) @ self._weights + fitted.BIAS
        return [float(p) for p in 1.0 / (1.0 + np.exp(-logits))]


@functools.cache
def _the_model() -> KeepWorthy:
    # Decoded once per process, not on every extraction (each hook's Stop extracts).
    return KeepWorthy()


def decide(probability: float, by_rule: bool) -> bool:
    """Suggest or not: what the rules suggest, and what the model is sure of besides."""
    return by_rule or probability >= SURE
