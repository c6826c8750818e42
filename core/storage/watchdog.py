"""A server that stopped answering must not hang its callers (R23, #12).

A PostgreSQL server that is stopped outright (a frozen VM, SIGSTOP, a host that lost its
disk) keeps its TCP connections open: the kernel still acknowledges, so neither
`lock_timeout`, `statement_timeout` (the server would have to run to enforce them) nor TCP
timeouts fire, and a call waits forever. `AnswerWatchdog` watches one engine from the client
side: while some store transaction is open on it and the server has not answered anything
(no statement finished) for `limit` seconds, it shuts down the sockets of every connection
of that engine. The blocked calls then fail as a lost connection, which the store reports as
`ServerUnavailableError`, so a write goes to the spool and a read degrades, as when the
server is down. A transaction that keeps getting answers is never cut, however long it runs.

Stdlib only; the engine module wires it to SQLAlchemy's events.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from typing import Any

TICK_S = 0.25
IDLE_EXIT_S = 10.0


class AnswerWatchdog:
    """Cuts an engine's connections when its server stops answering.

    Args:
        limit: seconds without any answer, while a transaction waits, before cutting.
        socket_of: the socket file descriptor of a DBAPI connection (None when closed).
        clock: the monotonic clock silence is measured with (tests pass one they move, so
            what they check does not depend on how fast the machine runs).
        background: watch from a thread; False leaves each look to the caller (`check`).
    """

    def __init__(
        self,
        limit: float,
        socket_of: Callable[[Any], int | None],
        clock: Callable[[], float] = time.monotonic,
        background: bool = True,
    ) -> None:
        self.limit = limit
        self._socket_of = socket_of
        self._clock = clock
        self._background = background
        self._lock = threading.Lock()
        self._connections: weakref.WeakSet[Any] = weakref.WeakSet()
        self._waiting = 0
        self._last_answer = clock()
        self._thread: threading.Thread | None = None
        self.cut_at: float | None = None  # when it last cut (monotonic), for messages
        self._closed = False

    def track(self, dbapi_connection: Any) -> None:
        """A new connection of the engine (pool `connect` event)."""
        with self._lock:
            self._connections.add(dbapi_connection)

    def answered(self) -> None:
        """The server answered a statement (`after_cursor_execute`)."""
        self._last_answer = self._clock()

    @contextlib.contextmanager
    def waiting(self) -> Iterator[None]:
        """Around one store transaction: the time without answers counts while it is open."""
        with self._lock:
            if self._waiting == 0:
                self._last_answer = self._clock()
            self._waiting += 1
            if self._background and (self._thread is None or not self._thread.is_alive()):
                self._thread = threading.Thread(
                    target=self._run, name="memory-center-answer-watchdog", daemon=True
                )
                self._thread.start()
        try:
            yield
        finally:
            with self._lock:
                self._waiting -= 1
            self.answered()

    def recently_cut(self) -> bool:
        """True when this watchdog cut the connections within the last minute."""
        return self.cut_at is not None and self._clock() - self.cut_at < 60.0

    def close(self) -> None:
        """Stop the watching thread (the engine is disposed)."""
        with self._lock:
            self._closed = True

    def _run(self) -> None:
        idle_since: float | None = None
        while True:
            time.sleep(TICK_S)
            with self._lock:
                if self._waiting == 0:
                    # Kept alive while transactions come and go: starting a thread per
                    # transaction cost a tenth of the single-event append rate.
                    now = time.monotonic()
                    idle_since = idle_since or now
                    if self._closed or now - idle_since > IDLE_EXIT_S:
                        self._thread = None
                        return
                    continue
                idle_since = None
            self.check()

    def check(self) -> bool:
        """One look (the watching thread's, each tick): while a transaction waits and the
        server has said nothing for more than `limit`, cut every connection. True if it cut.
        """
        with self._lock:
            if self._waiting == 0:
                return False
            silent = self._clock() - self._last_answer
            victims = list(self._connections) if silent > self.limit else []
        if not victims:
            return False
        self.cut_at = self._clock()
        for connection in victims:
            self._cut(connection)
        self.answered()  # the next cut only after another full limit
        return True

    def _cut(self, connection: Any) -> None:
        try:
            fd = self._socket_of(connection)
        except Exception:
            return
        if fd is None or fd < 0:
            return
        try:
            # shutdown() acts on the socket itself, not on this duplicate descriptor: the
            # driver's blocked wait sees the connection end, and the driver closes its own fd.
            with socket.socket(fileno=os.dup(fd)) as sock:
                sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
