"""The daemon's side of the hook queue: recording hooks' payloads, ingested in order (#42).

A recording hook appends `MCQ1 <agent> <length> [<transcript bytes>]` and a newline, the
payload and a newline to the queue file, and returns (`client.enqueue`). `drain` claims the
whole file by renaming it (new calls start a fresh one), waits a moment for a writer that
opened it just before, then hands each payload to the same handler a direct call would
reach, in the order the agent fired them (a tool call's live record before the Stop that
reads the transcript). A claimed file a killed daemon left is drained first by the next
one; a damaged record is skipped up to the next header, so one bad write costs one call,
never the queue.
"""

from __future__ import annotations

import contextlib
import glob
import logging
import os
import time
from collections.abc import Callable, Iterator

from app.hooks.client import Paths

log = logging.getLogger(__name__)
HEADER = b"MCQ1 "
SETTLE = 0.05
"""Seconds to let a writer that opened the queue before it was claimed finish its write."""


Record = tuple[str, bytes, int | None]
"""(agent, payload, the transcript's size when the hook fired, if it named one)."""


def records(data: bytes) -> Iterator[Record]:
    """Every well-formed record, in order; damaged bytes are skipped."""
    at = data.find(HEADER)
    while at >= 0:
        end = data.find(b"\n", at)
        if end < 0:
            return
        parts = data[at + len(HEADER) : end].split(b" ")
        start = end + 1
        numbers = [int(p) for p in parts[1:3] if p.isdigit()]
        size = numbers[0] if len(parts) in (2, 3) and len(numbers) == len(parts) - 1 else -1
        if size >= 0 and data[start + size : start + size + 1] == b"\n":
            bound = numbers[1] if len(numbers) == 2 else None
            yield parts[0].decode("ascii", "replace"), data[start : start + size], bound
            at = data.find(HEADER, start + size + 1)
        else:
            log.warning("hook queue: a damaged record was skipped")
            at = data.find(HEADER, at + 1)


def claimed(paths: Paths) -> list[str]:
    """Queue files claimed before (by a daemon that died while draining), oldest first."""
    found = glob.glob(glob.escape(paths.queue) + ".*.claimed")
    return sorted(found, key=lambda p: (os.stat(p).st_mtime_ns, p))


def drain(paths: Paths, handle: Callable[[str, bytes, int | None], object]) -> int:
    """Claim and ingest everything queued; return how many calls were handled."""
    files = claimed(paths)
    mine = f"{paths.queue}.{os.getpid()}-{time.monotonic_ns()}.claimed"
    with contextlib.suppress(FileNotFoundError):
        os.rename(paths.queue, mine)
        time.sleep(SETTLE)
        files.append(mine)
    count = 0
    for path in files:
        try:
            with open(path, "rb") as handle_file:
                data = handle_file.read()
        except OSError:
            continue
        for agent, payload, bound in records(data):
            try:
                handle(agent, payload, bound)
            except Exception:  # a handler never raises; a bug here must not stop the queue
                log.exception("hook queue: a call could not be ingested")
            count += 1
        with contextlib.suppress(OSError):
            os.unlink(path)
    return count
