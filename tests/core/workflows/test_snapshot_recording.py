"""Write-behind snapshot recording (R17, R18, R19).

An injection hands its snapshot to the recorder and returns: it never waits for the write
lock another process holds. The snapshot is still there for everything this process does
next, is written at close, and a purge that another process commits between the read and
the write is applied to it. The other processes here are real processes on the same store
file; they hold the write lock until the test tells them to let go (ordering, not timing).
"""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from core import MemoryService
from core.storage.store import WriteTx
from tests.conftest import PASSPHRASE

SCOPE = {"user": "alice", "project": "garden"}
SECRET = "The greenhouse door code is kept in the blue watering can"

# Opens the store, then holds its write lock (inside a transaction that changes nothing,
# or inside a purge of MEMORY_ID) until the file `go` appears.
HOLDER = """
import sys, time
from pathlib import Path
from core import MemoryService
data_dir, sync, memory_id = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[4]
def wait(_tx):
    (sync / "holding").touch()
    while not (sync / "go").exists():
        time.sleep(0.01)
with MemoryService.open(data_dir, passphrase=sys.argv[3], prefer_keyring=False,
                        embedder="none") as svc:
    if memory_id == "-":
        with svc._store.write("hold the lock") as tx:
            wait(tx)
    else:
        with svc._store.first_write_also(wait):
            svc.review.delete(memory_id, reason="compliance", purge=True)
"""


def _open(data_dir: Path) -> MemoryService:
    return MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False)


def _hold(data_dir: Path, sync: Path, memory_id: str = "-") -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(data_dir), str(sync), PASSPHRASE, memory_id],
        cwd=Path(__file__).resolve().parents[3],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not (sync / "holding").exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the other process never took the lock"
        time.sleep(0.01)
    return proc


def _stored(data_dir: Path, snapshot_id: str) -> int:
    """Rows of this snapshot in the file, read beside the store (WAL readers never wait)."""
    with contextlib.closing(sqlite3.connect(data_dir / "memory-center.sqlite3")) as conn:
        row = conn.execute("SELECT count(*) FROM snapshots WHERE id = ?", (snapshot_id,))
        return int(row.fetchone()[0])


def _release(sync: Path, proc: subprocess.Popen[str]) -> None:
    (sync / "go").touch()
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err


@pytest.fixture
def store(data_dir: Path) -> Path:
    with _open(data_dir) as svc:
        svc.memories.remember(SCOPE, SECRET)
        svc.memories.remember(SCOPE, "Water the tomatoes every morning before 9")
    return data_dir


def test_an_injection_returns_while_another_process_holds_the_write_lock(
    store: Path, tmp_path: Path
) -> None:
    svc = _open(store)
    try:
        svc.retrieval.inject(SCOPE, "greenhouse door", 300)  # warm: the catalog is loaded
        proc = _hold(store, tmp_path)
        try:
            res = svc.retrieval.inject(SCOPE, "where is the greenhouse door code", 300).value
            # Still held: the other process has not been told to let go.
            assert proc.poll() is None
            assert not res.degraded and SECRET in res.text
            # The write waits for the lock, the turn did not: not in the file yet.
            assert _stored(store, res.snapshot_id) == 0
        finally:
            _release(tmp_path, proc)
        snap = svc.retrieval.get_snapshot(res.snapshot_id)  # read waits for the queued write
        assert snap.text == res.text
        assert _stored(store, res.snapshot_id) == 1
        assert [i.memory_id for i in snap.injected] == [i.memory_id for i in res.items]
    finally:
        svc.close()


def test_what_this_process_does_next_sees_the_snapshot(store: Path) -> None:
    with _open(store) as svc:
        res = svc.retrieval.inject(SCOPE, "greenhouse door code", 300).value
        # A read right after the injection finds it...
        assert svc.retrieval.get_snapshot(res.snapshot_id).text == res.text
        res2 = svc.retrieval.inject(SCOPE, "greenhouse door code", 300).value
        secret_id = next(i.memory_id for i in res2.items if i.content == SECRET)
        # ...and a purge right after one redacts it: the queued write lands first.
        svc.review.delete(secret_id, reason="compliance", purge=True)
        snap = svc.retrieval.get_snapshot(res2.snapshot_id)
        assert SECRET not in snap.text
        assert secret_id in snap.purged_memory_ids
        assert svc._engine.recorder.unrecorded == 0


def test_snapshots_still_queued_are_written_at_close(store: Path) -> None:
    svc = _open(store)
    ids = [svc.retrieval.inject(SCOPE, f"tomatoes {n}", 300).value.snapshot_id for n in range(20)]
    svc.close()
    with _open(store) as again:
        assert [again.retrieval.get_snapshot(i).id for i in ids] == ids


def test_a_purge_committed_elsewhere_before_the_write_is_applied_to_the_snapshot(
    store: Path, tmp_path: Path
) -> None:
    svc = _open(store)
    try:
        hits = svc.retrieval.search_memory(SCOPE, "greenhouse door code", limit=5)
        secret_id = next(h.memory_id for h in hits if h.content == SECRET)
        # The other process starts purging the memory and holds its transaction open; this
        # process still sees the memory active and injects it.
        proc = _hold(store, tmp_path, secret_id)
        try:
            res = svc.retrieval.inject(SCOPE, "where is the greenhouse door code", 300).value
            assert SECRET in res.text  # what the model got, before the purge committed
        finally:
            _release(tmp_path, proc)  # the purge commits; then the snapshot is written
        snap = svc.retrieval.get_snapshot(res.snapshot_id)
        assert SECRET not in snap.text
        assert all(SECRET not in i.content for i in snap.injected)
        assert secret_id in snap.purged_memory_ids
        assert any(i.memory_id == secret_id for i in snap.injected)
    finally:
        svc.close()


def test_a_write_after_an_injection_keeps_its_own_steps(store: Path) -> None:
    """A write that finds snapshots still queued writes them first, in their own
    transaction; the write's own first/last steps (the spool claims a write's id this way)
    run in the write's transaction, not the snapshots'."""
    svc = _open(store)
    recorder = svc._engine.recorder
    try:
        # Keep the snapshot queued until the write below: as if the recorder's thread had
        # not been scheduled yet (a thread that never starts stands in for it).
        recorder._thread = threading.Thread(target=lambda: None)
        svc.retrieval.inject(SCOPE, "where is the greenhouse door code", 300)
        assert recorder.pending == 1
        seen: list[list[str]] = []

        def step(tx: WriteTx) -> None:
            seen.append(sorted(k.value for k in tx.kinds))

        with svc._store.first_write_also(step, at_start=False):
            svc.memories.remember(SCOPE, "The potting bench is behind the shed")
        assert recorder.pending == 0
        assert len(seen) == 1 and "memories" in seen[0] and "snapshots" not in seen[0], seen
    finally:
        recorder._thread = None
        svc.close()
