"""No module in core, app or ui is over 600 lines (#39): past that a file holds more than one
idea, and its split should follow a seam, not wait for the next reader."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MOST_LINES = 600


def test_no_module_over_600_lines() -> None:
    long = {}
    for package in ("core", "app", "ui"):
        for path in sorted((ROOT / package).rglob("*.py")):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > MOST_LINES:
                long[str(path.relative_to(ROOT))] = lines
    assert not long, f"modules over {MOST_LINES} lines: {long}"
