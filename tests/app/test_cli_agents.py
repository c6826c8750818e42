"""`memory-center agent list|pause|resume` (#14): the agent pause from the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from app.cli import cli
from tests.conftest import PASSPHRASE

SCOPE = ["--scope", "user=alice"]


@pytest.fixture
def run(tmp_path: Path) -> Any:
    env = {"MEMORY_CENTER_PASSPHRASE": PASSPHRASE, "MEMORY_CENTER_DATA_DIR": str(tmp_path / "s")}
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(cli, list(args), env=env, catch_exceptions=False)

    assert invoke("init").exit_code == 0
    assert invoke("remember", *SCOPE, "--text", "I take the 7:40 train to work").exit_code == 0
    return invoke


def _inject(run: Any, session: str) -> Any:
    result = run("inject", *SCOPE, "--session", session, "--json", "when is my train")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_pause_list_resume(run: Any) -> None:
    assert _inject(run, "codex:monday")["result"]["items"]
    paused = run("agent", "pause", "codex")
    assert paused.exit_code == 0 and "codex paused" in paused.stdout
    doc = _inject(run, "codex:tuesday")  # a session the pause did not know about
    assert doc["result"]["items"] == []
    assert [d["reason"] for d in doc["snapshot"]["dropped"]] == ["agent codex is paused"]
    assert _inject(run, "mcp-20260302-1")["result"]["items"]
    listed = json.loads(run("agent", "list", "--json").stdout)
    assert {"name": "codex", "paused": True, "sessions": 0} in listed  # no events written
    assert "PAUSED" in run("agent", "list").stdout
    resumed = run("--json", "agent", "resume", "codex")
    assert json.loads(resumed.stdout)["paused_agents"] == []
    assert _inject(run, "codex:wednesday")["result"]["items"]


def test_a_bad_name_is_one_line_and_exit_1(run: Any) -> None:
    result = run("agent", "pause", "   ")
    assert result.exit_code == 1
    assert result.stderr.strip() == "error: agent: must not be empty or blank"
    assert json.loads(run("agent", "list", "--json").stdout) == []  # nothing was paused
    assert run("agent", "list").stdout.strip() == "no agents yet"
