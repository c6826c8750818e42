"""`memory-center` commands answered by the store's running daemon (#13, R17).

A command that opens the store spends most of a second importing the engine and unlocking
the key before it does a millisecond of work; an agent or script that calls the CLI every
turn pays that each time. When the store's local daemon is running (started by the hooks,
or by `memory-center daemon start`), the entry point hands the common per-turn commands to
it over the daemon's private Unix socket instead, so the process imports only built-in
modules. Everything else, and every command when no daemon answers, runs as before.

The daemon runs the same click command against the store it keeps open and returns its
exit code, stdout and stderr unchanged. It refuses (and the command then runs here) when
this process's `MEMORY_CENTER_*` environment differs from the one it was started with, so
a different passphrase, embedder or database gives exactly the answer it would locally.

Wire format, after the daemon's header line (`MC2 <token> <stamp> cli`):
`<environment digest> NUL <stdin bytes length> NUL <stdin bytes> <arg> NUL <arg> ...`;
the reply body is `<exit code> <stdout length> <stderr length>` and a newline, then the
bytes of both streams.
"""

from __future__ import annotations

import _socket
import io
import os
import sys

try:
    from _sha256 import sha256
except ImportError:  # pragma: no cover - builds without the built-in module
    from hashlib import sha256

from app.hooks.client import (
    DAEMON_ENV,
    PROTOCOL,
    Paths,
    _daemon_possible,
    _read_all,
    code_stamp,
    default_data_dir,
)

CLI_DAEMON_ENV = "MEMORY_CENTER_CLI_DAEMON"  # "0": never hand a command to the daemon
AGENT = "cli"
GROUPS = ("event", "memory", "candidates")
# Commands the daemon may answer: (verb, sub-command of a group or "").
READS = frozenset(
    {
        ("status", ""),
        ("verify", ""),
        ("search", ""),
        ("event", "list"),
        ("memory", "list"),
        ("memory", "show"),
        ("candidates", "list"),
    }
)
"""Read-only: when the daemon fails after the request was sent, they run again here."""
WRITES = frozenset(
    {
        ("inject", ""),
        ("remember", ""),
        ("event", "add"),
        ("candidates", "approve"),
        ("candidates", "reject"),
    }
)
"""They change the store (inject records its snapshot): never run twice."""
LOCAL_FLAGS = ("--help", "-h", "--version")
# Variables that choose where the daemon lives or whether it is used, not how a command runs.
NOT_FINGERPRINTED = (
    "MEMORY_CENTER_DATA_DIR",
    DAEMON_ENV,
    CLI_DAEMON_ENV,
    "MEMORY_CENTER_HOOK_IDLE",
)
CONNECT_TIMEOUT = 1.0


def environment_digest(environ: dict[str, str] | os._Environ[str]) -> bytes:
    """A digest of the `MEMORY_CENTER_*` settings (and keyring choice) a command runs under."""
    lines = sorted(
        f"{key}={value}"
        for key, value in environ.items()
        if (key.startswith("MEMORY_CENTER_") and key not in NOT_FINGERPRINTED)
        or key == "PYTHON_KEYRING_BACKEND"
    )
    digest: str = sha256("\n".join(lines).encode("utf-8", "surrogateescape")).hexdigest()
    return digest.encode("ascii")


def command_of(argv: list[str]) -> tuple[str | None, str, str] | None:
    """(the leading `--data-dir` value or None, verb, sub-command) when the daemon may run
    `argv`; None when it must run here."""
    data_dir: str | None = None
    index = 0
    while index < len(argv):
        word = argv[index]
        if word == "--json":
            index += 1
        elif word == "--data-dir" and index + 1 < len(argv):
            data_dir = argv[index + 1]
            index += 2
        elif word.startswith("--data-dir="):
            data_dir = word.partition("=")[2]
            index += 1
        else:
            break
    rest = argv[index:]
    if not rest or any(a in LOCAL_FLAGS or a.startswith("--data-dir") for a in rest):
        return None  # help is formatted for this terminal; a second store choice is local
    verb = rest[0]
    sub = rest[1] if verb in GROUPS and len(rest) > 1 else ""
    if (verb, sub) not in READS and (verb, sub) not in WRITES:
        return None
    return data_dir, verb, sub


def store_folder(given: str | None) -> str:
    """The store a command names with a leading `--data-dir` (`command_of`), else the
    default one."""
    return os.path.expanduser(given) if given else default_data_dir()


def forward(argv: list[str]) -> int | None:
    """Run `argv` through the store's daemon: its exit code after its output is written
    here, or None when the command must run in this process (nothing was done)."""
    if os.environ.get(CLI_DAEMON_ENV, "1") == "0" or not _daemon_possible():
        return None
    found = command_of(argv)
    if found is None:
        return None
    data_dir, verb, sub = found
    try:
        folder = store_folder(data_dir)
        paths = Paths(folder)
        with open(paths.token, "rb") as handle:
            token = handle.read().strip()
    except OSError:
        return None  # no daemon for this store
    stdin = b""
    if (verb, sub) == ("event", "add") and "--text" not in argv:
        stdin = sys.stdin.buffer.read()  # the JSON payload the command reads
    reply = _ask(paths, token, _request(folder, argv, stdin))
    if reply == b"":
        _give_back(stdin)  # refused before running: another environment, newer code
        return None
    code = None if reply is None else _write_reply(reply)
    if code is not None:
        return code
    if (verb, sub) in READS:
        _give_back(stdin)
        return None
    sys.stderr.write(
        "error: the memory-center daemon stopped answering during the command; "
        "check with `memory-center status` whether it was done\n"
    )
    return 1


def _give_back(stdin: bytes) -> None:
    """The command runs in this process after all: give it back the stdin read for it."""
    if stdin:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")


def _request(folder: str, argv: list[str], stdin: bytes) -> bytes:
    # The store is named explicitly, so the daemon never acts on another one.
    words = ["--data-dir", folder, *argv]
    args = b"\0".join(w.encode("utf-8", "surrogateescape") for w in words)
    size = str(len(stdin)).encode()
    return environment_digest(os.environ) + b"\0" + size + b"\0" + stdin + args


def _ask(paths: Paths, token: bytes, body: bytes) -> bytes | None:
    """The reply body; b"" when the daemon refused without running the command; None when
    the daemon could not be reached (refused) or failed after the request was sent."""
    header = b" ".join([PROTOCOL, token, code_stamp().encode(), AGENT.encode()]) + b"\n"
    try:
        conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    except OSError:
        return b""
    try:
        conn.settimeout(CONNECT_TIMEOUT)
        try:
            conn.connect(paths.socket)
        except OSError:
            return b""  # no daemon listening: nothing was sent
        conn.settimeout(None)  # the command takes as long as it takes (verify, a big inject)
        conn.sendall(header + body)
        conn.shutdown(_socket.SHUT_WR)
        reply = _read_all(conn, limit=1 << 30)
    except OSError:
        return None
    finally:
        conn.close()
    status, _, rest = reply.partition(b"\n")
    if status == b"OK":
        return rest
    if status.startswith(b"ERR"):
        return b""  # bad token, other user, other environment, newer code: not run
    return None


def _write_reply(reply: bytes) -> int | None:
    """Write the command's output here; its exit code, or None for a malformed reply."""
    head, _, streams = reply.partition(b"\n")
    try:
        code, out_size, err_size = (int(part) for part in head.split(b" "))
    except ValueError:
        return None
    if len(streams) != out_size + err_size:
        return None
    sys.stdout.buffer.write(streams[:out_size])
    sys.stdout.flush()
    sys.stderr.buffer.write(streams[out_size : out_size + err_size])
    sys.stderr.flush()
    return code
