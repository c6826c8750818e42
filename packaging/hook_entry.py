"""Entry point of the desktop build's hook command, `memory-center-hook` (#42).

Claude Code runs the hook command for every event and waits for it. The main program takes
0.2-0.4 s to start (its interpreter, PyInstaller's runtime hooks for Qt and the rest) before
the client's code runs; this program is the client alone, which imports only built-in
modules: it asks the store's daemon (which the main program runs) and returns.
"""

from app.hooks.client import main

if __name__ == "__main__":
    main()
