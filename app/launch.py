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


def main() -> None:
    """Open the window fast, or run the command line."""
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
    from app.paths import default_data_dir

    data_dir, demo = request
    sys.exit(start_gui(data_dir or default_data_dir(), demo=demo))
