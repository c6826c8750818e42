"""Live capture: `memory-center watch` follows growing transcripts (#16; R1, R2, R30)."""

from __future__ import annotations

import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

from app.capture.watch import AGENTS, Watcher
from app.importers import claude_code as importer
from app.importers.base import ImportReport, write_sessions
from core import MemoryService, Scope
from core.storage.store import DB_FILE_NAME
from tests.app.hook_support import CLI, REPO_ROOT, SESSIONS, hook_env
from tests.conftest import PASSPHRASE

CODEX = Path(__file__).parent / "fixtures" / "codex"
APPENDER = """
import sys, time
lines = open(sys.argv[1], encoding="utf-8").read().splitlines(keepends=True)
with open(sys.argv[2], "a", encoding="utf-8") as out:
    for line in lines:
        half = len(line) // 2
        out.write(line[:half]); out.flush(); time.sleep(0.05)   # a line arrives in two writes
        out.write(line[half:]); out.flush(); time.sleep(0.1)
"""


def _open(data_dir: Path) -> MemoryService:
    return MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False, create=True)


def _source_ids(svc: MemoryService, session: str) -> list[str]:
    return [
        str(e.data.get("source_id")) for e in svc.events.list_events(session=session, limit=1000)
    ]


def test_watcher_follows_a_file_another_process_appends_to(tmp_path: Path) -> None:
    data_dir = tmp_path / "store"
    _open(data_dir).close()
    folder = tmp_path / "projects" / "-home-alice-src-billing-service"
    folder.mkdir(parents=True)
    target = folder / "5b1f0c2e-7d3a-4c8e-9f10-2a3b4c5d6e01.jsonl"
    target.touch()
    env = {**hook_env(tmp_path, daemon=False), "MEMORY_CENTER_USER": "alice"}
    projects = tmp_path / "projects"
    args = ["--interval", "0.2", "--no-extract"]
    watcher = subprocess.Popen(
        [*CLI, "--data-dir", str(data_dir), "--json", "watch", "claude-code", str(projects), *args],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    fixture = SESSIONS / "en-billing.jsonl"
    expected = [e.source_id for s in importer.parse(fixture)[0] for e in s.events]
    session = "claude-code:5b1f0c2e-7d3a-4c8e-9f10-2a3b4c5d6e01"
    try:
        writer = subprocess.run([sys.executable, "-c", APPENDER, str(fixture), str(target)])
        assert writer.returncode == 0
        deadline = time.monotonic() + 90
        got: list[str] = []
        while time.monotonic() < deadline and len(got) < len(expected):
            time.sleep(0.5)
            with _open(data_dir) as svc:
                got = _source_ids(svc, session)
    finally:
        watcher.send_signal(signal.SIGTERM)
        out, err = watcher.communicate(timeout=60)
    assert watcher.returncode == 0, err
    assert got == expected  # every event once, in order, although lines arrived in halves
    with _open(data_dir) as svc:
        events = svc.events.list_events(session=session, limit=1000)
    assert {dict(e.scope.items_)["project"] for e in events} == {"billing-service"}
    assert {e.trust.value for e in events if e.kind.value == "tool_result"} == {"untrusted"}
    assert f'"events_written": {len(expected)}' in out


def test_import_then_two_watchers_record_every_line_once(tmp_path: Path) -> None:
    folder = tmp_path / "projects" / "p"
    folder.mkdir(parents=True)
    recorded = (SESSIONS / "en-billing.jsonl").read_text(encoding="utf-8").splitlines(True)
    target = folder / "en-billing.jsonl"
    target.write_text("".join(recorded[:6]), encoding="utf-8")
    data_dir = tmp_path / "store"
    with _open(data_dir) as svc:
        sessions, _ = importer.parse(target)
        scope = Scope.of({"user": "alice"})
        write_sessions(svc, sessions, scope, ImportReport(), importer="import:claude-code")
        before = _source_ids(svc, sessions[0].session)
    first, second = _open(data_dir), _open(data_dir)
    try:
        _both(first, second, folder)  # the imported lines are not recorded again
        with target.open("a", encoding="utf-8") as handle:
            handle.write("".join(recorded[6:]))
        _both(first, second, folder)  # two watchers race over the new lines
        ids = _source_ids(first, sessions[0].session)
    finally:
        first.close()
        second.close()
    assert ids[: len(before)] == before
    assert len(ids) == len(set(ids))
    assert len(ids) == sum(len(s.events) for s in importer.parse(target)[0])


def _both(first: MemoryService, second: MemoryService, folder: Path) -> None:
    spec = AGENTS["claude-code"]
    watchers = [Watcher(svc, spec, folder, extract=False) for svc in (first, second)]
    threads = [threading.Thread(target=w.run_once) for w in watchers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)


def test_codex_rollouts_are_captured_with_import_trust_rules(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    shutil.copytree(CODEX, folder)
    with _open(tmp_path / "store") as svc:
        totals = Watcher(svc, AGENTS["codex"], folder).run_once()
        again = Watcher(svc, AGENTS["codex"], folder).run_once()
        events = svc.events.list_events(session="codex:0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
    assert (totals.events, again.events) == (4, 0)  # a new watcher resumes, adds nothing
    assert [(e.actor.value, e.trust.value, e.kind.value) for e in events] == [
        ("user", "user", "message"),
        ("assistant", "assistant", "tool_call"),
        ("tool", "untrusted", "tool_result"),
        ("assistant", "assistant", "message"),
    ]
    assert events[2].text == '"test": "vitest run",'
    assert dict(events[0].scope.items_)["project"] == "webshop"
    assert "environment_context" not in " ".join(e.text for e in events)
    with sqlite3.connect(tmp_path / "store" / DB_FILE_NAME) as db:
        cursors = db.execute("SELECT key, state_json FROM capture_cursors").fetchall()
    assert cursors and not any("/" in key or "/home" in state for key, state in cursors)


def test_from_now_skips_history_but_follows_growth(tmp_path: Path) -> None:
    folder = tmp_path / "projects" / "p"
    folder.mkdir(parents=True)
    lines = (SESSIONS / "zh-budget.jsonl").read_text(encoding="utf-8").splitlines(True)
    target = folder / "zh.jsonl"
    target.write_text("".join(lines[:2]), encoding="utf-8")
    with _open(tmp_path / "store") as svc:
        watcher = Watcher(svc, AGENTS["claude-code"], folder, from_now=True, extract=False)
        assert watcher.run_once().events == 0
        with target.open("a", encoding="utf-8") as handle:
            handle.write("".join(lines[2:4]))
        assert watcher.run_once().events == 2
        (session,) = [s for s in svc.events.list_sessions() if s.id.startswith("claude-code:")]
        texts = [e.text for e in svc.events.list_events(session=session.id)]
    assert texts[0].startswith("帮我看看电费账单")
    assert len(texts) == 2


def test_watching_a_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from app.cli import cli

    missing = tmp_path / "nope"
    done = CliRunner().invoke(
        cli, ["--data-dir", str(tmp_path / "s"), "watch", "codex", str(missing), "--once"]
    )
    assert done.exit_code == 1 and "no such folder" in done.output
    assert not (tmp_path / "s").exists()  # nothing written
