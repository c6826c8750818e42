"""The app-side helpers of the desktop's Settings: the command that opens another store's
window, and joining with a file that is not an invitation (#12)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.gui_connectors import join_store, open_store_command
from core import InvalidInputError

ROOT = Path(__file__).resolve().parents[2]


def test_open_store_command_reaches_the_entry_point(tmp_path: Path) -> None:
    """The command without its trailing `gui` is the ordinary command line: --version works
    from any working directory."""
    command = open_store_command(tmp_path / "team")
    assert command[-3:] == ["--data-dir", str(tmp_path / "team"), "gui"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [*command[:-3], "--version"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()
    assert command[0] == sys.executable


def test_join_with_a_file_that_is_not_an_invitation_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError):
        join_store(tmp_path / "team", b"not an invitation", "AAAAA-BBBBB", "a passphrase")
    assert not (tmp_path / "team").exists() or not any((tmp_path / "team").iterdir())
