"""Helpers for the hook tests: run the real hook process, stop the daemon it started."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from app.hooks.client import Paths
from tests.conftest import PASSPHRASE

REPO_ROOT = Path(__file__).resolve().parents[2]
SESSIONS = REPO_ROOT / "examples" / "ab_sessions"
CLI = [sys.executable, "-c", "from app.cli import main; main()"]


def hook_env(runtime: Path, *, daemon: bool) -> dict[str, str]:
    """The environment a hook process gets: the passphrase, a private runtime dir."""
    env = dict(os.environ)
    env.update(
        {
            "MEMORY_CENTER_PASSPHRASE": PASSPHRASE,
            "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
            "XDG_RUNTIME_DIR": str(runtime),
            "MEMORY_CENTER_HOOK_DAEMON": "1" if daemon else "0",
            "MEMORY_CENTER_HOOK_IDLE": "60",
            "MEMORY_CENTER_EMBEDDER": "hashing",
            # Generous: these tests are about what a hook does, not how fast (#38).
            "MEMORY_CENTER_HOOK_DEADLINE": "60",
            # Hook tests are about what a hook answers, not about its time limit: a loaded
            # machine must not turn their answers into "no memory" (#38).
            "MEMORY_CENTER_HOT_PATH_SECONDS": "10",
        }
    )
    return env


def run_cli_hook(
    data_dir: Path, payload: Any, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """`memory-center hook claude-code` with `payload` (an object, or raw text) on stdin."""
    text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    return subprocess.run(
        [*CLI, "--data-dir", str(data_dir), "hook", "claude-code"],
        input=text,
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO_ROOT,
        timeout=120,
    )


def trust_folder(data_dir: Path, folder: Path) -> None:
    """`memory-center hook trust --folder FOLDER`, as the user confirms that a folder is the
    project it names (a folder naming a project the store already holds is kept apart)."""
    from click.testing import CliRunner

    from app.cli import cli

    done = CliRunner().invoke(
        cli,
        ["--data-dir", str(data_dir), "hook", "trust", "--folder", str(folder)],
        env={"MEMORY_CENTER_PASSPHRASE": PASSPHRASE},
    )
    assert done.exit_code == 0, done.output


def run_client_hook(
    data_dir: Path, payload: Any, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """The command `hook install` writes (the thin client, started with -S)."""
    text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    client = REPO_ROOT / "app" / "hooks" / "client.py"
    return subprocess.run(
        [sys.executable, "-S", str(client), "claude-code", "--data-dir", str(data_dir)],
        input=text,
        capture_output=True,
        text=True,
        env=env,
        cwd="/",
        timeout=120,
    )


def stop_daemon(data_dir: Path, runtime: Path) -> None:
    """Stop the daemon serving `data_dir` (it writes its pid into its lock file)."""
    old = os.environ.get("XDG_RUNTIME_DIR")
    os.environ["XDG_RUNTIME_DIR"] = str(runtime)
    try:
        paths = Paths(data_dir)
    finally:
        if old is None:
            del os.environ["XDG_RUNTIME_DIR"]
        else:
            os.environ["XDG_RUNTIME_DIR"] = old
    with contextlib.suppress(OSError, ValueError):
        pid = int(Path(paths.lock).read_text().strip() or "0")
        if pid:
            os.kill(pid, signal.SIGTERM)
            for _ in range(100):
                os.kill(pid, 0)
                time.sleep(0.05)
