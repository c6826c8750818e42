"""A throwaway PostgreSQL server for tests and benchmarks (R30: a team store on PostgreSQL).

`initdb` into a temporary directory, `pg_ctl start` on a free local port, trust
authentication on the loopback interface only, stopped (and removed) at the end. PostgreSQL
refuses to run as root, so as root the cluster belongs to the `postgres` system user.

`MEMORY_CENTER_TEST_POSTGRES` decides what happens when no server can be started:
`require` (CI) fails loudly, anything else skips the PostgreSQL tests with a reason.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

REQUIRE_ENV = "MEMORY_CENTER_TEST_POSTGRES"


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server binaries, or the server would not start."""


def _bin_dir() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).parent
    raise PostgresUnavailable("PostgreSQL server binaries (initdb, pg_ctl) are not installed")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class PostgresServer:
    """One local server; `database()` hands out a fresh, empty database URL."""

    def __init__(self, *, durable: bool = False) -> None:
        # Durable: a crash (`stop("immediate")`) keeps every acknowledged commit, as a real
        # server does; tests that crash the server need it.
        self.durable = durable
        self.bin = _bin_dir()
        self.root = Path(tempfile.mkdtemp(prefix="mc-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self._owner: pwd.struct_passwd | None = None
        if os.geteuid() == 0:
            try:
                self._owner = pwd.getpwnam("postgres")
            except KeyError:
                raise PostgresUnavailable("running as root and no `postgres` user exists") from None
            os.chown(self.root, self._owner.pw_uid, self._owner.pw_gid)

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        cmd = [str(self.bin / args[0]), *args[1:]]
        if self._owner is not None:
            cmd = ["runuser", "-u", self._owner.pw_name, "--", *cmd]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
        if check and done.returncode != 0:
            raise PostgresUnavailable(f"{args[0]} failed: {done.stderr.strip() or done.stdout}")
        return done

    def start(self) -> PostgresServer:
        """initdb + pg_ctl start; returns self."""
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8")
        # The superuser (the tests' DBA and stores' creator) logs in without a password;
        # every other login (a team member's own, #41) must give its password, as on a
        # real server.
        hba = (
            "local all postgres trust\n"
            "host all postgres 127.0.0.1/32 trust\n"
            "local all all scram-sha-256\n"
            "host all all 127.0.0.1/32 scram-sha-256\n"
        )
        (self.data / "pg_hba.conf").write_text(hba)
        if self._owner is not None:
            os.chown(self.data / "pg_hba.conf", self._owner.pw_uid, self._owner.pw_gid)
        self.restart()
        return self

    def stop(self, mode: str = "fast") -> None:
        """pg_ctl stop (`immediate` simulates a crash)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def freeze(self) -> list[int]:
        """Stop every process of the server with SIGSTOP (a frozen host): its TCP
        connections stay open and the kernel still acknowledges. Returns the pids."""
        pids = self._processes()
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        return pids

    def thaw(self, pids: list[int]) -> None:
        """Let processes stopped by `freeze` run again."""
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)

    def _processes(self) -> list[int]:
        main = int((self.data / "postmaster.pid").read_text().split()[0])
        found = [main]
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            # The parent pid is the second field after the command name in parentheses.
            if int(stat.rsplit(")", 1)[1].split()[1]) == main:
                found.append(int(entry.name))
        return found

    def running(self) -> bool:
        """True while the server runs."""
        return self._run("pg_ctl", "-D", str(self.data), "status", check=False).returncode == 0

    def restart(self) -> None:
        """Start the server (again, after `stop`) on the same port and data."""
        # Durability is off unless asked for: a test server's data is thrown away at the end.
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
        if not self.durable:
            options += "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
        options += "-c max_connections=200"
        log = self.root / "server.log"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(log), "-o", options, "-w", "start")

    def destroy(self) -> None:
        """Stop the server and remove its files."""
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        """A SQLAlchemy/psycopg URL for `database`."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def database(self) -> str:
        """Create a new empty database and return its URL."""
        import psycopg

        name = "mc_" + uuid.uuid4().hex[:16]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def start_or_explain(*, durable: bool = False) -> tuple[PostgresServer | None, str]:
    """Start a server, or return why not (the caller skips or fails on `required()`)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return None, "psycopg is not installed"
    try:
        return PostgresServer(durable=durable).start(), ""
    except (PostgresUnavailable, OSError, subprocess.TimeoutExpired) as exc:
        return None, str(exc)


def required() -> bool:
    """True when a missing PostgreSQL server must fail the run (CI)."""
    return os.environ.get(REQUIRE_ENV, "").strip().lower() == "require"
