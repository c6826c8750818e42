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

Hard deadlines (#42): a hook that only records (PostToolUse, PreCompact, Stop, SessionEnd)
appends its payload to a private append-only queue beside the socket, nudges the daemon
(starting it if needed) and returns at once: the daemon ingests the queue behind, in order,
so a locked store or a 200 MB transcript never holds the agent. A hook that injects
(SessionStart, UserPromptSubmit) waits at most `HOT_DEADLINE` seconds in all (connecting,
starting a daemon, the answer), then goes on without memory. When the store cannot be
opened (no passphrase in the agent's environment, say), the reason is shown once per session
through Claude Code's `systemMessage`.

Whatever happens, the command exits 0; it prints only what the agent should see.

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
DEADLINE_ENV = "MEMORY_CENTER_HOOK_DEADLINE"  # seconds; tests on a busy machine raise it
HOT_EVENTS = ("UserPromptSubmit", "SessionStart")
HOT_DEADLINE = 0.8
"""Seconds in all a hook that injects may spend on memory (Claude Code allows far more, but
the user waits for it): then the prompt goes on without memory."""
MAX_START = 10.0
"""Seconds a start may have taken before the hook's code ran; more is a clock mismatch."""
QUEUE_AGENT = "queue"  # the request that only tells the daemon its queue has grown
KICK_TIMEOUT = 0.3
MAX_QUEUE = 64 << 20
"""Bytes the queue may hold (it lives in memory-backed runtime storage); beyond, a call is
noted as missed instead: the transcript itself is still read at the next Stop."""
RETRY_AFTER_ERROR = 30.0
"""Seconds after a daemon failed to open the store before a hook starts another."""
STALE_ERROR = 120.0
"""Seconds a daemon's note that it could not open the store is believed: a hook started a
new daemon since (see RETRY_AFTER_ERROR), which refreshes the note if it fails again."""
MAX_REPLY = 1 << 20
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STAMP_FILES = (
    "hooks/client.py",
    "hooks/daemon.py",
    "hooks/claude_code.py",
    "hooks/workspace.py",
    "hooks/runner.py",
    "hooks/ingest.py",
    "capture/follow.py",
    "capture/claude_code.py",
    "capture/history.py",
    "importers/base.py",
    "importers/claude_code.py",
    "importers/extraction.py",
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
        self.error_kind = os.path.join(self.dir, f"{name}.error-kind")
        self.queue = os.path.join(self.dir, f"{name}.queue")
        self.told = os.path.join(self.dir, f"{name}.told")


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


MAIN_PROGRAM = "memory-center"
HOOK_PROGRAM = "memory-center-hook"
"""The desktop build's hook command: this client alone, frozen (packaging/hook_entry.py),
beside the main program."""


def _beside(own: str, other: str) -> str | None:
    """In the desktop build, when this process is the program `own`, the program `other`
    in the same folder (with the same suffix: `.exe` on Windows); None elsewhere."""
    if not getattr(sys, "frozen", False):
        return None
    folder, name = os.path.split(sys.executable)
    stem, suffix = os.path.splitext(name)
    return os.path.join(folder, other + suffix) if stem == own else None


def main_program() -> str | None:
    """In the desktop build's hook command, the main program beside it, which runs the
    daemon and the in-process fallback (this program has no engine); None elsewhere."""
    return _beside(HOOK_PROGRAM, MAIN_PROGRAM)


def hook_program() -> str | None:
    """In the desktop build's main program, the hook program beside it; None elsewhere."""
    return _beside(MAIN_PROGRAM, HOOK_PROGRAM)


def code_stamp() -> str:
    """Changes when the hook code changes, so a daemon running old code is replaced. In the
    desktop build, whose modules are not files, the main program's file is the code."""
    if getattr(sys, "frozen", False):
        try:
            return "frozen:" + str(os.stat(main_program() or sys.executable).st_mtime_ns)
        except OSError:
            return "frozen:-"
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


def daemon_command(data_dir: str, idle: float | None = None) -> list[str]:
    """The command that runs the daemon. In the desktop build (`sys.frozen`) the program is
    `memory-center` itself, which takes its own arguments, not Python's `-m`."""
    extra = [] if idle is None else ["--idle", str(idle)]
    if getattr(sys, "frozen", False):
        program = main_program() or sys.executable
        return [program, "--data-dir", data_dir, "daemon", "serve", *extra]
    return [sys.executable, "-m", "app.hooks.daemon", "--data-dir", data_dir, *extra]


def spawn_daemon(paths: Paths, idle: float | None = None) -> None:
    """Start the daemon detached (no inherited stdout: the agent waits for its EOF)."""
    import subprocess

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    subprocess.Popen(
        daemon_command(paths.data_dir, idle),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
        cwd=ROOT,
        env=env,
    )


def via_daemon(paths: Paths, agent: str, raw: bytes, budget: float) -> str | None:
    """Ask the daemon, starting it when needed, all within `budget` seconds; None when it
    could not answer in time."""
    end = time.monotonic() + budget
    answer = ask(paths, agent, raw, max(0.05, end - time.monotonic()))
    if answer is not None:
        return answer
    if failed_since(paths, time.time() - RETRY_AFTER_ERROR):
        return None  # a daemon just failed to open the store: do not spend the deadline
    next_spawn = 0.0
    started = time.time()
    while time.monotonic() < end:
        if failed_since(paths, started):
            return None  # the daemon could not open the store: do not wait for it
        if time.monotonic() >= next_spawn:
            # Again every second: a daemon that was just told to make way may still hold
            # the lock when the first new one starts (that one then exits at once).
            spawn_daemon(paths)
            next_spawn = time.monotonic() + 1.0
        time.sleep(0.05)
        if os.path.exists(paths.socket) and os.path.exists(paths.token):
            answer = ask(paths, agent, raw, max(0.05, end - time.monotonic()))
            if answer is not None:
                return answer
    return None


def enqueue(paths: Paths, agent: str, raw: bytes) -> bool:
    """Append the call to the daemon's queue (one write, private file); False when the
    queue is full or cannot be written.

    The record carries the transcript's size at this moment: ingested later, a Stop reads
    the transcript only as far as it reached when the hook fired, so lines of later turns
    wait for their own Stop (after their tool calls' live records)."""
    head = b"MCQ1 " + agent.encode("ascii", "replace") + b" %d" % len(raw)
    size = transcript_size(raw)
    if size is not None:
        head += b" %d" % size
    record = head + b"\n" + raw + b"\n"
    try:
        if _size(paths.queue) + len(record) > MAX_QUEUE:
            return False
        fd = os.open(paths.queue, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            written = os.write(fd, record)
        finally:
            os.close(fd)
    except OSError:
        return False
    return written == len(record)


def transcript_size(raw: bytes) -> int | None:
    """The size of the transcript the payload names, now (None without one)."""
    path = field(raw, "transcript_path")
    if not path or "\\" in path:
        return None  # an escaped path is not read here; the Stop then reads to the end
    try:
        return os.stat(path).st_size
    except OSError:
        return None


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def kick(paths: Paths) -> None:
    """Tell the daemon its queue grew; start one when none answers (not again and again
    while the last one could not open the store)."""
    if ask(paths, QUEUE_AGENT, b"", KICK_TIMEOUT) is not None:
        return
    if failed_since(paths, time.time() - RETRY_AFTER_ERROR):
        return
    spawn_daemon(paths)


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
    program = main_program()
    if program is not None:
        return _in_main_program(program, data_dir, agent, raw)
    _load_site()
    from pathlib import Path

    from app.hooks.runner import run_once

    return run_once(Path(data_dir), agent, raw, lambda k, m: note_failure(data_dir, k, m))


def _in_main_program(program: str, data_dir: str, agent: str, raw: bytes) -> str:
    """The desktop build's hook command has no engine: the main program runs the hook in
    its own process, with the daemon switched off (none could be used here either)."""
    import subprocess

    env = dict(os.environ)
    env[DAEMON_ENV] = "0"
    done = subprocess.run(
        [program, "--data-dir", data_dir, "hook", agent],
        input=raw,
        capture_output=True,
        env=env,
        check=False,
    )
    return done.stdout.decode("utf-8", "replace")


def note_failure(data_dir: str, kind: str | None, message: str | None) -> None:
    """Leave (or, once the store opened, remove) the note the daemon leaves when it cannot
    open the store, so Settings and `hook status` say why also when the hook ran in this
    process (no daemon: switched off, or no Unix sockets). Best effort."""
    try:
        paths = Paths(data_dir)
        if kind is None or message is None:
            for note in (paths.error, paths.error_kind):
                if os.path.exists(note):
                    os.unlink(note)
            return
        write_private(paths.error_kind, kind)
        write_private(paths.error, message)
    except (OSError, AttributeError):  # no private runtime folder (or no user ids: Windows)
        return


def write_private(path: str, text: str) -> None:
    """Write a 0600 file atomically."""
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)
    os.replace(tmp, path)


def event_name(raw: bytes) -> str:
    """The hook event named in the payload ('' when not found), without a JSON parser."""
    return field(raw, "hook_event_name")


def field(raw: bytes, name: str) -> str:
    """A top-level string field of the payload, found without a JSON parser ('' when not
    found; an escaped quote ends it early, which only costs a less precise value)."""
    key = b'"' + name.encode("ascii") + b'"'
    at = raw.find(key)
    if at < 0:
        return ""
    start = raw.find(b'"', raw.find(b":", at + len(key)) + 1)
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
        if paths is None:
            return in_process(folder, agent, raw)
        if event not in HOT_EVENTS:
            if enqueue(paths, agent, raw):
                kick(paths)
            else:
                note_missed(paths, raw, "the hook queue is full")
            return notice(paths, raw)
        # The deadline counts from the start of this process: the desktop build's program
        # spends a few hundred milliseconds starting before it gets here (#42).
        answer = via_daemon(paths, agent, raw, max(0.05, deadline() - since_start()))
        if answer is not None:
            return answer
        note_missed(paths, raw, "the hook daemon did not answer in time")
        return notice(paths, raw)  # the prompt goes on without memory rather than waiting
    except Exception:  # the agent never breaks because of memory
        return ""


def deadline() -> float:
    """The injecting hooks' budget in seconds ($MEMORY_CENTER_HOOK_DEADLINE, else 0.8)."""
    try:
        value = float(os.environ.get(DEADLINE_ENV, HOT_DEADLINE))
    except ValueError:
        return HOT_DEADLINE
    return value if 0 < value < 600 else HOT_DEADLINE


def last_failure(data_dir: str | os.PathLike[str]) -> tuple[str, str, float] | None:
    """(reason, error kind, when as a Unix time) of the last time a hook daemon could not
    open the store at `data_dir`; None when none failed since one last opened it."""
    try:
        paths = Paths(data_dir)
        when = os.stat(paths.error).st_mtime
        with open(paths.error, encoding="utf-8", errors="replace") as handle:
            reason = handle.read().strip()
    except OSError:
        return None
    try:
        with open(paths.error_kind, encoding="utf-8", errors="replace") as handle:
            kind = handle.read().strip()
    except OSError:
        kind = "error"  # a note from before kinds were written
    return reason, kind, when


def since_start() -> float:
    """Seconds since this process started, from Linux's /proc and the boot-time clock they
    share; 0.0 where they cannot be read or disagree (a value beyond any start is not
    believed: better the whole deadline than none)."""
    try:
        with open("/proc/self/stat", "rb") as handle:
            stat = handle.read()
        # Fields after the command name (which may hold spaces); starttime is field 22.
        ticks = int(stat[stat.rindex(b")") + 2 :].split()[19])
        elapsed = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0
    return elapsed if 0.0 <= elapsed < MAX_START else 0.0


def notice(paths: Paths, raw: bytes) -> str:
    """Once per session, why memory is off: Claude Code shows `systemMessage` to the user.
    "" when the store opens, or when this session was told already."""
    if not failed_since(paths, time.time() - STALE_ERROR):
        return ""  # no note, or an old one: a daemon started since may well have opened it
    try:
        with open(paths.error, encoding="utf-8", errors="replace") as handle:
            reason = handle.read().strip()[:400]
    except OSError:
        return ""
    session = field(raw, "session_id") or "-"
    key = sha256(session.encode("utf-8", "replace")).hexdigest()[:24]
    try:
        with open(paths.told, encoding="ascii", errors="replace") as handle:
            if key in handle.read().split():
                return ""
    except OSError:
        pass
    try:
        fd = os.open(paths.told, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, key.encode("ascii") + b"\n")
        finally:
            os.close(fd)
    except OSError:
        return ""  # cannot remember having told: better silent than told at every call
    text = f"Memory Center is off for this session: {reason}"
    return '{"systemMessage": "' + json_text(text) + '"}'


def json_text(text: str) -> str:
    """`text` as the inside of a JSON string (without the json module: it is slow to load)."""
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif ord(char) < 0x20 or 0xD800 <= ord(char) < 0xE000:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return "".join(out)


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
