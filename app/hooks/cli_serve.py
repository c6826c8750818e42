"""The daemon's side of `app/hooks/cli_forward.py`: run a CLI command on the open store.

The command is the same click command a `memory-center` process would run, given the
daemon's open service instead of opening the store (`app.cli.root.borrowed_service`), with
its standard streams captured. Commands run one at a time: the streams are the process's.
"""

from __future__ import annotations

import io
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from app.hooks.cli_forward import command_of, environment_digest

if TYPE_CHECKING:
    from core import MemoryService

_ONE_AT_A_TIME = threading.Lock()


class Refused(Exception):
    """The request is not run here; the client runs the command itself."""


def run_cli(service: MemoryService, data_dir: Path, payload: bytes) -> bytes:
    """The reply body for one forwarded command: exit code, stdout and stderr."""
    digest, stdin, argv = _parse(payload)
    if digest != environment_digest(os.environ):
        raise Refused("environment")
    found = command_of(argv)  # None for a command off the served list
    if found is None or found[0] is None or not _same_dir(found[0], data_dir):
        raise Refused("command")
    with _ONE_AT_A_TIME:
        code, out, err = _run(service, data_dir, argv, stdin)
    return f"{code} {len(out)} {len(err)}\n".encode() + out + err


def _parse(payload: bytes) -> tuple[bytes, bytes, list[str]]:
    digest, _, rest = payload.partition(b"\0")
    size_text, _, rest = rest.partition(b"\0")
    try:
        size = int(size_text)
    except ValueError:
        raise Refused("malformed") from None
    stdin, args = rest[:size], rest[size:]
    argv = [a.decode("utf-8", "surrogateescape") for a in args.split(b"\0")] if args else []
    return digest, stdin, argv


def _same_dir(named: str, data_dir: Path) -> bool:
    return os.path.realpath(os.path.expanduser(named)) == os.path.realpath(data_dir)


def _run(
    service: MemoryService, data_dir: Path, argv: list[str], stdin: bytes
) -> tuple[int, bytes, bytes]:
    from app.cli import cli
    from app.cli.root import borrowed_service

    out, err = io.BytesIO(), io.BytesIO()
    streams = (sys.stdin, sys.stdout, sys.stderr)
    captured = (
        io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"),
        io.TextIOWrapper(out, encoding="utf-8", errors="surrogateescape"),
        io.TextIOWrapper(err, encoding="utf-8", errors="surrogateescape"),
    )
    sys.stdin, sys.stdout, sys.stderr = captured
    code = 0
    try:
        with borrowed_service(data_dir, service):
            cli.main(args=argv, prog_name="memory-center", standalone_mode=True)
    except SystemExit as exc:
        code = _exit_code(exc.code)
    except Exception as exc:  # a bug in a command: the client shows it, the daemon lives on
        sys.stderr.write(f"error: {type(exc).__name__}: {exc}\n")
        code = 1
    finally:
        sys.stdin, sys.stdout, sys.stderr = streams
        for wrapper in captured:
            wrapper.flush()
            wrapper.detach()  # closing a wrapper would close the buffer it wraps
    return code, out.getvalue(), err.getvalue()


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    sys.stderr.write(f"{code}\n")
    return 1
