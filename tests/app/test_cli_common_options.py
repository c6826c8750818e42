"""`--json` and `--data-dir` are accepted at every level of the command line (#14)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import click
import keyring
import pytest
from click.testing import CliRunner
from keyring.backends import fail

from app.cli import cli
from tests.conftest import PASSPHRASE


@pytest.fixture(autouse=True)
def _no_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    monkeypatch.setenv("MEMORY_CENTER_PASSPHRASE", PASSPHRASE)
    yield
    keyring.set_keyring(previous)


def _run(*args: str) -> click.testing.Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_json_and_data_dir_after_the_verb(tmp_path: Path) -> None:
    """`memory list --json --data-dir D` works like `--json --data-dir D memory list`."""
    store = str(tmp_path / "s")
    assert _run("--data-dir", store, "init").exit_code == 0
    added = _run(
        "remember",
        "--scope",
        "user=ann",
        "--text",
        "Ann drinks green tea",
        "--data-dir",
        store,
        "--json",
    )
    assert added.exit_code == 0, added.output
    assert "Ann drinks green tea" in added.output and json.loads(added.output)
    late = _run("memory", "list", "--json", "--data-dir", store)
    early = _run("--json", "--data-dir", store, "memory", "list")
    assert late.exit_code == 0, late.output
    assert json.loads(late.output) == json.loads(early.output)
    assert [m["content"] for m in json.loads(late.output)] == ["Ann drinks green tea"]
    # On a group in the middle too.
    middle = _run("memory", "--json", "list", "--data-dir", store)
    assert middle.exit_code == 0, middle.output
    assert json.loads(middle.output) == json.loads(late.output)


def test_json_errors_at_the_verb_level(tmp_path: Path) -> None:
    """A failure with `--json` after the verb is a JSON error and exit code 1, nothing written."""
    missing = tmp_path / "nowhere"
    result = _run("status", "--json", "--data-dir", str(missing))
    assert result.exit_code == 1
    first = result.output.splitlines()[0]
    assert json.loads(first)["error"]["kind"] == "unavailable"
    assert not missing.exists()


def test_every_command_lists_the_options() -> None:
    """Help of a nested command shows both options."""
    result = _run("memory", "list", "--help")
    assert "--json" in result.output and "--data-dir" in result.output
