"""Conversation windows of a `VectorLayer` (#17): which window names which memory, and
the window worker that embeds them off the hot path (`core/retrieval/windows.py` says what
a window is)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from core.errors import MemoryCenterError
from core.model.records import MemoryRecord
from core.retrieval import windows
from core.retrieval.vector_state import WINDOW_BATCH, WINDOW_DEFER_SECONDS, VectorState

log = logging.getLogger(__name__)


class WindowVectors(VectorState):
    """The conversation windows part of `VectorLayer`."""

    def window_vectors(self, keys: list[str], text_of: Callable[[str], str]) -> dict[str, Any]:
        """The stored vectors of these windows; missing ones are queued for the background
        worker (no read waits for a window: the mean of stored vectors serves meanwhile)."""
        with self._lock:
            if not self._file_ready.is_set() or not self.windows_enabled:
                return {}
            found = self.index.get_vectors(keys)
            missing = [k for k in keys if k not in found and k not in self._window_pending]
        if missing:
            texts = {k: text_of(k) for k in missing}
            with self._lock:
                self._window_pending.update(texts)
                self._ensure_window_worker()
        return found

    def _queue_windows(self, records: list[MemoryRecord]) -> None:
        """Queue the windows these new vectors make due (their turns', their neighbours'),
        so injections find them embedded rather than fall back to the mean."""
        source = self.windows_for
        if source is None or self._stopping.is_set() or not self.windows_enabled:
            return
        try:
            due = source(records)
        except MemoryCenterError as exc:
            log.warning("conversation windows not queued: %s", exc)
            return
        with self._lock:
            # Only windows whose every turn has its vector: the others are queued again
            # when their last turn is embedded.
            fresh = {
                k: t
                for k, t in due.items()
                if k not in self.index and all(m in self.index for m in windows.contributors(k))
            }
            if fresh:
                self._window_pending.update(fresh)
                self._ensure_window_worker()

    def _embed_windows(self, items: dict[str, str]) -> None:
        keys = list(items)
        started = time.monotonic()
        try:
            vectors = self.embedder.embed([items[k] for k in keys], kind="passage")
            took = time.monotonic() - started
            if keys and took > 0:
                rate = len(keys) / took
                old = self._window_rate
                self._window_rate = rate if old is None else (old + rate) / 2
        except MemoryCenterError as exc:
            log.warning("embedding conversation windows failed: %s", exc)
            return
        with self._lock:
            if not self.windows_enabled:
                return  # switched off while this batch was being embedded
            self._ensure_loaded()
            for i, window in enumerate(keys):
                # Every turn it holds must still have its own vector, checked under the
                # lock `remove` takes: a window of a turn deleted meanwhile is never added.
                named = windows.contributors(window)
                if window in self.index or not all(m in self.index for m in named):
                    continue
                self.index.add([window], vectors[i : i + 1])
                self._contributors().add(window)
                self._dirty = True

    def _ensure_window_worker(self) -> None:
        """Start the window embedder unless it runs (call with the lock held)."""
        if self._window_worker is None or not self._window_worker.is_alive():
            self._window_worker = threading.Thread(
                target=self._drain_windows, name="mc-embed-windows", daemon=True
            )
            self._window_worker.start()

    def _drain_windows(self) -> None:
        while True:
            with self._lock:
                source = None
                if self._window_sources and not self._stopping.is_set():
                    source = self._window_sources.pop(0)
                    self._window_inflight += 1
            if source is not None:
                with self._window_work():
                    self._queue_windows(source)
                continue
            with self._lock:
                if not self._window_pending or self._stopping.is_set():
                    self._window_pending.clear()
                    self._window_sources.clear()
                    self._idle.notify_all()
                    return
                if self._own_work() and not self._window_sources:
                    # The memories' own vectors first (#44): an imported history becomes
                    # searchable by meaning turn by turn, and windows follow; until then
                    # the mean of the stored vectors stands in for a window.
                    self._idle.wait(WINDOW_DEFER_SECONDS)
                    continue
                taken = list(self._window_pending)[:WINDOW_BATCH]
                chunk = {k: self._window_pending.pop(k) for k in taken}
                self._window_inflight += 1
            with self._window_work():
                self._embed_windows(chunk)

    def set_windows(self, enabled: bool) -> int:
        """Switch conversation windows on or off; off drops every stored and queued window
        (the file is rewritten at the next save). Returns how many windows were dropped.
        Switched on, windows are made again as turns are embedded and as queries ask."""
        with self._lock:
            self.windows_enabled = enabled
            if enabled:
                return 0
            self._window_pending.clear()
            self._window_sources.clear()
            self._idle.notify_all()
            # Read the file first if nobody did (a CLI call): its windows go now, and the
            # next save (at close) writes the file without them.
            self._ensure_loaded()
            return self._drop_all_windows()

    def _drop_all_windows(self) -> int:
        """Remove every stored window (call with the lock held)."""
        dropped = self._contributors().take_all()
        for window in dropped:
            self.index.remove(window)
        self._dirty = self._dirty or bool(dropped)
        return len(dropped)

    def _contributors(self) -> windows.Contributors:
        with self._lock:
            if self._windows is None:
                self._windows = windows.Contributors(self.index.ids())
            return self._windows

    def _drop_windows(self, memory_ids: Iterable[str]) -> bool:
        """Remove every window naming one of these memories (deleted or re-embedded); call
        with the lock held."""
        ids = list(memory_ids)
        dropped = self._contributors().take(ids)
        for window in dropped:
            self.index.remove(window)
        return bool(dropped)

    def _drop_stale(self, wanted: set[str]) -> None:
        """Entries for memories outside `wanted`, and windows naming one (call with the
        lock held)."""
        for stale in {i for i in self.index.ids() if not windows.is_window(i)} - wanted:
            self.index.remove(stale)
            self._dirty = True
        if not self.windows_enabled:
            self._drop_all_windows()
        for window in self._contributors().stale(wanted):
            self.index.remove(window)
            self._dirty = True
