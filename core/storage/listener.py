"""Waiting for another machine's commit on PostgreSQL: LISTEN on the store's channel.

Every write transaction that bumps the store revision on a server fires a trigger that runs
`pg_notify(channel, revision)` (migration 9); PostgreSQL delivers it to listeners at commit. A
listener keeps one connection of its own in autocommit, outside the pools, so a long wait
never holds a pooled connection. The GUI's live refresh sleeps here instead of polling.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable
from typing import Any

from core.errors import ServerUnavailableError

CHANNEL_PREFIX = "memory_center_"


def notify_channel(store_id: str) -> str:
    """The NOTIFY channel of one store (several stores may share a server); the same rule
    as the trigger that notifies it (migrations.POSTGRES_NOTIFY)."""
    return CHANNEL_PREFIX + re.sub("[^a-z0-9]", "", store_id.lower())


class ChangeListener:
    """One LISTEN connection; `wait` returns when a commit of the store is announced.

    Args:
        url: the server URL (postgresql://...), with its password.
        store_id: names the channel.
    """

    def __init__(self, url: str, store_id: str) -> None:
        self._url = url
        self.channel = notify_channel(store_id)
        self._conn: Any = None
        self._lock = threading.Lock()
        self._closed = False

    def wait(self, read_revision: Callable[[], int], since: int, timeout: float) -> int:
        """Block until a revision after `since` is committed or `timeout` seconds pass.

        Returns the newest revision known. The revision is read after LISTEN is in place,
        so a commit between the caller's last look and this call is never missed.

        Raises:
            ServerUnavailableError: the server cannot be reached.
        """
        import psycopg

        with self._lock:
            if self._closed:
                raise ServerUnavailableError("wait for changes: the store was closed")
            try:
                conn = self._connected()
                current = read_revision()
                if current > since:
                    return current
                for note in conn.notifies(timeout=max(0.0, timeout), stop_after=1):
                    current = max(current, _revision(note.payload))
                return current
            except psycopg.Error as exc:
                self._drop()
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else "lost"
                raise ServerUnavailableError(
                    f"wait for changes: the database server is not reachable: {first}"
                ) from None

    def close(self) -> None:
        """Close the listening connection for good (a blocked waiter returns with an error)."""
        self._closed = True
        self._drop()

    def _connected(self) -> Any:
        import psycopg
        from psycopg import sql

        from core.storage.engine import PG_CONNECT_TIMEOUT_S

        if self._conn is None or self._conn.closed:
            conn = psycopg.connect(
                self._url,
                autocommit=True,
                connect_timeout=PG_CONNECT_TIMEOUT_S,
                application_name="memory-center-listen",
            )
            conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self.channel)))
            self._conn = conn
            if self._closed:
                # `close` ran while this connected (it takes no lock, so a blocked waiter
                # can be woken): it found no connection to close, so this one is closed
                # here, not left to the garbage collector after the store is gone (#38).
                self._drop()
                raise ServerUnavailableError("wait for changes: the store was closed")
        return self._conn

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()


def _revision(payload: str) -> int:
    try:
        return int(payload)
    except ValueError:
        return 0
