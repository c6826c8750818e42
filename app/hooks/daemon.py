"""The local hook daemon: keeps one store open so hook calls answer fast (R17).

Started on demand by the hook client (`app/hooks/client.py`), one per store and user:
a lock file makes a second copy exit at once. It listens on a Unix socket in a private
0700 directory, writes a random token to a 0600 file, and answers only requests that carry
that token from the same user. It exits after `--idle` seconds without a request, and when
a client runs newer hook code than it does.

    python -m app.hooks.daemon --data-dir DIR [--idle SECONDS]
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hmac
import os
import secrets
import signal
import socket
import struct
import sys
import threading
import time
from pathlib import Path
from typing import Any

from app.hooks.cli_forward import AGENT as CLI_AGENT
from app.hooks.client import PROTOCOL, QUEUE_AGENT, Paths, code_stamp, write_private

IDLE_ENV = "MEMORY_CENTER_HOOK_IDLE"
DEFAULT_IDLE = 900.0
MAX_REQUEST = 64 << 20


def main(argv: list[str] | None = None) -> int:
    """Run the daemon until it is idle; 0 also when another daemon already serves the store."""
    parser = argparse.ArgumentParser(prog="memory-center-hook-daemon")
    parser.add_argument("--data-dir", required=True, type=Path)
    parser.add_argument("--idle", type=float, default=float(os.environ.get(IDLE_ENV, DEFAULT_IDLE)))
    args = parser.parse_args(argv)
    paths = Paths(args.data_dir)
    lock = os.open(paths.lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return 0  # another daemon serves this store
    os.ftruncate(lock, 0)
    os.write(lock, str(os.getpid()).encode("ascii"))
    daemon = Daemon(paths, args.idle)
    signal.signal(signal.SIGTERM, lambda *_: daemon.stop.set())
    try:
        return daemon.serve()
    finally:
        os.close(lock)


class Daemon:
    """One store, one socket, a thread per connection."""

    def __init__(self, paths: Paths, idle: float) -> None:
        self.paths = paths
        self.idle = idle
        self.token = secrets.token_hex(32)
        self.stamp = code_stamp()
        self.last = time.monotonic()
        self.busy = 0
        self.stop = threading.Event()
        self.guard = threading.Lock()
        self.service: Any = None
        self.queued = threading.Event()  # a recording hook queued a call
        self.draining = threading.Lock()

    def serve(self) -> int:
        """Open the store, listen, answer until idle, clean up."""
        from app.compose import open_service
        from app.hooks.runner import record_missed
        from core import MemoryCenterError

        try:
            self.service = open_service(Path(self.paths.data_dir), create=True, prompt=None)
        except MemoryCenterError as exc:
            # Clients waiting for this daemon read the note and stop waiting; the kind
            # (before the note, which clients watch) lets Settings say what to do.
            write_private(self.paths.error_kind, exc.kind)
            write_private(self.paths.error, exc.message)
            return 1
        for note in (self.paths.error, self.paths.error_kind):
            with contextlib.suppress(OSError):
                os.unlink(note)
        try:
            self._warm_up()
            record_missed(self.service, Path(self.paths.missed))
            worker = threading.Thread(target=self._ingest, name="hook-queue", daemon=True)
            worker.start()
            with self._listen() as server:
                self._loop(server)
            self.stop.set()
            worker.join()
            self.drain()  # what arrived while stopping: nothing queued is left behind
        finally:
            for path in (self.paths.token, self.paths.socket):
                with contextlib.suppress(OSError):
                    os.unlink(path)
            self.service.close()
        return 0

    def _ingest(self) -> None:
        """Ingest the hook queue in order, whenever told (and every half second)."""
        while not self.stop.is_set():
            self.queued.wait(0.5)
            self.queued.clear()
            self.drain()

    def drain(self) -> int:
        """Ingest what the recording hooks queued (one drainer at a time, in order)."""
        from app.hooks import ingest
        from app.hooks.runner import handle

        with self.draining:
            with self.guard:
                self.busy += 1
            count = 0
            try:

                def one(agent: str, raw: bytes, bound: int | None) -> str:
                    return handle(self.service, agent, raw, transcript_bytes=bound)

                count = ingest.drain(self.paths, one)
                return count
            finally:
                with self.guard:
                    self.busy -= 1
                    # Only ingested calls are activity: the idle drain every half second
                    # must not keep the daemon (and the unlocked key) up for ever (#42).
                    if count:
                        self.last = time.monotonic()

    def _warm_up(self) -> None:
        """Load the catalog and the embedding model before the first hook needs them."""
        self.service.index.catalog.sync()
        vectors = self.service.index.catalog.vectors
        if vectors is not None:
            with contextlib.suppress(Exception):
                vectors.embedder.embed(["warm up"])

    @contextlib.contextmanager
    def _listen(self) -> Any:
        with contextlib.suppress(OSError):
            os.unlink(self.paths.socket)  # a stale socket of a dead daemon (we hold the lock)
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            old = os.umask(0o177)
            try:
                server.bind(self.paths.socket)
            finally:
                os.umask(old)
            server.listen(32)
            server.settimeout(0.5)
            write_private(self.paths.token, self.token)
            yield server
        finally:
            server.close()

    def _loop(self, server: socket.socket) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                with self.guard:
                    idle = self.busy == 0 and time.monotonic() - self.last > self.idle
                if idle:
                    return
                continue
            with self.guard:
                self.busy += 1
                self.last = time.monotonic()
            threading.Thread(target=self._serve_one, args=(conn,), daemon=True).start()

    def _serve_one(self, conn: socket.socket) -> None:
        try:
            with conn:
                conn.settimeout(30)
                status, out = self._answer(conn)
                body = out if isinstance(out, bytes) else out.encode("utf-8")
                conn.sendall(status + b"\n" + body)
        except OSError:
            pass
        finally:
            with self.guard:
                self.busy -= 1
                self.last = time.monotonic()

    def _answer(self, conn: socket.socket) -> tuple[bytes, str | bytes]:
        from app.hooks.runner import handle

        if not _same_user(conn):
            return b"ERR wrong-user", ""
        header, payload = _read_request(conn)
        parts = header.split(b" ")
        if len(parts) != 4 or parts[0] != PROTOCOL:
            return b"ERR bad-request", ""
        if not hmac.compare_digest(parts[1], self.token.encode("ascii")):
            return b"ERR bad-token", ""
        if parts[2].decode("ascii", errors="replace") != self.stamp:
            self.stop.set()  # newer hook code: let a fresh daemon take over
            return b"ERR restart", ""
        agent = parts[3].decode("ascii", errors="replace")
        if agent == QUEUE_AGENT:
            self.queued.set()
            return b"OK", ""
        if agent == CLI_AGENT:
            return self._command(payload)
        return b"OK", handle(self.service, agent, payload)

    def _command(self, payload: bytes) -> tuple[bytes, bytes]:
        """A `memory-center` command handed over by a CLI process (`cli_forward`)."""
        from app.hooks.cli_serve import Refused, run_cli

        try:
            return b"OK", run_cli(self.service, Path(self.paths.data_dir), payload)
        except Refused as refused:
            return b"ERR " + str(refused).encode("ascii"), b""


def _read_request(conn: socket.socket) -> tuple[bytes, bytes]:
    """The header line and the payload (read to the client's end of stream)."""
    chunks: list[bytes] = []
    size = 0
    while size <= MAX_REQUEST:
        part = conn.recv(1 << 16)
        if not part:
            break
        chunks.append(part)
        size += len(part)
    header, _, payload = b"".join(chunks).partition(b"\n")
    return header.strip(), payload


def _same_user(conn: socket.socket) -> bool:
    """On Linux, the peer's uid from the socket (the token is the check elsewhere)."""
    if not sys.platform.startswith("linux"):
        return True
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return bool(uid == os.getuid())


if __name__ == "__main__":
    sys.exit(main())
