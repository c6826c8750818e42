"""The vector path of a retrieval (R17, R23, #44): cosines of the visible memories mixed
with their conversation windows', computed on a thread of its own against the read's
deadline, and skipped, with the reason the snapshot gives, while the model or the vector
file is still loading, the path is busy or slow, or its breaker is open."""

from __future__ import annotations

import concurrent.futures as cf
import threading
import time

from core.errors import MemoryCenterError
from core.retrieval import context
from core.retrieval.catalog import Catalog
from core.retrieval.guard import CircuitBreaker, FaultSwitch

# Cold start (R17): how long an injection waits for an embedding model that is still
# loading before it answers from the keyword index alone, well inside HOT_PATH_SECONDS.
COLD_MODEL_WAIT = 0.2

KEYWORD_ONLY_TEXT = "keyword_only: the embedding model is still loading"

KEYWORD_ONLY_FILE_TEXT = "keyword_only: the vector index file is still being read"

KEYWORD_ONLY_SLOW_TEXT = "keyword_only: the vector path did not answer within the hot-path limit"

KEYWORD_ONLY_BUSY_TEXT = "keyword_only: the vector path is still busy with an earlier query"

KEYWORD_ONLY_FAILED_TEXT = "keyword_only: the vector index failed"

KEYWORD_ONLY_BREAKER_TEXT = "keyword_only: the vector path failed recently; retried shortly"


class VectorPath:
    """The vector half of `Retriever` (injector.py); it works on the retriever's state,
    declared here for the type checker."""

    catalog: Catalog
    faults: FaultSwitch
    neighbours: context.Neighbours
    vector_breaker: CircuitBreaker
    _vector_busy: int
    _flight_lock: threading.Lock
    _threads: set[threading.Thread]

    def _vectors_skipped(self, fill: bool, allowed_by_breaker: bool) -> str | None:
        """Why an injection answers without the vector path, or None when it uses it."""
        if not fill:
            return None
        cold = self._vectors_cold()
        if cold is not None:
            return cold
        return None if allowed_by_breaker else KEYWORD_ONLY_BREAKER_TEXT

    def _vector_step(
        self, query: str, allowed: set[str], revision: int, *, patient: bool, strict: bool = False
    ) -> dict[str, float]:
        """Cosines of the visible memories, mixed with their conversation windows'."""
        vector = self._vector_scores(query, allowed, patient=patient, strict=strict)
        layer = self.catalog.vectors
        if vector and layer is not None:
            vector = context.widen_vectors(
                vector,
                layer.query_vector(query),
                layer,
                self.catalog.records,
                allowed,
                self.neighbours,
                revision,
            )
        return vector

    def _both_scores(
        self,
        query: str,
        allowed: set[str],
        revision: int,
        skipped: str | None,
        *,
        patient: bool,
        deadline: float | None,
    ) -> tuple[dict[str, float], dict[str, float], str | None]:
        """Keyword and vector scores, and why the vector ones are missing (None: they are
        not, or were not wanted: `skipped` given)."""
        pending: cf.Future[dict[str, float]] | None = None
        if skipped is None and deadline is not None:
            # Started before the keyword work, so the two overlap (the model's own work
            # runs outside the interpreter lock) and the vector step rarely adds latency.
            pending, skipped = self._start_vector_step(query, allowed, revision)
        keyword = self.catalog.keywords.search(query, allowed=allowed)
        keyword = context.widen(keyword, self.catalog.records, allowed, self.neighbours, revision)
        vector: dict[str, float] = {}
        if pending is not None and deadline is not None:
            vector, skipped = self._finish_vector_step(pending, deadline)
        elif skipped is None:
            # A search may wait for the model and for this process's queued embeddings.
            vector = self._vector_step(query, allowed, revision, patient=patient)
        return keyword, vector, skipped

    def _start_vector_step(
        self, query: str, allowed: set[str], revision: int
    ) -> tuple[cf.Future[dict[str, float]] | None, str | None]:
        """Start the vector step on a thread of its own, for `_finish_vector_step` to wait
        for until the read's deadline: a slow query embedding (a busy model, a loaded
        machine) costs the read its vector scores, not its memory (#44). None and why, when
        it is not started."""
        with self._flight_lock:
            if self._vector_busy:
                # An abandoned step still holds the model: a second would queue behind it.
                self.vector_breaker.release()
                return None, KEYWORD_ONLY_BUSY_TEXT
            self._vector_busy += 1
        future: cf.Future[dict[str, float]] = cf.Future()

        def run() -> None:
            try:
                future.set_result(
                    self._vector_step(query, allowed, revision, patient=False, strict=True)
                )
            except BaseException as exc:  # delivered to the read, if it still waits
                future.set_exception(exc)
            finally:
                with self._flight_lock:
                    self._vector_busy -= 1
                    self._threads.discard(threading.current_thread())

        thread = threading.Thread(target=run, name="mc-vector-read", daemon=True)
        with self._flight_lock:
            self._threads.add(thread)
            thread.start()
        return future, None

    def _finish_vector_step(
        self, future: cf.Future[dict[str, float]], deadline: float
    ) -> tuple[dict[str, float], str | None]:
        """The started vector step's scores by `deadline`, or none and why; reports to the
        vector breaker."""
        breaker = self.vector_breaker
        try:
            scores = future.result(timeout=max(0.0, deadline - time.monotonic()))
        except cf.TimeoutError:
            breaker.failure()
            return {}, KEYWORD_ONLY_SLOW_TEXT
        except MemoryCenterError:
            breaker.failure()
            return {}, KEYWORD_ONLY_FAILED_TEXT
        breaker.success()
        return scores, None

    def _vectors_cold(self) -> str | None:
        """Why vector scores cannot be had without waiting, or None when they can."""
        if not self._model_ready():
            return KEYWORD_ONLY_TEXT
        layer = self.catalog.vectors
        if layer is not None and not layer.file_loaded:
            layer.load_in_background()
            return KEYWORD_ONLY_FILE_TEXT
        return None

    def _model_ready(self) -> bool:
        """True when a query can be embedded without waiting for the model to load.

        A cold model starts loading in the background (the first injection warms it when
        nothing else did); a load already under way gets a short grace period.
        """
        layer = self.catalog.vectors
        if layer is None or layer.model_ready():
            return True
        layer.warm_up()
        return layer.model_ready(wait=COLD_MODEL_WAIT)

    def _vector_scores(
        self, query: str, allowed: set[str], *, patient: bool = False, strict: bool = False
    ) -> dict[str, float]:
        """Cosines from the vector index; a failing index degrades to keyword-only (R23)
        (`strict`: the error is raised, for the caller to report)."""
        layer = self.catalog.vectors
        if layer is None or not allowed:
            return {}
        try:
            self.faults.check("vector_index")
            return layer.scores(query, allowed, patient=patient)
        except MemoryCenterError:
            if strict:
                raise
            return {}
