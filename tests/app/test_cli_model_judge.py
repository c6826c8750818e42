"""`candidates settle` (#40): the model judge named by the environment is asked about the
review items the rule judge could not decide; without one, a clear error and no change."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from app.cli import cli
from tests.conftest import PASSPHRASE
from tests.core.governance.conftest import FakeLLM, completion
from tests.core.governance.conftest import fake_llm as fake_llm  # the fixture

SCOPE = ["--scope", "user=kim"]


def _runner(tmp_path: Path, **extra: str) -> Any:
    env = {"MEMORY_CENTER_PASSPHRASE": PASSPHRASE, "MEMORY_CENTER_DATA_DIR": str(tmp_path / "s")}
    env |= extra
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(cli, list(args), env=env, catch_exceptions=False)

    return invoke


def _json(result: Result) -> Any:
    assert result.exit_code == 0, result.output + (result.stderr or "")
    return json.loads(result.stdout)


def test_settle_asks_the_configured_model(tmp_path: Path, fake_llm: FakeLLM) -> None:
    judge = {"MEMORY_CENTER_JUDGE_URL": fake_llm.base_url, "MEMORY_CENTER_JUDGE_MODEL": "m-1"}
    run = _runner(tmp_path, **judge)
    assert run("init").exit_code == 0
    old = _json(run("--json", "remember", *SCOPE, "--text", "Piano is at 3 pm on Friday."))
    new = _json(
        run(
            "--json",
            "remember",
            *SCOPE,
            "--text",
            "Piano is at 4 pm on Friday.",
            "--same-as",
            old["record"]["id"],
        )
    )
    assert new["outcome"] == "candidate"
    fake_llm.reply = lambda _b: (200, completion({"relation": "replaces", "why": "moved"}))
    (settled,) = _json(run("--json", "candidates", "settle"))
    assert settled["outcome"] == "replaced" and settled["answer"] == "replaces"
    human = run("candidates", "settle")
    assert human.exit_code == 0 and "nothing to settle" in human.stdout
    shown = _json(run("--json", "memory", "show", old["record"]["id"]))
    assert shown["memory"]["status"] == "superseded"
    assert shown["history"][-1]["actor"] == "model judge (m-1)"


def test_settle_without_a_judge_is_a_clear_error(tmp_path: Path) -> None:
    run = _runner(tmp_path)
    assert run("init").exit_code == 0
    result = run("candidates", "settle")
    assert result.exit_code == 1
    assert "no model judge is configured" in result.stderr
