"""The spool verbs as a person types them while the server is away and after (R23, #12)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from app.cli import cli
from app.hooks import runner
from core import MemoryService, SpoolService, WriteSpooledError
from tests.support.postgres import PostgresServer

PASSPHRASE = "desktop passphrase"


def _run(*args: str) -> Result:
    env = {"MEMORY_CENTER_PASSPHRASE": PASSPHRASE, "MEMORY_CENTER_EMBEDDER": "none"}
    return CliRunner().invoke(cli, list(args), env=env)


def test_status_list_and_flush_of_a_spool(
    pg_crash_server: PostgresServer, pg_crash_url: str, tmp_path: Path
) -> None:
    data = str(tmp_path / "a")
    assert _run("--data-dir", data, "init", "--database", pg_crash_url).exit_code == 0
    service = MemoryService.open(Path(data), passphrase=PASSPHRASE, prefer_keyring=False)
    assert _run("--data-dir", data, "status").output.count("spool:") == 0
    pg_crash_server.stop("immediate")
    try:
        service.memories.remember({"user": "ann"}, "Ann's bike is in the blue shed")
    except WriteSpooledError as exc:
        assert exc.waiting == 1
    else:
        raise AssertionError("the write was not spooled")
    service.close()
    # Both answer offline (#41): status exits 0 with what this machine knows.
    away = _run("--data-dir", data, "status")
    assert away.exit_code == 0, away.output
    assert "spool:     1 write(s) waiting" in away.output and "server not reachable" in away.output
    assert "server:    not reachable" in away.output and "Traceback" not in away.output
    listed = _run("--data-dir", data, "spool", "list")
    assert listed.exit_code == 0 and " remember" in listed.output, listed.output

    pg_crash_server.restart()
    listed = _run("--data-dir", data, "spool", "list")
    assert listed.exit_code == 0 and " remember" in listed.output
    assert "blue shed" not in listed.output  # what and when, never the content
    flushed = _run("--data-dir", data, "spool", "flush")
    assert flushed.exit_code == 0, flushed.output
    assert "1 applied, 0 applied before, 0 refused, 0 still waiting" in flushed.output
    after = _run("--data-dir", data, "status")
    assert after.exit_code == 0 and "spool:" not in after.output
    found = _run("--data-dir", data, "search", "--scope", "user=ann", "bike")
    assert "blue shed" in found.output
    assert _run("--data-dir", data, "spool", "list").output.strip() == "no writes waiting"


def test_commands_started_while_the_server_is_away_keep_their_writes(
    pg_crash_server: PostgresServer, pg_crash_url: str, tmp_path: Path
) -> None:
    """A CLI call (an agent's script, a hook) that starts during the outage cannot open the
    store; its write goes to this machine's spool all the same and is applied later."""
    data = str(tmp_path / "a")
    assert _run("--data-dir", data, "init", "--database", pg_crash_url).exit_code == 0
    kept = _run(
        "--data-dir",
        data,
        "--json",
        "remember",
        "--scope",
        "user=ann",
        "--text",
        "Ann's kayak is blue",
    )
    assert kept.exit_code == 0, kept.output
    memory_id = json.loads(kept.output)["record"]["id"]
    pg_crash_server.stop("immediate")
    try:
        spooled = [
            _run(
                "--data-dir",
                data,
                "remember",
                "--scope",
                "user=ann",
                "--text",
                "Ann's canoe is in the red barn",
            ),
            _run(
                "--data-dir",
                data,
                "event",
                "add",
                "--session",
                "s-away",
                "--actor",
                "user",
                "--trust",
                "user",
                "--scope",
                "user=ann",
                "--text",
                "written during the outage",
            ),
            _run("--data-dir", data, "memory", "disable", memory_id),
        ]
        for result in spooled:
            assert result.exit_code == 1, result.output
            assert "kept in this machine's spool" in result.output
        assert "3 waiting" in spooled[-1].output
        # Bad input is refused at once, by name, and nothing is kept for it.
        bad = _run(
            "--data-dir", data, "remember", "--scope", "colour=blue", "--text", "no valid scope"
        )
        assert bad.exit_code == 1 and "scope" in bad.output
        assert "kept in this machine's spool" not in bad.output
        away = _run("--data-dir", data, "status")
        assert "spool:     3 write(s) waiting" in away.output
        assert b"red barn" not in (tmp_path / "a" / "spool.sqlite3").read_bytes()
    finally:
        pg_crash_server.restart()
    flushed = _run("--data-dir", data, "spool", "flush")
    assert "3 applied, 0 applied before, 0 refused, 0 still waiting" in flushed.output
    found = _run("--data-dir", data, "search", "--scope", "user=ann", "canoe")
    assert "red barn" in found.output
    shown = _run("--data-dir", data, "--json", "memory", "show", memory_id)
    assert json.loads(shown.output)["memory"]["status"] == "disabled"
    events = _run("--data-dir", data, "--json", "event", "list", "--session", "s-away")
    assert "written during the outage" in events.output
    assert _run("--data-dir", data, "verify").exit_code == 0


def test_an_offline_write_needs_this_machines_key(
    pg_crash_server: PostgresServer, pg_crash_url: str, tmp_path: Path
) -> None:
    data = str(tmp_path / "a")
    assert _run("--data-dir", data, "init", "--database", pg_crash_url).exit_code == 0
    pg_crash_server.stop("immediate")
    try:
        env = {"MEMORY_CENTER_PASSPHRASE": "not the passphrase", "MEMORY_CENTER_EMBEDDER": "none"}
        args = [
            "--data-dir",
            data,
            "remember",
            "--scope",
            "user=ann",
            "--text",
            "Ann's canoe is red",
        ]
        wrong = CliRunner().invoke(cli, args, env=env)
        assert wrong.exit_code == 1 and "passphrase" in wrong.output
        assert not (tmp_path / "a" / "spool.sqlite3").exists()
    finally:
        pg_crash_server.restart()


def test_a_hook_run_while_the_server_is_away_spools_its_events(
    pg_crash_server: PostgresServer,
    pg_crash_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The one-shot hook runner (no daemon up) cannot open the store during the outage: the
    tool call and its result still go to the spool, beside a note that the call got no
    memory, and are applied when the server returns."""
    data = tmp_path / "a"
    assert _run("--data-dir", str(data), "init", "--database", pg_crash_url).exit_code == 0
    monkeypatch.setenv("MEMORY_CENTER_PASSPHRASE", PASSPHRASE)
    monkeypatch.setenv("MEMORY_CENTER_EMBEDDER", "none")
    monkeypatch.setenv("MEMORY_CENTER_USER", "alice")
    payload = {
        "session_id": "s-hook",
        "transcript_path": str(tmp_path / "none.jsonl"),
        "cwd": str(tmp_path),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "psql --version"},
        "tool_response": {"stdout": "psql (PostgreSQL) 16.2", "stderr": ""},
        "tool_use_id": "toolu_1",
    }
    pg_crash_server.stop("immediate")
    try:
        assert runner.run_once(data, "claude-code", json.dumps(payload).encode()) == ""
        assert SpoolService.offline_status(data).waiting >= 1
    finally:
        pg_crash_server.restart()
    with MemoryService.open(data, passphrase=PASSPHRASE, prefer_keyring=False) as service:
        report = service.commands.flush()
        assert report.waiting == 0 and not report.refused, report
        events = service.events.list_events(session="claude-code:s-hook")
        kinds = [e.kind.value for e in events]
        assert kinds[:2] == ["tool_call", "tool_result"], kinds
        assert events[1].text == "psql (PostgreSQL) 16.2"
        assert service.verify().ok
