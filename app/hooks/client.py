"""The hook command Claude Code runs: a thin client of the local hook daemon (R17).

A Python process that imports the engine needs about a second before it can answer (the
imports, the store, the embedding model). A hook that injects must answer within a few
hundred milliseconds, so this module imports only built-in modules (no `json`, `socket`,
`pathlib` or `hashlib`, which drag in `re` and `enum`: on a loaded machine that alone is
~100 ms) and asks a daemon that keeps the store open. The daemon is started on demand,
listens on a Unix socket in a private directory, checks a per-user token (a 0600 file) on
every request, and exits when idle. If it cannot be reached or started, the hook runs in
this process instead.

Wire format: the request is one header line `MC2 <token> <code stamp> <agent>` followed by
the hook's stdin bytes as they came; the reply is `OK` and a newline followed by what to
print, or `ERR <reason>`.

Whatever happens, the command exits 0; it prints only what the model should see.

    python -S .../app/hooks/client.py claude-code [--data-dir DIR]
"""

from __future__ import annotations

import os
import sys
import time

try:
    from _sha256 import sha256
except ImportError:  # pragma: no cover - builds without the built-in module
    from hashlib import sha256

import _socket

PROTOCOL = b"MC2"
DATA_DIR_ENV = "MEMORY_CENTER_DATA_DIR"
DAEMON_ENV = "MEMORY_CENTER_HOOK_DAEMON"  # "0": never use the daemon
HOT_EVENTS = ("UserPromptSubmit", "SessionStart")
HOT_WAIT = {"UserPromptSubmit": 2.5, "SessionStart": 8.0}
"""Seconds a hook that injects may wait for a daemon to start; then it gives no memory."""
WRITE_WAIT = 15.0
REPLY_TIMEOUT = {"UserPromptSubmit": 2.0, "SessionStart": 4.0}
WRITE_REPLY_TIMEOUT = 60.0
# The engine's hot-path limit, when the user raised it (a slow or loaded machine): the waits
# of an injecting hook grow with it, or the hook would give up before the read may end.
HOT_PATH_ENV = "MEMORY_CENTER_HOT_PATH_SECONDS"
MAX_REPLY = 1 << 20
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STAMP_FILES = (
    "hooks/client.py",
    "hooks/daemon.py",
    "hooks/claude_code.py",
    "hooks/workspace.py",
    "hooks/runner.py",
    "capture/follow.py",
    "capture/claude_code.py",
    # The commands the daemon runs for the CLI (`cli_forward`).
    "hooks/cli_forward.py",
    "hooks/cli_serve.py",
    "cli/root.py",
    "cli/store.py",
    "cli/events.py",
    "cli/memory.py",
    "cli/review.py",
    "cli/retrieval.py",
)


class Paths:
    """Where the daemon of one store keeps its socket, token and lock (strings)."""

    def __init__(self, data_dir: str | os.PathLike[str]) -> None:
        self.data_dir = os.fspath(data_dir)
        real = os.path.realpath(self.data_dir)
        name = sha256(real.encode("utf-8")).hexdigest()[:16]
        self.dir = runtime_dir()
        self.socket = os.path.join(self.dir, f"{name}.sock")
        self.token = os.path.join(self.dir, f"{name}.token")
        self.lock = os.path.join(self.dir, f"{name}.lock")
        self.missed = os.path.join(self.dir, f"{name}.missed.jsonl")
        self.error = os.path.join(self.dir, f"{name}.error")


def runtime_dir() -> str:
    """A private directory for sockets ($XDG_RUNTIME_DIR, else the temp dir), made 0700."""
    base = os.environ.get("XDG_RUNTIME_DIR") or os.environ.get("TMPDIR") or "/tmp"
    folder = os.path.join(base, f"memory-center-{os.getuid()}")
    try:  # noqa: SIM105 - contextlib would cost this fast path its imports
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    info = os.stat(folder)
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise PermissionError(f"{folder} is not private to this user")
    return folder


def default_data_dir() -> str:
    """The store directory, as `app.paths.default_data_dir` finds it (without platformdirs)."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return os.path.expanduser(override)
    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_DATA_HOME", "").strip()
        base = base or os.path.join(os.path.expanduser("~"), ".local", "share")
        return os.path.join(base, "memory-center", "store")
    _load_site()
    from app.paths import default_data_dir as slow_default

    return str(slow_default())


def code_stamp() -> str:
    """Changes when the hook code changes, so a daemon running old code is replaced."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    stamps = []
    for name in STAMP_FILES:
        try:
            stamps.append(str(os.stat(os.path.join(here, name)).st_mtime_ns))
        except OSError:
            stamps.append("-")
    return ":".join(stamps)


def ask(paths: Paths, agent: str, raw: bytes, timeout: float) -> str | None:
    """The daemon's answer (what to print), or None when it cannot be reached."""
    try:
        with open(paths.token, "rb") as handle:
            token = handle.read().strip()
        conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    except OSError:
        return None
    header = b" ".join([PROTOCOL, token, code_stamp().encode(), agent.encode()]) + b"\n"
    try:
        conn.settimeout(timeout)
        conn.connect(paths.socket)
        conn.sendall(header + raw)
        conn.shutdown(_socket.SHUT_WR)
        reply = _read_all(conn)
    except OSError:
        return None
    finally:
        conn.close()
    status, _, body = reply.partition(b"\n")
    if status != b"OK":
        return None
    return body.decode("utf-8", errors="replace")


def _read_all(conn: _socket.socket, limit: int = MAX_REPLY) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        part = conn.recv(65536)
        if not part:
            break
        chunks.append(part)
        size += len(part)
    return b"".join(chunks)


def spawn_daemon(paths: Paths, idle: float | None = None) -> None:
    """Start the daemon detached (no inherited stdout: the agent waits for its EOF)."""
    import subprocess

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    extra = [] if idle is None else ["--idle", str(idle)]
    subprocess.Popen(
        [sys.executable, "-m", "app.hooks.daemon", "--data-dir", paths.data_dir, *extra],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
        cwd=ROOT,
        env=env,
    )


def _hot_path_seconds() -> float:
    """$MEMORY_CENTER_HOT_PATH_SECONDS, or 0 (unset or not a number: the engine reports it)."""
    try:
        return max(0.0, float(os.environ.get(HOT_PATH_ENV, "") or 0.0))
    except ValueError:
        return 0.0


def via_daemon(paths: Paths, agent: str, raw: bytes, event: str) -> str | None:
    """Ask the daemon, starting it when needed; None when it could not answer."""
    timeout = REPLY_TIMEOUT.get(event, WRITE_REPLY_TIMEOUT)
    start_wait = HOT_WAIT.get(event, WRITE_WAIT)
    if event in HOT_EVENTS:
        hot = _hot_path_seconds()
        timeout, start_wait = max(timeout, hot + 1.5), max(start_wait, 4 * hot)
    answer = ask(paths, agent, raw, timeout)
    if answer is not None:
        return answer
    deadline = time.monotonic() + start_wait
    next_spawn = 0.0
    started = time.time()
    while time.monotonic() < deadline:
        if failed_since(paths, started):
            return None  # the daemon could not open the store: do not wait for it
        if time.monotonic() >= next_spawn:
            # Again every second: a daemon that was just told to make way may still hold
            # the lock when the first new one starts (that one then exits at once).
            spawn_daemon(paths)
            next_spawn = time.monotonic() + 1.0
        time.sleep(0.05)
        if os.path.exists(paths.socket) and os.path.exists(paths.token):
            answer = ask(paths, agent, raw, timeout)
            if answer is not None:
                return answer
    return None


def failed_since(paths: Paths, started: float) -> bool:
    """True when a daemon started after `started` left a note that it could not start."""
    try:
        return os.stat(paths.error).st_mtime >= started - 1
    except OSError:
        return False


def note_missed(paths: Paths, raw: bytes, reason: str) -> None:
    """Leave a note the daemon records as a degraded event when it is up (never raises)."""
    import json

    try:
        doc = json.loads(raw)
    except ValueError:
        doc = {}
    if not isinstance(doc, dict):
        doc = {}
    note = {k: doc.get(k) for k in ("hook_event_name", "session_id", "cwd")}
    note["reason"] = reason
    line = (json.dumps(note) + "\n").encode("utf-8")
    try:
        fd = os.open(paths.missed, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    except OSError:  # best effort: the note is only for the audit trail
        return


def _load_site() -> None:
    """Started with -S for a fast start: add site-packages before importing the engine."""
    if sys.flags.no_site:
        import site

        site.main()
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)


def in_process(data_dir: str, agent: str, raw: bytes) -> str:
    """Run the hook here (slow start, but it works without a daemon)."""
    _load_site()
    from pathlib import Path

    from app.hooks.runner import run_once

    return run_once(Path(data_dir), agent, raw)


def event_name(raw: bytes) -> str:
    """The hook event named in the payload ('' when not found), without a JSON parser."""
    at = raw.find(b'"hook_event_name"')
    if at < 0:
        return ""
    start = raw.find(b'"', raw.find(b":", at + 17) + 1)
    end = raw.find(b'"', start + 1)
    if start < 0 or end < 0:
        return ""
    return raw[start + 1 : end].decode("utf-8", errors="replace")


def _daemon_possible() -> bool:
    """Unix sockets and user ids exist here (not on Windows: the hook runs in process)."""
    return hasattr(_socket, "AF_UNIX") and hasattr(os, "getuid")


def run(agent: str, raw: bytes, data_dir: str | os.PathLike[str] | None = None) -> str:
    """What the hook prints. Never raises."""
    try:
        folder = os.fspath(data_dir) if data_dir is not None else default_data_dir()
        event = event_name(raw)
        paths = _daemon_paths(folder)
        if paths is not None:
            answer = via_daemon(paths, agent, raw, event)
            if answer is not None:
                return answer
            if event in HOT_EVENTS:
                note_missed(paths, raw, "the hook daemon did not answer in time")
                return ""  # the prompt goes on without memory rather than waiting
        return in_process(folder, agent, raw)
    except Exception:  # the agent never breaks because of memory
        return ""


def _daemon_paths(folder: str) -> Paths | None:
    """The daemon's paths, or None: switched off, no Unix sockets, or no private directory
    (someone else owns it): then the hook runs in process."""
    if os.environ.get(DAEMON_ENV, "1") == "0" or not _daemon_possible():
        return None
    try:
        return Paths(folder)
    except OSError:
        return None


def main(argv: list[str] | None = None) -> None:
    """Entry point: `client.py claude-code [--data-dir DIR]`; always exits 0."""
    args = list(sys.argv[1:] if argv is None else argv)
    agent = args[0] if args else "claude-code"
    data_dir = None
    if "--data-dir" in args[:-1]:
        data_dir = os.path.expanduser(args[args.index("--data-dir") + 1])
    raw = sys.stdin.buffer.read()
    out = run(agent, raw, data_dir)
    if out:
        sys.stdout.write(out)
        sys.stdout.flush()
    sys.exit(0)


if __name__ == "__main__":
    main()
