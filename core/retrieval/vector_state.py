"""The state of a `VectorLayer` (vectors.py), and what every part of it shares.

`VectorLayer` is built from three parts that share one lock and one index: the conversation
windows (vector_windows.py), the background embedding (vector_worker.py) and the layer
itself (loading, reconciling, searching, saving: vectors.py). This base holds the state they
share, its small accessors, and the module's limits.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.crypto.codec import Codec
from core.index.embedder import Embedder
from core.index.vector_index import VectorIndex
from core.model.records import MemoryRecord
from core.retrieval import windows

if TYPE_CHECKING:
    from core.index.embedder import Matrix

INDEX_FILE = "vectors.mcidx"

EMBED_BATCH = 64

# Background batches stay small: a query embedding waits for the model behind at most one.
BACKGROUND_BATCH = 8

# Conversation windows are three turns long: two at a time keep the model free for a query
# within ~0.1 s (the batch size hardly changes throughput on CPU).
WINDOW_BATCH = 2

# While memories wait for their own vectors, the window worker checks back this often.
WINDOW_DEFER_SECONDS = 0.5

# How long the hot path waits for a model still loading before answering by keywords.
WARM_WAIT = 0.3

# The hot path embeds (or waits for) at most this many of its own queued records, this long.
READ_CATCH_UP = 4

SETTLE_SECONDS = 0.25

SYNC_BACKFILL = 64

BACKFILL_SLICE = 1024

QUERY_CACHE = 256

# A save of a 100k index takes seconds; a temp file this old has no writer any more.
STALE_TEMP_SECONDS = 600.0


def passage_text(record: MemoryRecord) -> str:
    """What is embedded for a memory: its words after its speaker's name, as the model reads
    them in an injection. A question names the person ("what did Melanie paint?"), and a
    turn embedded without its speaker lost R@10 0.654 -> 0.556 on the conversation
    benchmark (docs/retrieval.md): the name stays out of the stored text, not out of the
    meaning."""
    return record.spoken()


def remove_stale_temp_files(path: Path, older_than: float = STALE_TEMP_SECONDS) -> list[Path]:
    """Delete temporary files an interrupted write of `path` left behind (kill -9 mid-save).

    `atomic_write` writes `.<name>.<random>.tmp` and renames it; a process killed before the
    rename leaves the temp file for ever. Only this file's own temp pattern is touched, and
    only files untouched for `older_than` seconds: a younger one may belong to another
    process's save in progress, whose rename would fail if we took its file away.
    """
    removed = []
    cutoff = time.time() - older_than
    for stale in path.parent.glob(f".{path.name}.*.tmp"):
        try:
            if stale.stat().st_mtime > cutoff:
                continue
            stale.unlink()
        except OSError:
            continue
        removed.append(stale)
    return removed


def worth_waiting(backlog: int, rate: float | None, seconds: float) -> bool:
    """Whether the hot path should wait for `backlog` queued records it can see to get their
    vectors: only when they can be embedded within `seconds` at the measured `rate` (texts
    per second; None: not measured yet). A bulk write queues thousands (an import here or in
    another process): every turn waited the whole window for them, under contention with
    the embedding itself (~0.35 s a turn at 5,000), and then left vector scores out anyway,
    since the model was still busy (#13, R17). The keyword path serves them meanwhile."""
    if backlog == 0:
        return False
    return rate is None or backlog / rate <= seconds


class VectorState:
    """The state of a `VectorLayer`; see `VectorLayer` for the arguments."""

    def __init__(
        self,
        embedder: Embedder,
        directory: Path | None,
        codec: Callable[[], Codec],
        *,
        windows_enabled: bool | Callable[[], bool] = True,
    ) -> None:
        self.embedder = embedder
        self._dir = directory
        self._codec = codec
        self._lock = threading.RLock()
        self._index: VectorIndex | None = None
        self._dirty = False
        self._loaded = False
        self._queries: dict[str, Any] = {}
        self.load_error: str | None = None
        self._warming: threading.Thread | None = None
        self._ready = threading.Event()
        # Records waiting to be embedded by the background worker (writes never wait for
        # the model, #13), the ids it is embedding now, and those removed meanwhile.
        self._pending: dict[str, MemoryRecord] = {}
        # Texts per second of the latest embeddings of queued records (None: none yet).
        self._rate: float | None = None
        # The same for conversation windows (three turns each: slower per text).
        self._window_rate: float | None = None
        # Memories the backfill thread of a reopened store has still to embed (#44: they
        # are pending like queued ones, and `status` says so), under a lock of its own:
        # the reconcile that starts a backfill holds no other.
        self._backfill_left = 0
        self._count_lock = threading.Lock()
        self._inflight: set[str] = set()
        self._cancelled: set[str] = set()
        self._worker: threading.Thread | None = None
        self._backfiller: threading.Thread | None = None
        # The first read of the index file, in the background, and what the catalog held
        # then (entries of the file outside it are stale); set once the file is read.
        self._file_loader: threading.Thread | None = None
        self._first_lock = threading.Lock()
        self._reconcile_lock = threading.Lock()
        self._wanted: set[str] | None = None
        self._first: tuple[list[str], Callable[[list[str]], list[MemoryRecord]], int] | None = None
        self._file_ready = threading.Event()
        self._idle = threading.Condition(self._lock)
        # Set by `stop` (the service closes): background threads end after their current
        # batch instead of reading from a store that is gone.
        self._stopping = threading.Event()
        # Conversation windows (`core/retrieval/windows.py`): which window names which
        # memory, and windows waiting to be embedded.
        self._windows: windows.Contributors | None = None
        self._window_pending: dict[str, str] = {}
        # Records a read embedded itself (`_catch_up`): the window worker works out the
        # windows they make due, off the hot path.
        self._window_sources: list[list[MemoryRecord]] = []
        self._window_inflight = 0
        self._window_worker: threading.Thread | None = None
        # The store's setting (`conversation_windows`): off, no window is embedded or read,
        # and the file's windows are dropped; the mean of stored vectors serves instead. A
        # callable is read on first use (the vector file's load), not at every store open.
        self._windows_setting = windows_enabled
        # Set by the catalog: the windows (key -> text) that new vectors make due.
        self.windows_for: Callable[[list[MemoryRecord]], dict[str, str]] | None = None
        # A process without a hot path (the memory center) leaves the HNSW graph in the
        # file and searches the rows exactly (`VectorIndex.load(graph=False)`, #13).
        self.graph_on_demand = False

    @property
    def index(self) -> VectorIndex:
        """The HNSW index, made on first use (a command that reads no vector never builds it,
        nor imports numpy and hnswlib)."""
        with self._lock:
            if self._index is None:
                self._index = VectorIndex(self.embedder.dim)
            return self._index

    @index.setter
    def index(self, value: VectorIndex) -> None:
        with self._lock:
            self._index = value
            self._windows = None

    @property
    def windows_enabled(self) -> bool:
        """Whether conversation windows are embedded and read (the store's setting)."""
        setting = self._windows_setting
        if callable(setting):
            setting = self._windows_setting = bool(setting())
        return setting

    @windows_enabled.setter
    def windows_enabled(self, enabled: bool) -> None:
        self._windows_setting = enabled

    @contextlib.contextmanager
    def _window_work(self) -> Iterator[None]:
        """Ends a piece of window work the caller counted in `_window_inflight` under the
        lock it took the work with (so `wait_idle` never sees it neither queued nor running)."""
        try:
            yield
        finally:
            with self._lock:
                self._window_inflight -= 1
                self._idle.notify_all()

    @property
    def path(self) -> Path | None:
        """The sealed index file."""
        return self._dir / INDEX_FILE if self._dir else None

    @property
    def name(self) -> str:
        """The embedder in use, as recorded in snapshots and the index file."""
        return f"{self.embedder.name}@{self.embedder.version}"

    def _own_work(self) -> bool:
        """True while memories wait for their own vector (call with the lock held)."""
        return bool(self._pending or self._inflight or self._backfill_left)

    def _embed_records(self, records: list[MemoryRecord]) -> Matrix:
        """The records' passage vectors; the time it took updates the measured rate."""
        started = time.monotonic()
        vectors = self.embedder.embed([passage_text(r) for r in records], kind="passage")
        took = time.monotonic() - started
        if records and took > 0:
            rate = len(records) / took
            self._rate = rate if self._rate is None else (self._rate + rate) / 2
        return vectors

    def _forget_pending(self, memory_id: str) -> None:
        """A removed memory's queued or in-flight embedding must never reach the index."""
        self._pending.pop(memory_id, None)
        if memory_id in self._inflight:
            self._cancelled.add(memory_id)

    if TYPE_CHECKING:
        # Defined by the other parts of `VectorLayer`, which call one another.
        def _ensure_loaded(self) -> None: ...
        def _settle_first(self) -> None: ...
        def put(self, records: Iterable[MemoryRecord]) -> None: ...
        def save(self, *, whole: bool = False) -> None: ...
        def _ensure_window_worker(self) -> None: ...
        def _queue_windows(self, records: list[MemoryRecord]) -> None: ...
        def _drop_windows(self, memory_ids: Iterable[str]) -> bool: ...
