"""Write-behind recording of injection snapshots (R17, R18).

An injection hands its finished snapshot here and returns its block at once; one thread
writes what is queued, several snapshots per transaction when they pile up. The turn no
longer waits for a write transaction: on PostgreSQL that transaction was half of an
inject's time, and on either backend another process's long write (an import, a bulk
approve, a key rotation) held every agent turn for as long as it held the write lock.

Order within this process: the store calls `drain` before every write, and the readers of
snapshots call it through `Store.settle` (`Store.before_access`), so a purge, a replay or
`get_snapshot` here always finds the snapshots of earlier injections. Other reads do not:
a reader may hold the catalog's lock, which a write in progress may be waiting for.

A purge committed by another process between an injection's read and its snapshot's write
is caught when writing: an injected memory whose tombstone says purged is redacted as the
purge would have done.

What can be lost: snapshots still queued when the process dies without `close` (a kill or
a crash, a few milliseconds' worth), and those whose write fails (the server went away),
with what was to be written with them (a degraded event, an agent's `agent_call` event
handed over as `inject(record_with=...)`). Both are counted in `unrecorded` and logged.
Event and session reads settle too, so a process reads the events it handed over.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from core.errors import MemoryCenterError
from core.model.memory import Snapshot
from core.storage import snapshots, tombstones
from core.storage.store import Store, WriteTx
from core.workflows.copies import redact_injected
from core.workflows.deletion import placeholder

log = logging.getLogger(__name__)

CLOSE_WAIT_SECONDS = 5.0

Step = Callable[[WriteTx], None]


@dataclass(frozen=True)
class _Pending:
    snapshot: Snapshot
    also: Step | None  # more to write in the same transaction (the degraded event)


class SnapshotRecorder:
    """Queues snapshots and writes them in the background, in order."""

    def __init__(self, store: Store, written: Callable[[int], None]) -> None:
        """`written(revision)` is called after each committed batch (the catalog's own
        revision, so it does not re-read the change feed for a snapshot)."""
        self._store = store
        self._written = written
        self._queue: list[_Pending] = []
        self._wake = threading.Condition()
        # Held for a whole batch write: a drain from another thread waits for it, so
        # "drained" means written, not merely taken off the queue.
        self._writing = threading.RLock()
        self._local = threading.local()
        self._thread: threading.Thread | None = None
        self._closed = False
        self.unrecorded = 0

    @property
    def pending(self) -> int:
        """Snapshots queued and not yet written."""
        with self._wake:
            return len(self._queue)

    def submit(self, snap: Snapshot, also: Step | None = None) -> None:
        """Queue a snapshot (and `also`, written with it); it is written shortly."""
        with self._wake:
            self._queue.append(_Pending(snap, also))
            if self._closed:
                closed = True
            else:
                closed = False
                if self._thread is None:
                    self._thread = threading.Thread(
                        target=self._run, name="snapshot-recorder", daemon=True
                    )
                    self._thread.start()
                self._wake.notify()
        if closed:  # after close nothing runs in the background: write it now
            self.drain()

    def drain(self) -> None:
        """Write everything queued now, in this thread; returns once it is written."""
        if getattr(self._local, "busy", False):
            return  # this thread's own batch write is opening its transaction
        with self._writing:
            with self._wake:
                batch, self._queue = self._queue, []
            if batch:
                self._write(batch)

    def close(self) -> None:
        """Write what is queued and stop the thread."""
        with self._wake:
            self._closed = True
            self._wake.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(CLOSE_WAIT_SECONDS)
        self.drain()

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._queue and not self._closed:
                    self._wake.wait()
                if not self._queue:
                    return
            self.drain()

    def _write(self, batch: list[_Pending]) -> None:
        self._local.busy = True
        try:
            with self._store.write("record snapshot") as tx:
                injected = {i.memory_id for p in batch for i in p.snapshot.injected}
                purged = tombstones.purged_among(tx.conn, injected)
                for p in batch:
                    snapshots.insert(tx, _without_purged(p.snapshot, purged))
                    if p.also is not None:
                        p.also(tx)
        except MemoryCenterError as exc:
            self.unrecorded += len(batch)
            log.warning("%d injection snapshot(s) not recorded: %s", len(batch), exc)
            return
        except Exception:  # a defect must not stop recording for the rest of the process
            self.unrecorded += len(batch)
            log.exception("%d injection snapshot(s) not recorded", len(batch))
            return
        finally:
            self._local.busy = False
        try:
            self._written(tx.revision)
        except Exception:  # the catalog's bookkeeping must not stop the recorder thread
            log.exception("after recording snapshots")


def _without_purged(snap: Snapshot, purged: dict[str, str]) -> Snapshot:
    """A snapshot taken just before another process purged one of its memories."""
    for item in snap.injected:
        deleted_at = purged.get(item.memory_id)
        if deleted_at is not None and item.memory_id not in snap.purged_memory_ids:
            marker = placeholder(item.memory_id, deleted_at)
            snap = redact_injected(snap, item.memory_id, [item.content], marker)
    return snap
