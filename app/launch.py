"""The `memory-center` entry point: the desktop window starts before the engine is imported.

`memory-center` and `memory-center gui` (with `--demo`, `--data-dir DIR`) open the window at
once and load everything else behind a progress state; the common per-turn commands go to
the store's daemon when one is running (`app/hooks/cli_forward.py`), else run in this
process as one-shot commands (`app/one_shot.py`); every other command goes to the command
line, the package `app.cli`.
"""

from __future__ import annotations

import sys
from pathlib import Path


def gui_request(argv: list[str]) -> tuple[Path | None, bool] | None:
    """(data dir or None, demo) when `argv` only asks for the window; None otherwise."""
    data_dir: Path | None = None
    demo = False
    words = list(argv)
    seen_gui = False
    while words:
        word = words.pop(0)
        if word == "--data-dir" and words:
            data_dir = Path(words.pop(0)).expanduser()
        elif word.startswith("--data-dir="):
            data_dir = Path(word.partition("=")[2]).expanduser()
        elif word == "gui" and not seen_gui:
            seen_gui = True
        elif word == "--demo" and seen_gui:
            demo = True
        else:
            return None
    return data_dir, demo


HOOK_AGENTS = ("claude-code",)


def hook_request(argv: list[str]) -> tuple[str | None, str] | None:
    """(data dir or None, agent) when `argv` is exactly the hook command `hook install`
    writes for the desktop build (`[--data-dir DIR] hook AGENT`); None otherwise."""
    words = list(argv)
    data_dir: str | None = None
    if len(words) >= 2 and words[0] == "--data-dir":
        data_dir = words[1]
        words = words[2:]
    elif words and words[0].startswith("--data-dir="):
        data_dir = words[0].partition("=")[2]
        words = words[1:]
    if len(words) != 2 or words[0] != "hook" or words[1] not in HOOK_AGENTS:
        return None
    return data_dir, words[1]


def main() -> None:
    """Open the window fast, run a hook, or run the command line."""
    hook = hook_request(sys.argv[1:])
    if hook is not None:
        # The agent waits for every hook: the thin client imports only built-in modules,
        # where the command line would first import click and the engine's models (#42).
        from app.hooks.client import main as hook_main

        folder, agent = hook
        hook_main([agent] + (["--data-dir", folder] if folder is not None else []))
        return
    request = gui_request(sys.argv[1:])
    if request is None:
        from app.hooks.cli_forward import command_of, forward, store_folder

        code = forward(sys.argv[1:])
        if code is not None:
            sys.exit(code)
        from app.cli import main as cli_main

        per_turn = command_of(sys.argv[1:])
        if per_turn is not None:
            from app.one_shot import run

            run(cli_main, Path(store_folder(per_turn[0])))
        cli_main()
        return
    from app.gui_start import start_gui
    from app.one_shot import end_process
    from app.paths import default_data_dir

    data_dir, demo = request
    # The window closed its store and waited for its writes: nothing is left to free.
    end_process(start_gui(data_dir or default_data_dir(), demo=demo))
