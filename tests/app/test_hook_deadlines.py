"""Hooks that never stall or block the agent (#42; R17): a recording hook queues its call
and returns even while the store is locked; the daemon ingests the queue behind, in order,
also what a killed daemon left; the desktop build gets hook and daemon commands its one
program can run."""

from __future__ import annotations

import json
import os
import shlex
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.hooks import client, ingest, install
from app.hooks.client import Paths
from core import MemoryService
from core.storage.store import DB_FILE_NAME
from tests.app.hook_support import REPO_ROOT, hook_env, run_client_hook, stop_daemon
from tests.conftest import PASSPHRASE

# A deadlock detector, not a measurement: a hook that waited for the locked store would
# wait for as long as the lock is held, which is until this test gives up.
NEVER = 30


@pytest.fixture
def runtime() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="mch") as folder:
        yield Path(folder)


def _open(data_dir: Path) -> MemoryService:
    return MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False, create=True)


def _tool_call(cwd: Path, number: int) -> dict[str, object]:
    return {
        "session_id": "deadline-1",
        "transcript_path": str(cwd / "none.jsonl"),
        "cwd": str(cwd),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": f"echo {number}"},
        "tool_response": {"stdout": f"out {number}", "stderr": ""},
        "tool_use_id": f"toolu_{number}",
    }


def _client(data_dir: Path, payload: object, env: dict[str, str]) -> subprocess.CompletedProcess:
    script = REPO_ROOT / "app" / "hooks" / "client.py"
    return subprocess.run(
        [sys.executable, "-S", str(script), "claude-code", "--data-dir", str(data_dir)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        cwd="/",
        timeout=NEVER,
    )


def test_recording_hooks_return_while_the_store_is_locked(tmp_path: Path, runtime: Path) -> None:
    data_dir = tmp_path / "store"
    _open(data_dir).close()
    env = hook_env(runtime, daemon=True)
    start = {**_tool_call(tmp_path, 0), "hook_event_name": "SessionStart"}
    # A busy timeout: the daemon may still be writing what SessionStart began (its answer
    # comes first); the lock is taken once that write is done.
    lock = sqlite3.connect(data_dir / DB_FILE_NAME, timeout=NEVER, isolation_level=None)
    try:
        assert run_client_hook(data_dir, start, env).returncode == 0  # the daemon is up
        lock.execute("BEGIN EXCLUSIVE")  # every writer now waits
        done = [_client(data_dir, _tool_call(tmp_path, n), env) for n in (1, 2, 3)]
        lock.execute("COMMIT")
    finally:
        lock.close()
        stop_daemon(data_dir, runtime)  # drains what is queued before it exits
    assert [(d.returncode, d.stdout, d.stderr) for d in done] == [(0, "", "")] * 3
    with _open(data_dir) as svc:
        events = svc.events.list_events(session="claude-code:deadline-1")
    calls = [e.text for e in events if e.kind.value == "tool_call"]
    assert calls == [f'Bash({{"command": "echo {n}"}})' for n in (1, 2, 3)]  # all, in order


def test_a_queue_a_killed_daemon_left_is_ingested_by_the_next(
    tmp_path: Path, runtime: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data_dir = tmp_path / "store"
    _open(data_dir).close()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    paths = Paths(data_dir)
    # What a daemon killed while draining leaves: a claimed file, plus new calls queued.
    assert client.enqueue(paths, "claude-code", json.dumps(_tool_call(tmp_path, 1)).encode())
    Path(paths.queue).rename(paths.queue + ".4242-1.claimed")
    with open(paths.queue + ".4242-1.claimed", "ab") as damaged:
        damaged.write(b"MCQ1 claude-code 999\n{truncated")  # a write cut short
    assert client.enqueue(paths, "claude-code", json.dumps(_tool_call(tmp_path, 2)).encode())
    env = hook_env(runtime, daemon=True)
    start = {**_tool_call(tmp_path, 0), "hook_event_name": "SessionStart"}
    try:
        assert run_client_hook(data_dir, start, env).returncode == 0
    finally:
        stop_daemon(data_dir, runtime)
    with _open(data_dir) as svc:
        events = svc.events.list_events(session="claude-code:deadline-1")
    calls = [e.text for e in events if e.kind.value == "tool_call"]
    assert calls == [f'Bash({{"command": "echo {n}"}})' for n in (1, 2)]
    assert not list(runtime.rglob("*.claimed")) and not Path(paths.queue).exists()


def test_queue_records_survive_damage_around_them() -> None:
    good = b'{"a": 1}'
    data = (
        b"garbage MCQ1 claude-code 3 7\nabc\n"
        + b"MCQ1 claude-code 100\nshort\n"
        + b"MCQ1 claude-code %d\n" % len(good)
        + good
        + b"\n"
    )
    assert list(ingest.records(data)) == [("claude-code", b"abc", 7), ("claude-code", good, None)]


def test_a_queued_stop_reads_the_transcript_only_as_far_as_it_reached(
    tmp_path: Path, runtime: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("x" * 10 + "\n", encoding="utf-8")
    paths = Paths(tmp_path / "store")
    stop = {"session_id": "s", "hook_event_name": "Stop", "transcript_path": str(transcript)}
    assert client.enqueue(paths, "claude-code", json.dumps(stop).encode())
    transcript.write_text("x" * 100 + "\n", encoding="utf-8")  # the next turn, written later
    ((_, _, bound),) = ingest.records(Path(paths.queue).read_bytes())
    assert bound == 11


# --- the desktop build -------------------------------------------------------------------------


def _frozen(monkeypatch: pytest.MonkeyPatch, program: Path) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(program))


def test_the_desktop_build_writes_commands_its_program_can_run(
    tmp_path: Path, runtime: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bundle's program takes only its own arguments: a stand-in that refuses Python's
    options (as the frozen program does, with exit 2) runs the installed command."""
    program = tmp_path / "bundle" / "memory-center"
    program.parent.mkdir()
    program.write_text(
        "#!/bin/sh\n"
        'case "$1" in -*S|-m|-c) echo "no such option: $1" >&2; exit 2;; esac\n'
        f'exec {shlex.quote(sys.executable)} -c "from app.launch import main; main()" "$@"\n',
        encoding="utf-8",
    )
    program.chmod(0o755)
    data_dir = tmp_path / "store"
    _open(data_dir).close()
    _frozen(monkeypatch, program)
    command = install.hook_command(data_dir)
    daemon = client.daemon_command(str(data_dir), 60)
    monkeypatch.undo()
    assert shlex.split(command)[:4] == [str(program), "--data-dir", str(data_dir), "hook"]
    assert "-S" not in shlex.split(command) and "client.py" not in command
    assert daemon == [str(program), "--data-dir", str(data_dir), "daemon", "serve", "--idle", "60"]
    env = {**hook_env(runtime, daemon=False), "PYTHONPATH": str(REPO_ROOT)}
    payload = {**_tool_call(tmp_path, 1), "hook_event_name": "UserPromptSubmit", "prompt": "x"}
    for argv in (["sh", "-c", command], [*daemon[:4], "--help"]):
        done = subprocess.run(
            argv, input=json.dumps(payload), capture_output=True, text=True, env=env, timeout=120
        )
        assert done.returncode == 0, done.stderr


def test_a_session_is_told_once_and_an_old_note_is_not_believed(
    tmp_path: Path, runtime: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    paths = Paths(tmp_path / "store")
    Path(paths.error).write_text('no passphrase: set "MEMORY_CENTER_PASSPHRASE"\n')
    raw = json.dumps({"session_id": "s-1", "hook_event_name": "Stop"}).encode()
    told = json.loads(client.notice(paths, raw))["systemMessage"]
    assert (
        told
        == 'Memory Center is off for this session: no passphrase: set "MEMORY_CENTER_PASSPHRASE"'
    )
    assert client.notice(paths, raw) == ""  # once per session
    other = json.dumps({"session_id": "s-2", "hook_event_name": "Stop"}).encode()
    old = Path(paths.error).stat().st_mtime - 3600
    os.utime(paths.error, (old, old))  # a note from an hour ago: a new daemon was tried since
    assert client.notice(paths, other) == ""


def test_the_installed_desktop_command_starts_only_the_thin_client(
    tmp_path: Path, runtime: Path
) -> None:
    """`memory-center [--data-dir DIR] hook claude-code` (what the desktop build installs)
    runs the client without importing click or the engine, which cost the agent a few
    hundred milliseconds at every call of the frozen program."""
    data_dir = tmp_path / "store"
    probe = (
        "import sys\n"
        f"sys.argv = ['memory-center', '--data-dir', {str(data_dir)!r}, 'hook', 'claude-code']\n"
        "from app.launch import main\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    code = exc.code\n"
        "heavy = sorted(m for m in ('click', 'core', 'app.cli') if m in sys.modules)\n"
        "print(code, heavy, file=sys.stderr)\n"
    )
    env = {**hook_env(runtime, daemon=True), "PYTHONPATH": str(REPO_ROOT)}
    try:
        done = subprocess.run(
            [sys.executable, "-c", probe],
            input=json.dumps(_tool_call(tmp_path, 1)),
            capture_output=True,
            text=True,
            env=env,
            timeout=NEVER,
        )
    finally:
        stop_daemon(data_dir, runtime)
    assert done.stdout == "" and done.stderr.strip() == "0 []", done.stderr


def test_other_command_lines_are_not_taken_for_the_hook() -> None:
    from app.launch import hook_request

    assert hook_request(["--data-dir", "/s", "hook", "claude-code"]) == ("/s", "claude-code")
    assert hook_request(["--data-dir=/s", "hook", "claude-code"]) == ("/s", "claude-code")
    assert hook_request(["hook", "claude-code"]) == (None, "claude-code")
    for argv in (
        ["hook", "install", "claude-code"],
        ["hook", "status"],
        ["--json", "hook", "claude-code"],
        ["hook", "claude-code", "--help"],
        ["hook", "codex"],
    ):
        assert hook_request(argv) is None, argv


def test_the_deadline_counts_the_start_of_the_process() -> None:
    """What a process spent before the hook's code ran is taken from its deadline: a process
    that slept a second first has at least that second behind it."""
    script = REPO_ROOT / "app" / "hooks" / "client.py"

    def since_start(before: str) -> float:
        code = f"{before}; import runpy; print(runpy.run_path({str(script)!r})['since_start']())"
        done = subprocess.run(
            [sys.executable, "-S", "-c", code],
            capture_output=True,
            text=True,
            timeout=NEVER,
            check=True,
        )
        return float(done.stdout)

    fresh, slept = since_start("pass"), since_start("import time; time.sleep(1.2)")
    assert 0.0 <= fresh < slept and 1.2 <= slept < client.MAX_START


def test_a_hook_run_in_process_leaves_the_reason_for_settings(
    tmp_path: Path, runtime: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no daemon (switched off here; no Unix sockets elsewhere) the hook runs in its own
    process: a store it cannot open leaves the same note a daemon leaves, and opening it
    later removes the note."""
    data_dir = tmp_path / "store"
    _open(data_dir).close()
    env = hook_env(runtime, daemon=False)
    del env["MEMORY_CENTER_PASSPHRASE"]
    payload = {**_tool_call(tmp_path, 1), "hook_event_name": "UserPromptSubmit", "prompt": "x"}
    assert _client(data_dir, payload, env).returncode == 0
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    found = client.last_failure(data_dir)
    assert found is not None and found[1] == "key_unavailable" and "passphrase" in found[0]
    assert _client(data_dir, payload, hook_env(runtime, daemon=False)).returncode == 0
    assert client.last_failure(data_dir) is None


def test_the_daemon_exits_when_idle_although_it_watches_its_queue(
    tmp_path: Path, runtime: Path
) -> None:
    """The queue is looked at every half second; looking is no activity. Before, each look
    counted as one, so the daemon (holding the unlocked key) never went idle."""
    data_dir = tmp_path / "store"
    _open(data_dir).close()
    env = {**hook_env(runtime, daemon=True), "PYTHONPATH": str(REPO_ROOT)}
    env.pop("MEMORY_CENTER_EMBEDDER")  # the default embedder, as a user's daemon has it
    entry = "from app.launch import main; main()"
    serve = ["--data-dir", str(data_dir), "daemon", "serve", "--idle", "1"]
    daemon = subprocess.Popen(
        [sys.executable, "-c", entry, *serve],
        env=env,
        cwd=REPO_ROOT,
    )
    try:
        assert daemon.wait(timeout=NEVER * 2) == 0
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()
