"""A writer process for the server-outage test: appends N events, one at a time, to a store
on a server, then flushes its spool until nothing waits.

Usage: python -m tests.support.spool_writer DATA_DIR COUNT NAME
Prints one line per write ("ok i" or "spooled i") and at the end "flushed WAITING".
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from core import MemoryService, NewEvent, WriteSpooledError

PASSPHRASE = "test passphrase for memory center"


def main() -> None:
    data_dir, count, name = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    service = MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, create=False
    )
    for i in range(count):
        item = NewEvent(
            session=f"writer-{name}",
            actor="user",
            trust="user",
            scope={"user": "ann"},
            text=f"{name}-{i}",
        )
        try:
            service.events.append_event(item)
            print("ok", i, flush=True)
        except WriteSpooledError:
            print("spooled", i, flush=True)
        time.sleep(float(os.environ.get("SPOOL_WRITER_PAUSE", "0.02")))
    deadline = time.monotonic() + 60
    waiting = service.commands.status().waiting
    while waiting and time.monotonic() < deadline:
        waiting = service.commands.flush().waiting
        if waiting:
            time.sleep(0.5)
    print("flushed", waiting, flush=True)
    service.close()


if __name__ == "__main__":
    main()
