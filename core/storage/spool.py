"""The offline write spool on this machine, and the store's record of applied entries (R23).

While the server of a shared store is away, writes wait in `spool.sqlite3` in the local data
directory: one row per write, in order, its arguments sealed with the store's codec (AAD
bound to the entry id), committed with `synchronous=FULL` so an acknowledged spooled write
survives a power cut. When the server returns each entry is replayed through the service
(so the policy decides it then), and `claim` records its id in `spool_applied` inside the
same transaction as the write: a crash between the commit and the local delete can only
make the next flush see "already applied" and drop the entry, never apply it twice.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import select

from core.crypto.codec import Aad, Codec
from core.errors import AlreadyAppliedError, ResourceUnavailableError
from core.model.clock import from_iso, to_iso
from core.model.spool import SpoolEntry
from core.storage import schema as s
from core.storage.store import WriteTx, new_id

SPOOL_FILE_NAME = "spool.sqlite3"
LOCK_NAME = "spool.lock"
BUSY_TIMEOUT_S = 15.0
_DDL = (
    """CREATE TABLE IF NOT EXISTS entries (
           seq INTEGER PRIMARY KEY AUTOINCREMENT,
           id TEXT NOT NULL UNIQUE,
           operation TEXT NOT NULL,
           spooled_at TEXT NOT NULL,
           body BLOB NOT NULL,
           attempts INTEGER NOT NULL DEFAULT 0,
           last_error TEXT)""",
    "CREATE TABLE IF NOT EXISTS notes (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)


def _aad(entry_id: str) -> Aad:
    return Aad("spool", entry_id, "call")


class LocalSpool:
    """The spool file of one data directory; safe to share between processes.

    Args:
        data_dir: the store's local data directory.
        codec: the store's current codec (a callable: rotation may replace it).
    """

    def __init__(self, data_dir: Path, codec: Callable[[], Codec]) -> None:
        self.path = data_dir / SPOOL_FILE_NAME
        self._lock_path = data_dir / LOCK_NAME
        self._codec = codec
        self._conn: sqlite3.Connection | None = None
        self._conn_lock = threading.Lock()

    def add(
        self, operation: str, call: dict[str, Any], now: Any, *, entry_id: str | None = None
    ) -> SpoolEntry:
        """Append one write (its sealed call) and fsync before returning."""
        entry_id = entry_id or new_id("sp", now)
        body = self._codec().seal_json(call, _aad(entry_id))
        with self._connect(create=True) as conn:
            conn.execute(
                "INSERT INTO entries (id, operation, spooled_at, body) VALUES (?, ?, ?, ?)",
                (entry_id, operation, to_iso(now), body),
            )
        return SpoolEntry(entry_id, operation, now)

    def entries(self) -> list[SpoolEntry]:
        """Every waiting entry, oldest first (nothing is decrypted)."""
        if not self.path.exists():
            return []
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT id, operation, spooled_at, attempts, last_error FROM entries ORDER BY seq"
            ).fetchall()
        return [SpoolEntry(r[0], r[1], from_iso(r[2]), int(r[3]), r[4]) for r in rows]

    def call(self, entry_id: str) -> dict[str, Any]:
        """The sealed call of one entry, opened.

        Raises:
            IntegrityError: the entry was altered or moved.
        """
        with self._connect() as conn:
            row = conn.execute("SELECT body FROM entries WHERE id = ?", (entry_id,)).fetchone()
        if row is None:
            raise ResourceUnavailableError(f"spool entry {entry_id} is gone")
        opened: dict[str, Any] = self._codec().open_json(bytes(row[0]), _aad(entry_id))
        return opened

    def summary(self) -> tuple[int, str | None]:
        """(waiting entries, spooled_at of the oldest) without decrypting anything."""
        if not self.path.exists():
            return 0, None
        with self._connect() as conn:
            count, oldest = conn.execute("SELECT COUNT(*), MIN(spooled_at) FROM entries").fetchone()
        return int(count), oldest

    def remove(self, entry_id: str) -> None:
        """Forget an entry the store applied (or refused); its bytes are overwritten."""
        with self._connect(durable=False) as conn:
            conn.execute("DELETE FROM entries WHERE id = ?", (entry_id,))

    def note_attempt(self, entry_id: str, error: str) -> None:
        """Count a failed attempt at an entry and keep the reason."""
        with self._connect() as conn:
            conn.execute(
                "UPDATE entries SET attempts = attempts + 1, last_error = ? WHERE id = ?",
                (error, entry_id),
            )

    def note(self, key: str, value: str | None) -> None:
        """Keep (or clear) a note: the last error, the last offline time."""
        with self._connect(create=True) as conn:
            if value is None:
                conn.execute("DELETE FROM notes WHERE key = ?", (key,))
            else:
                conn.execute(
                    "INSERT INTO notes (key, value) VALUES (?, ?) "
                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (key, value),
                )

    def notes(self) -> dict[str, str]:
        """Every note."""
        if not self.path.exists():
            return {}
        with self._connect() as conn:
            return dict(conn.execute("SELECT key, value FROM notes").fetchall())

    @contextlib.contextmanager
    def flushing(self) -> Iterator[bool]:
        """Hold the flush lock of this directory if no other process holds it (yields
        False then): two flushers would only skip each other's applied entries."""
        try:
            import fcntl
        except ImportError:  # Windows: the store's claim still keeps entries exactly-once
            yield True
            return
        fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    @contextlib.contextmanager
    def _connect(
        self, *, create: bool = False, durable: bool = True
    ) -> Iterator[sqlite3.Connection]:
        """One transaction on this process's connection to the spool file.

        `durable=False` skips the fsync: forgetting an applied entry may be lost in a
        crash, and the next flush then finds it claimed in the store and drops it.
        """
        with self._conn_lock:
            conn = self._connection(create)
            try:
                # FULL: the commit is fsync'd; a spooled write is the only copy of that write.
                conn.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
                conn.execute("BEGIN IMMEDIATE")
                yield conn
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise ResourceUnavailableError(f"the spool {self.path}: {exc}") from None
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise

    def _connection(self, create: bool) -> sqlite3.Connection:
        if self._conn is not None:
            return self._conn
        if not self.path.exists():
            if not create:
                raise ResourceUnavailableError(f"no spool at {self.path}")
            # Owner-only from the first byte: SQLite gives the WAL the file's mode.
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
        try:
            conn = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA secure_delete=ON")
            for ddl in _DDL:
                conn.execute(ddl)
        except sqlite3.Error as exc:
            raise ResourceUnavailableError(f"cannot open the spool {self.path}: {exc}") from None
        self._conn = conn
        return conn

    def close(self) -> None:
        """Close this process's connection to the spool file."""
        with self._conn_lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def claim(tx: WriteTx, entry: SpoolEntry, device: str, *, check: bool = True) -> None:
    """Record, inside the write's own transaction, that `entry` is applied.

    `check=False` for a direct write, whose fresh id cannot be there yet.

    Raises:
        AlreadyAppliedError: it was applied before; the transaction rolls back.
    """
    if check:
        done = tx.conn.execute(
            select(s.spool_applied.c.id).where(s.spool_applied.c.id == entry.id)
        ).first()
        if done is not None:
            raise AlreadyAppliedError(f"spool entry {entry.id} was applied already")
    _record(tx, entry, device, "applied" if check else "direct")


def record_refused(tx: WriteTx, entry: SpoolEntry, device: str, kind: str) -> bool:
    """Record that the store refused `entry` at apply time; False if it was settled before."""
    done = tx.conn.execute(
        select(s.spool_applied.c.id).where(s.spool_applied.c.id == entry.id)
    ).first()
    if done is not None:
        return False
    _record(tx, entry, device, f"refused: {kind}"[:64])
    return True


def applied_ids(conn: Any, ids: list[str]) -> set[str]:
    """Which of `ids` the store has settled."""
    if not ids:
        return set()
    rows = conn.execute(select(s.spool_applied.c.id).where(s.spool_applied.c.id.in_(ids)))
    return {str(r[0]) for r in rows}


def _record(tx: WriteTx, entry: SpoolEntry, device: str, outcome: str) -> None:
    row = {
        "id": entry.id,
        "device": device or "unknown",
        "operation": entry.operation,
        "spooled_at": to_iso(entry.spooled_at),
        "applied_at": tx.now_iso,
        "outcome": outcome,
    }
    tx.later_rows(s.spool_applied, [row])
