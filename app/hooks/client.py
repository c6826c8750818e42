"""The hook command Claude Code runs: a thin client of the local hook daemon (R17).

A Python process that imports the engine needs about a second before it can answer (the
imports, the store, the embedding model). A hook that injects must answer within a few
hundred milliseconds, so this module imports only the standard library's basics and asks a
daemon that keeps the store open. The daemon is started on demand, listens on a Unix socket
in a private directory, checks a per-user token (a 0600 file) on every request, and exits
when idle. If it cannot be reached or started, the hook runs in this process instead.

Whatever happens, the command exits 0; it prints only what the model should see.

    python .../app/hooks/client.py claude-code [--data-dir DIR]
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sys
import time
from pathlib import Path

PROTOCOL = 1
DATA_DIR_ENV = "MEMORY_CENTER_DATA_DIR"
DAEMON_ENV = "MEMORY_CENTER_HOOK_DAEMON"  # "0": never use the daemon
HOT_EVENTS = ("UserPromptSubmit", "SessionStart")
HOT_WAIT = {"UserPromptSubmit": 2.5, "SessionStart": 8.0}
"""Seconds a hook that injects may wait for a daemon to start; then it gives no memory."""
WRITE_WAIT = 15.0
REPLY_TIMEOUT = {"UserPromptSubmit": 2.0, "SessionStart": 4.0}
WRITE_REPLY_TIMEOUT = 60.0
MAX_REPLY = 1 << 20
ROOT = Path(__file__).resolve().parents[2]
STAMP_FILES = ("client.py", "daemon.py", "claude_code.py", "workspace.py")


class Paths:
    """Where the daemon of one store keeps its socket, token and lock."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        real = os.path.realpath(data_dir)
        name = hashlib.sha256(real.encode("utf-8")).hexdigest()[:16]
        self.dir = runtime_dir()
        self.socket = self.dir / f"{name}.sock"
        self.token = self.dir / f"{name}.token"
        self.lock = self.dir / f"{name}.lock"
        self.missed = self.dir / f"{name}.missed.jsonl"


def runtime_dir() -> Path:
    """A private directory for sockets ($XDG_RUNTIME_DIR, else the temp dir), made 0700."""
    base = os.environ.get("XDG_RUNTIME_DIR") or os.environ.get("TMPDIR") or "/tmp"
    folder = Path(base) / f"memory-center-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    info = folder.stat()
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise PermissionError(f"{folder} is not private to this user")
    return folder


def default_data_dir() -> Path:
    """The store directory, as `app.paths.default_data_dir` finds it (without platformdirs)."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_DATA_HOME", "").strip() or str(Path.home() / ".local/share")
        return Path(base) / "memory-center" / "store"
    from app.paths import default_data_dir as slow_default

    return slow_default()


def code_stamp() -> str:
    """Changes when the hook code changes, so a daemon running old code is replaced."""
    here = Path(__file__).parent
    stamps = []
    for name in STAMP_FILES:
        try:
            stamps.append(str((here / name).stat().st_mtime_ns))
        except OSError:
            stamps.append("-")
    return ":".join(stamps)


def ask(paths: Paths, agent: str, raw: bytes, timeout: float) -> str | None:
    """The daemon's answer (what to print), or None when it cannot be reached."""
    try:
        token = paths.token.read_text(encoding="ascii").strip()
    except OSError:
        return None
    request = {
        "v": PROTOCOL,
        "token": token,
        "stamp": code_stamp(),
        "agent": agent,
        "payload": raw.decode("utf-8", errors="replace"),
    }
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout)
            conn.connect(str(paths.socket))
            conn.sendall(json.dumps(request).encode("utf-8") + b"\n")
            reply = _read_line(conn)
    except OSError:
        return None
    try:
        doc = json.loads(reply)
    except ValueError:
        return None
    if not isinstance(doc, dict) or not doc.get("ok"):
        return None
    out = doc.get("stdout")
    return out if isinstance(out, str) else ""


def _read_line(conn: socket.socket) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        part = conn.recv(65536)
        if not part:
            break
        chunks.append(part)
        size += len(part)
        if part.endswith(b"\n") or size > MAX_REPLY:
            break
    return b"".join(chunks)


def spawn_daemon(paths: Paths) -> None:
    """Start the daemon detached (no inherited stdout: the agent waits for its EOF)."""
    import subprocess

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    subprocess.Popen(
        [sys.executable, "-m", "app.hooks.daemon", "--data-dir", str(paths.data_dir)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
        cwd=str(ROOT),
        env=env,
    )


def via_daemon(data_dir: Path, agent: str, raw: bytes, event: str) -> str | None:
    """Ask the daemon, starting it when needed; None when it could not answer."""
    paths = Paths(data_dir)
    timeout = REPLY_TIMEOUT.get(event, WRITE_REPLY_TIMEOUT)
    answer = ask(paths, agent, raw, timeout)
    if answer is not None:
        return answer
    deadline = time.monotonic() + HOT_WAIT.get(event, WRITE_WAIT)
    next_spawn = 0.0
    while time.monotonic() < deadline:
        if time.monotonic() >= next_spawn:
            # Again every second: a daemon that was just told to make way may still hold
            # the lock when the first new one starts (that one then exits at once).
            spawn_daemon(paths)
            next_spawn = time.monotonic() + 1.0
        time.sleep(0.05)
        if paths.socket.exists() and paths.token.exists():
            answer = ask(paths, agent, raw, timeout)
            if answer is not None:
                return answer
    return None


def note_missed(paths: Paths, raw: bytes, reason: str) -> None:
    """Leave a note the daemon records as a degraded event when it is up (never raises)."""
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
    except OSError:
        pass


def in_process(data_dir: Path, agent: str, raw: bytes) -> str:
    """Run the hook here (slow start, but it works without a daemon)."""
    if not sys.flags.no_site:
        from app.hooks.runner import run_once
    else:  # started with -S for a fast start: the engine needs site-packages now
        import site

        site.main()
        from app.hooks.runner import run_once

    return run_once(data_dir, agent, raw)


def event_name(raw: bytes) -> str:
    """The hook event named in the payload ('' when unreadable)."""
    try:
        doc = json.loads(raw)
    except ValueError:
        return ""
    name = doc.get("hook_event_name") if isinstance(doc, dict) else None
    return name if isinstance(name, str) else ""


def run(agent: str, raw: bytes, data_dir: Path | None = None) -> str:
    """What the hook prints. Never raises."""
    try:
        folder = data_dir or default_data_dir()
        event = event_name(raw)
        if os.environ.get(DAEMON_ENV, "1") != "0" and hasattr(socket, "AF_UNIX"):
            answer = via_daemon(folder, agent, raw, event)
            if answer is not None:
                return answer
            if event in HOT_EVENTS:
                note_missed(Paths(folder), raw, "the hook daemon did not answer in time")
                return ""  # the prompt goes on without memory rather than waiting
        return in_process(folder, agent, raw)
    except Exception:  # the agent never breaks because of memory
        return ""


def main(argv: list[str] | None = None) -> None:
    """Entry point: `client.py claude-code [--data-dir DIR]`; always exits 0."""
    args = list(sys.argv[1:] if argv is None else argv)
    agent = args[0] if args else "claude-code"
    data_dir = None
    if "--data-dir" in args[:-1]:
        data_dir = Path(args[args.index("--data-dir") + 1]).expanduser()
    raw = sys.stdin.buffer.read()
    out = run(agent, raw, data_dir)
    if out:
        sys.stdout.write(out)
        sys.stdout.flush()
    sys.exit(0)


if __name__ == "__main__":
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    main()
