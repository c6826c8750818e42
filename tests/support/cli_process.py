"""The environment of a `memory-center` process the tests start from this checkout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def checkout_env(store: Path, passphrase: str, **extra: str) -> dict[str, str]:
    """This process's environment for a command on `store`: the checkout on the path, the
    store key behind `passphrase` (never the OS keyring), plus `extra`."""
    env = dict(os.environ)
    env.update(
        PYTHONPATH=str(REPO_ROOT),
        MEMORY_CENTER_DATA_DIR=str(store),
        MEMORY_CENTER_PASSPHRASE=passphrase,
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
        **extra,
    )
    return env


def run_python(code: str, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`python -c code args...` from the checkout, no stdin, its output captured as text."""
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        env=env,
        cwd=REPO_ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
