"""Fixtures of the desktop build's tests."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator

import pytest


@pytest.fixture
def xdisplay() -> Iterator[str]:
    """A virtual X display (Xvfb), as on a user's desktop."""
    if not (shutil.which("Xvfb") and shutil.which("xdotool")):
        pytest.skip("needs Xvfb and xdotool (packaging/bootstrap.sh test installs them)")
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        stdout=subprocess.PIPE,
    )
    assert xvfb.stdout is not None
    yield ":" + xvfb.stdout.readline().decode().strip()
    xvfb.terminate()
    xvfb.wait(timeout=30)
    xvfb.stdout.close()
