"""#10 through the command line: verify names table, row and field; damage is one line."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from app.cli import cli
from core.storage.store import DB_FILE_NAME
from tests.conftest import PASSPHRASE

SCOPE = ["--scope", "user=bob"]


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    return tmp_path / "s"


@pytest.fixture
def run(store_dir: Path) -> Any:
    env = {
        "MEMORY_CENTER_PASSPHRASE": PASSPHRASE,
        "MEMORY_CENTER_DATA_DIR": str(store_dir),
        "MEMORY_CENTER_EMBEDDER": "hashing",
    }
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(cli, list(args), env=env)

    assert invoke("init").exit_code == 0
    return invoke


def _sql(store_dir: Path, sql: str, *args: Any) -> None:
    conn = sqlite3.connect(store_dir / DB_FILE_NAME, isolation_level=None)
    try:
        conn.execute(sql, args)
    finally:
        conn.close()


def _remember(run: Any, text: str) -> str:
    result = run("--json", "remember", *SCOPE, "--text", text)
    assert result.exit_code == 0, result.output
    return str(json.loads(result.stdout)["record"]["id"])


def test_verify_names_a_flipped_decision_reason(run: Any, store_dir: Path) -> None:
    """verify used to say ok when a decision reason's ciphertext was altered."""
    _remember(run, "Bob's dentist is Dr. Weiss on Hauptstrasse.")
    assert run("verify").exit_code == 0
    conn = sqlite3.connect(store_dir / DB_FILE_NAME, isolation_level=None)
    try:
        did, blob = conn.execute("SELECT id, reason FROM decisions LIMIT 1").fetchone()
        conn.execute("UPDATE decisions SET reason = ? WHERE id = ?", (blob[:-1] + b"\0", did))
    finally:
        conn.close()
    result = run("verify")
    assert result.exit_code == 1
    assert result.stdout.strip() == (
        f"BROKEN at decisions row {did} field reason: integrity check failed for "
        f"decisions.reason of {did}: the ciphertext was altered, moved, or sealed with a "
        "different key"
    )
    doc = json.loads(run("--json", "verify").stdout)
    assert (
        doc["first_failure"]["table"] == "decisions" and doc["first_failure"]["field"] == "reason"
    )


def test_damaged_memory_is_one_line_and_counted_in_status(run: Any, store_dir: Path) -> None:
    """A memory moved to another scope with SQL: list and search keep working, show says
    why in one line, status counts it."""
    bad = _remember(run, "Bob's dentist is Dr. Weiss on Hauptstrasse.")
    good = _remember(run, "Bob's bike is in the courtyard shed.")
    _sql(store_dir, 'UPDATE memories SET scope_json = \'{"user":"alice"}\' WHERE id = ?', bad)
    listed = run("--json", "memory", "list")
    assert listed.exit_code == 0, listed.output
    assert [m["id"] for m in json.loads(listed.stdout)] == [good]
    assert run("search", "--scope", "user=alice", "dentist").stdout.strip() == (
        "no matching memory"
    )
    shown = run("memory", "show", bad)
    assert shown.exit_code == 1
    lines = shown.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: memory {bad} is damaged")
    status = run("status")
    assert "damaged:   1 row(s) excluded" in status.stdout
    assert run("verify").exit_code == 1


def test_event_with_unknown_actor_lists_without_a_traceback(run: Any, store_dir: Path) -> None:
    """An actor 'robot' in the clear column: the listing skips it, verify names it."""
    add = ["event", "add", "--session", "s1", "--actor", "user", "--trust", "user", *SCOPE]
    assert run(*add, "--text", "first").exit_code == 0
    assert run(*add, "--text", "second").exit_code == 0
    _sql(store_dir, "DROP TRIGGER events_no_update")
    _sql(store_dir, "UPDATE events SET actor = 'robot' WHERE seq = 1")
    listed = run("--json", "event", "list", "--session", "s1")
    assert listed.exit_code == 0, listed.output
    assert [e["text"] for e in json.loads(listed.stdout)] == ["second"]
    result = run("verify")
    assert result.exit_code == 1 and "BROKEN at event" in result.stdout
