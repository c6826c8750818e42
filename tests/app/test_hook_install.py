"""`hook install` / `hook uninstall` round-trip a Claude Code settings file (#16)."""

from __future__ import annotations

import json
import os
import shlex
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from app.cli import cli
from app.hooks import install
from app.hooks.client import Paths, code_stamp
from core import MemoryService
from tests.app.hook_support import hook_env, run_client_hook, stop_daemon
from tests.conftest import PASSPHRASE

OTHERS = {
    "permissions": {"allow": ["Bash(git status)"], "deny": ["Read(./.env)"]},
    "model": "sonnet",
    "hooks": {
        "PostToolUse": [
            {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "prettier -w ."}]}
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "timeout": 3}]}],
    },
}


def _cli(*args: str, data_dir: Path) -> object:
    return CliRunner().invoke(cli, ["--data-dir", str(data_dir), *args])


def test_install_then_uninstall_gives_the_file_back(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(OTHERS, indent=2))
    done = _cli("hook", "install", "claude-code", "--project", str(tmp_path), data_dir=tmp_path)
    assert done.exit_code == 0, done.output
    doc = json.loads(settings.read_text())
    assert doc["permissions"] == OTHERS["permissions"] and doc["model"] == "sonnet"
    assert doc["hooks"]["PostToolUse"][0] == OTHERS["hooks"]["PostToolUse"][0]
    assert set(install.installed(settings)) == set(install.EVENTS)
    ours = doc["hooks"]["UserPromptSubmit"][0]["hooks"][0]
    words = shlex.split(ours["command"], comments=True)
    assert words[:2] == [sys.executable, "-S"] and words[-3:] == [
        "claude-code",
        "--data-dir",
        str(tmp_path.resolve()),
    ]
    assert ours["timeout"] <= 5  # an injecting hook never holds the prompt long
    again = _cli("hook", "install", "claude-code", "--project", str(tmp_path), data_dir=tmp_path)
    assert "replaced 6" in again.output
    assert len(json.loads(settings.read_text())["hooks"]["Stop"]) == 2  # theirs + ours, once
    gone = _cli("hook", "uninstall", "claude-code", "--project", str(tmp_path), data_dir=tmp_path)
    assert gone.exit_code == 0 and "removed 6" in gone.output
    assert json.loads(settings.read_text()) == OTHERS


def test_install_into_a_new_user_settings_file_and_remove_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-home"))
    assert _cli("hook", "install", "claude-code", "--user", data_dir=tmp_path).exit_code == 0
    settings = tmp_path / "claude-home" / "settings.json"
    assert set(install.installed(settings)) == set(install.EVENTS)
    assert _cli("hook", "uninstall", "claude-code", "--user", data_dir=tmp_path).exit_code == 0
    assert json.loads(settings.read_text()) == {}


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"hooks": {"Stop": {}}}'])
def test_a_broken_settings_file_is_named_and_left_alone(tmp_path: Path, content: str) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(content)
    done = _cli("hook", "install", "claude-code", "--project", str(tmp_path), data_dir=tmp_path)
    assert done.exit_code == 1 and "settings.json" in done.output
    assert settings.read_text() == content


def test_project_and_user_together_is_a_usage_error(tmp_path: Path) -> None:
    done = _cli(
        "hook", "install", "claude-code", "--project", str(tmp_path), "--user", data_dir=tmp_path
    )
    assert done.exit_code == 2 and "not both" in done.output


def test_the_daemon_refuses_a_request_without_its_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another local process that can reach the socket still needs the 0600 token."""
    with tempfile.TemporaryDirectory(prefix="mch") as folder:
        runtime = Path(folder)
        env = hook_env(runtime, daemon=True)
        data_dir = tmp_path / "store"
        payload = {"session_id": "s", "cwd": str(tmp_path), "hook_event_name": "Stop"}
        start = {**payload, "hook_event_name": "SessionStart"}  # waits for the daemon
        try:
            assert run_client_hook(data_dir, start, env).returncode == 0
            monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
            paths = Paths(data_dir)
            assert Path(paths.token).stat().st_mode & 0o777 == 0o600
            assert Path(paths.socket).stat().st_mode & 0o077 == 0
            assert Path(paths.dir).stat().st_mode & 0o777 == 0o700
            token = Path(paths.token).read_bytes()
            stamp = code_stamp().encode()
            guess = b"MC2 guess " + stamp + b" claude-code\n" + json.dumps(payload).encode()
            assert _raw_request(paths.socket, guess) == b"ERR bad-token\n"
            right = (
                b"MC2 " + token + b" " + stamp + b" claude-code\n" + json.dumps(payload).encode()
            )
            assert _raw_request(paths.socket, right) == b"OK\n"
        finally:
            stop_daemon(data_dir, runtime)


def _raw_request(path: str, request: bytes) -> bytes:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(10)
        conn.connect(path)
        conn.sendall(request)
        conn.shutdown(socket.SHUT_WR)
        return conn.makefile("rb").read()


def test_passphrase_is_never_written_to_settings(tmp_path: Path) -> None:
    _cli("hook", "install", "claude-code", "--project", str(tmp_path), data_dir=tmp_path)
    assert PASSPHRASE not in (tmp_path / ".claude" / "settings.json").read_text()


def test_the_hook_client_imports_almost_nothing() -> None:
    """The process Claude Code starts per event loads no engine, no Qt, no regex machinery."""
    client = Path(__file__).resolve().parents[2] / "app" / "hooks" / "client.py"
    code = (
        f"import sys; sys.path.insert(0, {str(client.parent)!r}); "
        "before = set(sys.modules); import client; "
        "print(' '.join(set(sys.modules) - before))"
    )
    loaded = set(
        subprocess.run(
            [sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True
        ).stdout.split()
    )
    heavy = {"json", "re", "enum", "socket", "pathlib", "numpy", "sqlalchemy", "PySide6", "core"}
    assert not heavy & loaded
    assert "_socket" in loaded and "client" in loaded


def test_a_runtime_folder_others_can_enter_is_not_used(tmp_path: Path) -> None:
    """A socket folder that is not private (0700, ours) is refused: the hook runs in process."""
    with tempfile.TemporaryDirectory(prefix="mch") as folder:
        runtime = Path(folder)
        shared = runtime / f"memory-center-{os.getuid()}"
        shared.mkdir(mode=0o755)
        shared.chmod(0o755)
        data_dir = tmp_path / "store"
        payload = {
            "session_id": "s",
            "cwd": str(tmp_path),
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "true"},
            "tool_response": {"stdout": "done"},
        }
        done = run_client_hook(data_dir, payload, hook_env(runtime, daemon=True))
        assert (done.returncode, done.stdout) == (0, "")
        assert list(shared.iterdir()) == []  # no socket, token or lock placed there
        with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
            texts = [e.text for e in svc.events.list_events(session="claude-code:s")]
        assert texts == ['Bash({"command": "true"})', "done"]


def test_status_names_the_settings_files_and_what_capture_recorded(tmp_path: Path) -> None:
    store = tmp_path / "store"
    with MemoryService.open(store, passphrase=PASSPHRASE, prefer_keyring=False):
        pass
    _cli("hook", "install", "claude-code", "--project", str(tmp_path), data_dir=store)
    done = CliRunner().invoke(
        cli,
        ["--data-dir", str(store), "--json", "hook", "status", "--project", str(tmp_path)],
        env={"MEMORY_CENTER_PASSPHRASE": PASSPHRASE},
    )
    assert done.exit_code == 0, done.output
    doc = json.loads(done.output)
    assert set(doc["settings"]["project"]["events"]) == set(install.EVENTS)
    assert doc["daemon_pid"] is None and doc["captured"] == {}


def test_parallel_hooks_on_a_cold_store_start_one_daemon_and_lose_nothing(
    tmp_path: Path,
) -> None:
    """Claude Code fires PostToolUse hooks of parallel tool calls at once."""
    with tempfile.TemporaryDirectory(prefix="mch") as folder:
        runtime = Path(folder)
        env = hook_env(runtime, daemon=True)
        data_dir = tmp_path / "store"
        client = Path(__file__).resolve().parents[2] / "app" / "hooks" / "client.py"
        procs = []
        try:
            for i in range(4):
                payload = {
                    "session_id": "parallel",
                    "cwd": str(tmp_path),
                    "hook_event_name": "PostToolUse",
                    "tool_name": "Bash",
                    "tool_input": {"command": f"echo {i}"},
                    "tool_response": {"stdout": f"out {i}"},
                    "tool_use_id": f"toolu_{i}",
                }
                proc = subprocess.Popen(
                    [sys.executable, "-S", str(client), "claude-code", "--data-dir", str(data_dir)],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    env=env,
                )
                procs.append((proc, json.dumps(payload).encode()))
            outputs = [proc.communicate(raw, timeout=120) for proc, raw in procs]
            for _ in range(100):  # a copy that lost the lock may still be exiting
                daemons = [
                    p
                    for p in Path("/proc").iterdir()
                    if p.name.isdigit() and _is_daemon_of(p, data_dir)
                ]
                if len(daemons) <= 1:
                    break
                time.sleep(0.1)
        finally:
            stop_daemon(data_dir, runtime)
    assert all(out == b"" for out, _ in outputs)
    assert all(proc.returncode == 0 for proc, _ in procs)
    assert len(daemons) == 1
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        results = [e.text for e in svc.events.list_events(session="claude-code:parallel")]
    assert sorted(t for t in results if t.startswith("out")) == [f"out {i}" for i in range(4)]


def _is_daemon_of(proc: Path, data_dir: Path) -> bool:
    try:
        cmd = (proc / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"app.hooks.daemon" in cmd and str(data_dir).encode() in cmd


def test_a_daemon_that_cannot_open_the_store_says_so_and_the_hook_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No keyring and no passphrase: the daemon leaves a note; each session is told once,
    through Claude Code's `systemMessage`, and the hooks go on (#42)."""
    with tempfile.TemporaryDirectory(prefix="mch") as folder:
        runtime = Path(folder)
        env = hook_env(runtime, daemon=True)
        del env["MEMORY_CENTER_PASSPHRASE"]
        data_dir = tmp_path / "locked-store"
        payload = {"session_id": "s", "cwd": str(tmp_path), "hook_event_name": "Stop"}
        prompt = {**payload, "hook_event_name": "UserPromptSubmit", "prompt": "deploy?"}
        other = {**prompt, "session_id": "t"}
        try:
            first = run_client_hook(data_dir, payload, env)  # queued: returns at once
            told = run_client_hook(data_dir, prompt, env)  # waits for the daemon, which fails
            again = [run_client_hook(data_dir, p, env) for p in (payload, prompt)]
            told_other = run_client_hook(data_dir, other, env)
        finally:
            stop_daemon(data_dir, runtime)
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
        note = Path(Paths(data_dir).error)
        assert first.returncode == 0 and first.stdout in ("", told.stdout)
        assert note.stat().st_mode & 0o777 == 0o600
        assert "passphrase" in note.read_text().lower()
        message = json.loads(told.stdout)["systemMessage"]
        assert message.startswith("Memory Center is off for this session:")
        assert "passphrase" in message.lower()
        assert [(d.returncode, d.stdout) for d in again] == [(0, ""), (0, "")]  # once a session
        assert json.loads(told_other.stdout)["systemMessage"] == message
        # `hook status` says the same, and still what is installed, instead of only failing.
        _cli("hook", "install", "claude-code", "--project", str(tmp_path), data_dir=data_dir)
        status = CliRunner().invoke(
            cli, ["--data-dir", str(data_dir), "hook", "status", "--project", str(tmp_path)]
        )
        assert status.exit_code == 1
        assert "memory is off:" in status.stdout and "passphrase" in status.stdout.lower()
        assert "store    cannot open:" in status.stdout
        assert "SessionStart" in status.stdout  # the installed events are listed


def _bundle(tmp_path: Path, *, with_hook: bool) -> Path:
    """A desktop build's folder: the main program and, unless told, the hook program."""
    folder = tmp_path / "bundle"
    folder.mkdir()
    names = ["memory-center", *(["memory-center-hook"] if with_hook else [])]
    for name in names:
        (folder / name).write_text("#!/bin/sh\n", encoding="utf-8")
        (folder / name).chmod(0o755)
    return folder / "memory-center"


def test_the_bundle_installs_its_hook_program_and_that_names_the_main_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """#42: from the desktop build, the command written is the bundle's hook program (the
    client alone, which starts in tens of milliseconds), and that program starts the daemon,
    and runs a hook without one, through the main program beside it. A bundle without the
    hook program keeps the main program's own `hook` verb."""
    from app.hooks import client

    store = tmp_path / "store"
    main = _bundle(tmp_path, with_hook=True)
    hook = main.with_name("memory-center-hook")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(main))
    written = shlex.split(install.hook_command(store).removesuffix(install.MARKER))
    assert written == [str(hook), "claude-code", "--data-dir", str(store)]
    assert client.main_program() is None  # the main program is not the hook program
    monkeypatch.setattr(sys, "executable", str(hook))
    assert client.main_program() == str(main)
    assert client.daemon_command(str(store))[:2] == [str(main), "--data-dir"]
    # Both programs name the same code: the daemon the main program runs is not replaced
    # at every call of the hook program, and is when the bundle changes.
    stamp = client.code_stamp()
    monkeypatch.setattr(sys, "executable", str(main))
    assert client.code_stamp() == stamp != "frozen:-"
    os.utime(main, ns=(1, 1))
    assert client.code_stamp() != stamp
    old = tmp_path / "old"
    old.mkdir()
    monkeypatch.setattr(sys, "executable", str(_bundle(old, with_hook=False)))
    written = shlex.split(install.hook_command(store).removesuffix(install.MARKER))
    assert written[1:] == ["--data-dir", str(store), "hook", "claude-code"]
