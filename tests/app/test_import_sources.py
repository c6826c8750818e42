"""What an import reads and when it is done (#38): special files are refused with a clear
line (never read for ever, never waited on), sizes are capped, an import of nothing exits 1,
a `null` text is nothing (not the word "None"), and extraction an interrupted import never
did is finished by the next one."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from app.cli import Context, cli
from app.importers import chatgpt, claude_code, codex
from app.importers.base import ImportReport, read_source, write_sessions
from app.importers.cli import import_group
from core import MemoryService, Scope
from tests.conftest import PASSPHRASE

FIXTURES = Path(__file__).parent / "fixtures"
CLAUDE_DIR = FIXTURES / "claude_code"
ALICE = Scope.of({"user": "alice"})
ENV = {"MEMORY_CENTER_PASSPHRASE": PASSPHRASE}
VERBS = ("claude-code", "codex", "chatgpt")


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "session.jsonl"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("verb", VERBS)
def test_a_fifo_is_refused_at_once_by_every_importer(verb: str, fifo: Path, data_dir: Path) -> None:
    args = [verb, str(fifo), "--scope", "user=alice"]
    result = CliRunner().invoke(import_group, args, obj=Context(data_dir, False), env=ENV)
    assert result.exit_code == 1
    assert "not a regular file (a FIFO); nothing read" in result.stderr
    assert "nothing to import" in result.stderr
    assert not data_dir.exists()  # no store is made for a file that cannot be imported


@pytest.mark.parametrize("verb", VERBS)
def test_dev_zero_is_refused_not_read_for_ever(verb: str, data_dir: Path) -> None:
    args = [verb, "/dev/zero", "--scope", "user=alice"]
    result = CliRunner().invoke(import_group, args, obj=Context(data_dir, False), env=ENV)
    assert result.exit_code == 1
    assert "not a regular file (a character device)" in result.stderr


def test_memory_import_refuses_a_fifo_and_a_device(fifo: Path, data_dir: Path) -> None:
    for target in (fifo, Path("/dev/zero")):
        result = CliRunner().invoke(
            cli, ["--data-dir", str(data_dir), "memory", "import", str(target)], env=ENV
        )
        assert result.exit_code == 1, result.output
        assert "not a regular file" in result.stderr


def test_a_file_larger_than_the_cap_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    path.write_bytes(b"x" * 4096)
    with pytest.raises(ValueError, match="4096 bytes is larger than the 1024 bytes"):
        read_source(path, limit=1024)
    assert read_source(path, limit=4096) == b"x" * 4096


@pytest.mark.parametrize("verb", VERBS)
def test_a_file_without_a_valid_line_exits_1(verb: str, tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "rollout-broken.jsonl"
    path.write_text("not json\n{\n", encoding="utf-8")
    args = [verb, str(path), "--scope", "user=alice"]
    result = CliRunner().invoke(import_group, args, obj=Context(data_dir, False), env=ENV)
    assert result.exit_code == 1
    assert "not valid JSON" in result.stderr
    assert "nothing to import" in result.stderr


def test_null_texts_are_nothing_not_none(service: MemoryService, tmp_path: Path) -> None:
    conv = {
        "id": "c-null",
        "current_node": "u1",
        "mapping": {
            "u1": {
                "id": "u1",
                "parent": None,
                "children": [],
                "message": {
                    "id": "u1",
                    "author": {"role": "user"},
                    "content": {"content_type": "text", "parts": [None, "We use Postgres 16."]},
                },
            }
        },
    }
    gpt = tmp_path / "conversations.json"
    gpt.write_text(json.dumps([conv]), encoding="utf-8")
    cc = tmp_path / "s.jsonl"
    line = {
        "type": "user",
        "uuid": "n1",
        "sessionId": "null-text",
        "message": {
            "role": "user",
            "content": [
                {"type": "text", "text": None},
                {
                    "type": "tool_result",
                    "tool_use_id": "t",
                    "content": [{"type": "text", "text": None}],
                },
                {"type": "text", "text": "kept"},
            ],
        },
    }
    cc.write_text(json.dumps(line) + "\n", encoding="utf-8")
    for module, path in ((chatgpt, gpt), (claude_code, cc)):
        sessions, problems = module.parse(path)
        write_sessions(service, sessions, ALICE, ImportReport(problems=problems), importer="t")
    texts = [e.text for e in service.events.list_events()]
    assert "We use Postgres 16." in texts and "kept" in texts
    assert not any("None" in t for t in texts)


def _import(service: MemoryService, extract: bool = True) -> ImportReport:
    sessions, problems = claude_code.parse(CLAUDE_DIR)
    report = ImportReport(problems=list(problems))
    return write_sessions(service, sessions, ALICE, report, importer="test", extract=extract)


def test_an_import_killed_before_extraction_is_finished_by_the_next(
    service: MemoryService,
) -> None:
    # The state a kill between the two transactions leaves: every event in, none extracted.
    first = _import(service, extract=False)
    assert first.events_written == 11 and not service.memories.list_memories()
    again = _import(service)
    assert again.events_written == 0 and again.events_already_present == 11
    assert again.sessions_resumed == 2
    assert again.suggestions["candidate"] >= 1
    suggested = {m.content for m in service.memories.list_memories()}
    assert "I prefer small commits with conventional commit messages." in suggested
    # Done once: the run after that has nothing left to finish.
    third = _import(service)
    assert third.sessions_resumed == 0 and not third.suggestions


def test_the_cli_says_that_it_finished_an_earlier_run(data_dir: Path) -> None:
    runner = CliRunner()
    base = ["claude-code", str(CLAUDE_DIR), "--scope", "user=alice"]
    first = runner.invoke(
        import_group, [*base, "--no-extract"], obj=Context(data_dir, True), env=ENV
    )
    assert first.exit_code == 0, first.output
    again = runner.invoke(import_group, base, obj=Context(data_dir, False), env=ENV)
    assert again.exit_code == 0, again.output
    assert "extraction finished for 2 sessions an earlier run left" in again.stdout
    assert "suggested memories: none" not in again.stdout


def test_codex_import_then_watch_records_nothing_twice(service: MemoryService) -> None:
    from app.capture.watch import AGENTS, Watcher

    folder = FIXTURES / "real" / "codex"
    sessions, problems = codex.parse(folder)
    report = write_sessions(service, sessions, ALICE, ImportReport(problems=problems), importer="t")
    assert report.events_written == 3
    totals = Watcher(service, AGENTS["codex"], folder, scope=ALICE).run_once()
    assert totals.events == 0


def test_kill_9_between_append_and_extraction_is_finished_by_the_next_import(
    data_dir: Path,
) -> None:
    """The reported case, for real: the import process is killed (SIGKILL) while it extracts
    (an extractor endpoint that accepts and never answers says when that is), then the same
    import runs again."""
    import socket
    import subprocess
    import sys

    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(120)
        env = {
            **os.environ,
            "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
            "MEMORY_CENTER_PASSPHRASE": PASSPHRASE,
            "MEMORY_CENTER_DATA_DIR": str(data_dir),
            "MEMORY_CENTER_EMBEDDER": "hashing",
            "MEMORY_CENTER_LLM_URL": f"http://127.0.0.1:{server.getsockname()[1]}/v1",
            "MEMORY_CENTER_LLM_MODEL": "stalls",
        }
        args = ["import", "claude-code", str(CLAUDE_DIR), "--scope", "user=alice"]
        code = "from app.cli import main; main()"
        proc = subprocess.Popen(
            [sys.executable, "-c", code, *args],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            conn, _ = server.accept()  # the events are committed; extraction has begun
            proc.kill()
            proc.wait(timeout=60)
            conn.close()
        finally:
            if proc.poll() is None:
                proc.kill()
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        assert svc.status().event_count >= 11 and not svc.memories.list_memories()
    again = CliRunner().invoke(import_group, args[1:], obj=Context(data_dir, True), env=ENV)
    assert again.exit_code == 0, again.output
    summary = json.loads(again.stdout)
    assert summary["events_already_present"] == 11 and summary["sessions_resumed"] == 2
    assert summary["suggestions"].get("candidate", 0) >= 1
