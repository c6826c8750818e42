"""A per-turn command run in a process of its own (#13): what its start and end need not cost.

A hook or a script that calls `memory-center status`, `inject`, `remember` ... every turn
pays a whole process each time, and most of it was neither the command nor the store. Three
costs are avoided without changing what the command does:

- The passphrase's scrypt derivation (~0.09 s) starts in a thread before the engine is
  imported (`core.crypto.keys.derive_ahead`). scrypt releases the GIL, so it runs on another
  core while the imports proceed, and the open takes its result.
- Garbage collection is off while the modules are imported and the store opens (~0.03 s):
  those objects live as long as the process, and collecting cycles among them finds none.
  As soon as the store is open (`settled`), they are frozen out of the collector and it is
  switched on again for the command itself.
- The interpreter's teardown (~0.04 s; `end_process`): once the command has closed its
  store, the exit handlers have run and both streams are flushed, the process ends with
  `os._exit`, which skips freeing module by module what the OS frees at once. When a
  thread the command started is still running, the process exits the ordinary way instead,
  which waits for it.

Only the commands the store's daemon could also answer (`app.hooks.cli_forward.command_of`)
run this way; they open the store through `app.compose.open_service`, which calls `settled`.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from app.paths import passphrase_from_env

# True while this module holds the collector off for a command's start.
_paused = False


def run(command: Callable[[], None], data_dir: Path) -> NoReturn:
    """Run `command` (the click entry point) as a one-shot process for the store at
    `data_dir`, and end the process with the command's exit code."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True
    passphrase = passphrase_from_env()
    if passphrase:
        from core.crypto.keys import KEY_FILE_NAME, derive_ahead

        derive_ahead(data_dir / KEY_FILE_NAME, passphrase)
    try:
        command()
    except SystemExit as exc:
        code = _exit_code(exc.code)
    else:
        code = 0
    finally:
        settled()
    end_process(code)


def settled() -> None:
    """The process has imported what it needs and opened its store: give the collector
    back, with everything alive now frozen out of its scans. A no-op unless `run` held
    it off."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()


def _exit_code(code: object) -> int:
    """What the interpreter would make of `sys.exit(code)`: a message is printed, and 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def end_process(code: int) -> NoReturn:
    """End the process with `code` without the interpreter's teardown, once everything that
    must be saved is saved (the store closed, exit handlers run, streams flushed). Also the
    desktop's end: at 100k memories freeing the catalog, the model and the window's objects
    one by one was 0.2-0.3 s of a quit the user waits for (#43)."""
    if any(not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        sys.exit(code)  # the ordinary exit waits for the command's own threads
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            # A reader that went away (`| head`): what the interpreter's exit does.
            code = code or 120
    os._exit(code)
