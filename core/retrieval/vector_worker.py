"""The background embedding of a `VectorLayer`: records queued by writes (which never wait
for the model, #13), the backfill of a reopened store, the hot path's catch-up on its own
queued records, and the model's warm-up."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable

from core.errors import MemoryCenterError
from core.model.records import MemoryRecord
from core.retrieval.vector_state import (
    BACKFILL_SLICE,
    BACKGROUND_BATCH,
    READ_CATCH_UP,
    SETTLE_SECONDS,
    VectorState,
    worth_waiting,
)

log = logging.getLogger(__name__)


class BackgroundEmbedding(VectorState):
    """The background embedding part of `VectorLayer`."""

    def put_later(self, records: Iterable[MemoryRecord]) -> None:
        """Queue records for embedding in the background, in batches; returns at once."""
        with self._lock:
            for record in records:
                self._pending[record.id] = record
                self._cancelled.discard(record.id)
            if self._pending:
                self._ensure_worker()

    def pending(self) -> int:
        """How many records wait for their vector (queued, being embedded, or left to the
        backfill of a reopened store)."""
        with self._lock:
            return len(self._pending) + len(self._inflight) + self._backfill_left

    def wait_idle(
        self,
        timeout: float | None = None,
        *,
        with_windows: bool = True,
        with_backfill: bool = True,
    ) -> bool:
        """Block until the background embedding is done (tests, benchmarks, close).

        `with_windows=False`: only the memories' own vectors; conversation windows left queued
        are made again when a query asks for them (close and rebuild do not wait for them).
        `with_backfill=False`: not for the backfill of a reopened store either (close stops
        it, and the next open finds what is left missing).
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        self._settle_first()

        def busy() -> bool:
            own = bool(self._pending or self._inflight)
            own = own or (with_backfill and self._backfill_left > 0)
            windows_busy = self._window_pending or self._window_sources or self._window_inflight
            return own or (with_windows and bool(windows_busy))

        with self._lock:
            while busy():
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                if self._pending:
                    self._ensure_worker()
                if self._window_pending or self._window_sources:
                    self._ensure_window_worker()
                self._idle.wait(left if left is None else min(left, 1.0))
            return True

    def _ensure_worker(self) -> None:
        """Start the background embedder unless it runs (call with the lock held)."""
        if self._worker is None or not self._worker.is_alive():
            self._worker = threading.Thread(target=self._drain, name="mc-embed", daemon=True)
            self._worker.start()

    def stop(self, timeout: float) -> bool:
        """End the background threads after their current batch (what is left is found
        missing and embedded by the next open); True when they ended within `timeout`."""
        self._stopping.set()
        deadline = time.monotonic() + timeout
        with self._first_lock:
            loader = self._file_loader
        threads = (loader, self._backfiller, self._worker, self._window_worker)
        for thread in threads:
            if thread is not None and thread is not threading.current_thread():
                thread.join(max(0.0, deadline - time.monotonic()))
        return not any(t is not None and t.is_alive() for t in threads)

    def _drain(self) -> None:
        while True:
            with self._lock:
                if not self._pending or self._stopping.is_set():
                    self._idle.notify_all()
                    return
                chunk = [self._pending.pop(i) for i in list(self._pending)[:BACKGROUND_BATCH]]
                self._inflight.update(r.id for r in chunk)
                # Counted until the chunk's windows are queued: `wait_idle` waits for them.
                self._window_inflight += 1
            with self._window_work():
                if not self._embed_now(chunk):
                    with self._lock:
                        self._pending.clear()
                    return
                self._queue_windows(chunk)

    def _settle(self, allowed: set[str]) -> None:
        """The hot path's catch-up on records it can see that wait for their vector (just
        written here): a few are embedded now, the rest waited for while the worker embeds
        them, within `SETTLE_SECONDS` in all; what is still missing then is left out."""
        self._catch_up(allowed, READ_CATCH_UP)
        deadline = time.monotonic() + SETTLE_SECONDS
        with self._lock:
            backlog = len(self._inflight & allowed) + len(allowed & self._pending.keys())
            if not worth_waiting(backlog, self._rate, SETTLE_SECONDS):
                return
            while self._inflight & allowed or not self._pending.keys().isdisjoint(allowed):
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self._idle.wait(left)

    def _catch_up(self, allowed: set[str], most: int | None) -> None:
        """Embed the queued records a read could see (just written by this process) rather
        than miss them; at most `most` (None: all), else leave them to the worker."""
        with self._lock:
            if not self._pending:
                return
            due = [mid for mid in self._pending if mid in allowed]
            if not due or (most is not None and len(due) > most):
                return
            chunk = [self._pending.pop(mid) for mid in due]
            self._inflight.update(due)
        if self._embed_now(chunk) and self.windows_for is not None and self.windows_enabled:
            # Their windows are queued as the worker's would be, or a window waiting for
            # one of these turns would never be made (only asked for by a query).
            with self._lock:
                self._window_sources.append(chunk)
                self._ensure_window_worker()

    def _embed_now(self, chunk: list[MemoryRecord]) -> bool:
        """Embed records taken off the queue and index those not removed meanwhile."""
        ids = [r.id for r in chunk]
        try:
            vectors = self._embed_records(chunk)
        except MemoryCenterError as exc:
            log.warning("embedding queued memories failed: %s", exc)
            vectors = None
        with self._lock:
            if vectors is not None:
                self._ensure_loaded()
                keep = [i for i, mid in enumerate(ids) if mid not in self._cancelled]
                self._drop_windows(ids[i] for i in keep)
                if keep:
                    self.index.add([ids[i] for i in keep], vectors[keep])
                    self._dirty = True
            self._inflight.difference_update(ids)
            self._cancelled.difference_update(ids)
            self._idle.notify_all()
        return vectors is not None

    def _backfill(
        self, missing: list[str], load: Callable[[list[str]], list[MemoryRecord]]
    ) -> None:
        try:
            # In slices: the decrypted texts of a whole 100k store need not be held at once.
            for start in range(0, len(missing), BACKFILL_SLICE):
                if self._stopping.is_set():
                    return
                ids = missing[start : start + BACKFILL_SLICE]
                records = load(ids)
                self._backfilled(len(ids) - len(records))  # gone since: nothing to embed
                # Small batches, as the queue's worker: a closing service waits for the
                # one in flight (a 64-text batch kept a quitting desktop for seconds, #43).
                for first in range(0, len(records), BACKGROUND_BATCH):
                    if self._stopping.is_set():
                        return  # the closing service saves what was embedded
                    chunk = records[first : first + BACKGROUND_BATCH]
                    self.put(chunk)
                    self._backfilled(len(chunk))
            self.save()
        except MemoryCenterError as exc:
            log.warning("background vector build stopped: %s", exc)
        finally:
            # Stopped or failed: what is left is found missing again at the next open.
            with self._count_lock:
                self._backfill_left = 0
            with self._lock:
                self._idle.notify_all()

    def _backfilled(self, count: int) -> None:
        with self._count_lock:
            self._backfill_left = max(0, self._backfill_left - count)
        with self._lock:
            self._idle.notify_all()

    def warm_up(self) -> None:
        """Load the model in the background so the first query does not pay for it.

        Idempotent: later calls while (or after) the model loads start nothing.
        """
        with self._lock:
            if self._warming is not None or self._ready.is_set():
                return
            self._warming = threading.Thread(
                target=self._load_model, name="mc-embedder-load", daemon=True
            )
        self._warming.start()

    def _load_model(self) -> None:
        try:
            self.embedder.load()
        except MemoryCenterError as exc:
            # Kept for `check_embedder` and `index status`: never a silent downgrade.
            self.load_error = f"embedder {self.name} failed to load: {exc}"
            log.error("%s", self.load_error)
        finally:
            self._ready.set()

    def _loading(self) -> bool:
        """True while a background load started by `warm_up` is under way."""
        return self._warming is not None and not self._ready.is_set()

    def model_ready(self, wait: float = 0.0) -> bool:
        """True when embedding will not wait for the model to load.

        A model is ready once a load finished (or failed: the failure is then reported by
        the query itself). An embedder that does not say whether it is loaded is ready.
        `wait`: seconds to wait for a load already in progress.
        """
        if self._ready.is_set():
            return True
        probe = getattr(self.embedder, "is_loaded", None)
        if probe is None or probe():
            self._ready.set()
            return True
        return wait > 0 and self._ready.wait(wait)
