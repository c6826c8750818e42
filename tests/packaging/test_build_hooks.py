"""The Claude Code hooks of the desktop build (packaging/build.sh), installed and run the way a
user's Claude Code runs them (#42, R17).

The hooks are installed by the bundle's own program (its `hook install`, the same function
Settings -> Connected agents calls inside the same program; and once through the bundle's
window itself, on an X display, with the keys a user presses), then every Claude Code hook
event is run through the command written in the settings file, through a shell, with the
payload Claude Code documents on stdin: exit code 0, nothing on stderr that Claude Code would
show, stdout empty or the JSON Claude Code reads, and within the timeout the settings file
gives Claude Code (beyond it Claude Code kills the hook). Also with the store locked by
another writer and with no passphrase in the environment.

Run by packaging/check.sh after building (`-m build`).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import PASSPHRASE

pytestmark = pytest.mark.build

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "dist" / "memory-center"
MARKER = "# memory-center-hook"
INSTALLED = ("SessionStart", "UserPromptSubmit", "PostToolUse", "PreCompact", "Stop", "SessionEnd")
OTHERS = ("PreToolUse", "Notification", "SubagentStop")
"""Events Claude Code also has; our command is not installed for them, but a user may
point them at it: they must be as harmless."""
MEMORY = "We deploy the shop with blue-green releases behind the load balancer."
STORE_FILE = "memory-center.sqlite3"


@dataclass(frozen=True)
class Ran:
    event: str
    code: int
    stdout: str
    stderr: str
    seconds: float
    timeout: int


@pytest.fixture(scope="module")
def exe() -> Path:
    path = APP / "memory-center"
    if not path.is_file():
        pytest.fail(f"no desktop build at {APP}: run packaging/build.sh first")
    return path


@pytest.fixture
def runtime() -> Iterator[Path]:
    """A private runtime folder for the daemon's socket and queue (short: socket paths)."""
    with tempfile.TemporaryDirectory(prefix="mcb") as folder:
        yield Path(folder)


def _env(store: Path, runtime: Path, *, passphrase: bool = True) -> dict[str, str]:
    """Claude Code's environment: the user's, nothing of this checkout's Python."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "MEMORY_CENTER"))}
    env.update(
        MEMORY_CENTER_DATA_DIR=str(store),
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
        XDG_RUNTIME_DIR=str(runtime),
        OPENBLAS_NUM_THREADS="1",
        MEMORY_CENTER_HOOK_IDLE="120",
        MEMORY_CENTER_USER="alice",  # the user is never the repository's to say
    )
    if passphrase:
        env["MEMORY_CENTER_PASSPHRASE"] = PASSPHRASE
    return env


def _cli(exe: Path, env: dict[str, str], *args: str, cwd: Path) -> str:
    done = subprocess.run(
        [str(exe), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"{args}: {done.stderr}"
    return done.stdout


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "shop"
    project.mkdir()
    (project / ".memory-center.toml").write_text('[memory]\nproject = "shop"\n', encoding="utf-8")
    return project


def _install(exe: Path, env: dict[str, str], project: Path) -> dict[str, tuple[str, int]]:
    """Install from the bundle; event -> (command, timeout) as written for Claude Code."""
    _cli(exe, env, "hook", "install", "claude-code", "--project", str(project), cwd=project)
    settings = json.loads((project / ".claude" / "settings.json").read_text(encoding="utf-8"))
    found: dict[str, tuple[str, int]] = {}
    for event, groups in settings["hooks"].items():
        for group in groups:
            for handler in group["hooks"]:
                if MARKER in handler["command"]:
                    found[event] = (handler["command"], int(handler["timeout"]))
    return found


def _transcript(folder: Path, session: str) -> Path:
    """A short Claude Code transcript: one prompt and one answer."""
    path = folder / f"{session}.jsonl"
    lines = [
        {
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "sessionId": session,
            "timestamp": "2026-12-06T10:00:00.000Z",
            "cwd": str(folder),
            "message": {"role": "user", "content": "Add a health check to the shop's API."},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "sessionId": session,
            "timestamp": "2026-12-06T10:00:05.000Z",
            "cwd": str(folder),
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "Added GET /health returning 200."}],
            },
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _payload(event: str, session: str, project: Path, transcript: Path) -> dict[str, Any]:
    """The stdin of each event, with the fields Claude Code's hook reference documents."""
    base: dict[str, Any] = {
        "session_id": session,
        "transcript_path": str(transcript),
        "cwd": str(project),
        "hook_event_name": event,
    }
    tool = {"tool_name": "Bash", "tool_input": {"command": "make test"}, "tool_use_id": "toolu_1"}
    extra: dict[str, dict[str, Any]] = {
        "SessionStart": {"source": "startup"},
        "UserPromptSubmit": {"prompt": "How do we deploy the shop?"},
        "PreToolUse": tool,
        "PostToolUse": {**tool, "tool_response": {"stdout": "12 passed", "stderr": ""}},
        "Notification": {"message": "Claude needs your permission to use Bash"},
        "Stop": {"stop_hook_active": False},
        "SubagentStop": {"stop_hook_active": False},
        "PreCompact": {"trigger": "manual", "custom_instructions": ""},
        "SessionEnd": {"reason": "exit"},
    }
    return {**base, **extra[event]}


def _run(command: str, timeout: int, payload: dict[str, Any], env: dict[str, str]) -> Ran:
    """Run one hook as Claude Code does: the command line through a shell, JSON on stdin."""
    start = time.monotonic()
    done = subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(payload),
        env=env,
        cwd=payload["cwd"],
        capture_output=True,
        text=True,
        timeout=timeout + 60,  # a deadlock detector; the contract is checked below
    )
    seconds = time.monotonic() - start
    return Ran(
        payload["hook_event_name"], done.returncode, done.stdout, done.stderr, seconds, timeout
    )


def _check(ran: Ran) -> dict[str, Any] | None:
    """Claude Code's contract: exit 0, within its timeout, stdout empty or a JSON object of
    the fields it reads. Returns the object (None for no output)."""
    assert ran.code == 0, f"{ran.event}: exit {ran.code}: {ran.stderr}"
    assert "Traceback" not in ran.stderr, ran.stderr
    assert ran.seconds < ran.timeout, f"{ran.event} took {ran.seconds:.1f} s"
    if not ran.stdout.strip():
        return None
    doc = json.loads(ran.stdout)
    assert isinstance(doc, dict) and set(doc) <= {"hookSpecificOutput", "systemMessage"}, doc
    specific = doc.get("hookSpecificOutput")
    if specific is not None:
        assert ran.event in ("SessionStart", "UserPromptSubmit"), ran
        assert specific["hookEventName"] == ran.event
        assert isinstance(specific["additionalContext"], str) and specific["additionalContext"]
    return doc


def _stop_daemon(runtime: Path) -> None:
    """Stop the daemon the hooks started (its pid is in its lock file); it drains its queue
    before it exits."""
    for lock in runtime.rglob("*.lock"):
        try:
            pid = int(lock.read_text().strip() or "0")
        except (OSError, ValueError):
            continue
        if not pid:
            continue
        try:
            os.kill(pid, signal.SIGTERM)
            for _ in range(600):
                os.kill(pid, 0)
                time.sleep(0.1)
        except ProcessLookupError:
            pass


def _session_events(exe: Path, env: dict[str, str], session: str, cwd: Path) -> list[dict]:
    out = _cli(exe, env, "--json", "event", "list", "--session", session, cwd=cwd)
    doc = json.loads(out)
    return doc if isinstance(doc, list) else doc["events"]


def _all_events(
    commands: dict[str, tuple[str, int]],
    session: str,
    project: Path,
    transcript: Path,
    env: dict[str, str],
) -> list[Ran]:
    command = commands["UserPromptSubmit"][0]
    ran = [
        _run(*commands[event], _payload(event, session, project, transcript), env)
        for event in INSTALLED
    ]
    ran += [
        _run(command, 5, _payload(event, session, project, transcript), env) for event in OTHERS
    ]
    return ran


def _assert_the_hook_program(commands: dict[str, tuple[str, int]], exe: Path, store: Path) -> None:
    """Every command is the bundle's hook program (the client alone, frozen): no Python
    options (they exited 2), and not the main program, whose start alone took 0.2-0.4 s."""
    hook = str(exe.with_name("memory-center-hook"))
    for command, _timeout in commands.values():
        assert command.split()[:4] == [hook, "claude-code", "--data-dir", str(store)], command


def _every_event_then_the_memory(
    commands: dict[str, tuple[str, int]],
    session: str,
    project: Path,
    transcript: Path,
    env: dict[str, str],
    runtime: Path,
) -> tuple[list[Ran], dict[str, dict[str, Any] | None], dict[str, Any] | None]:
    """Every event once, checked against Claude Code's contract, then prompts until the
    memory is injected: (the runs, the answers by event, the prompt's answer). The first
    prompt may go on without memory while the daemon starts (the deadline); once it is up,
    the memory comes through the same command. The daemon is stopped at the end."""
    try:
        ran = _all_events(commands, session, project, transcript, env)
        answers = {r.event: _check(r) for r in ran}
        command, timeout = commands["UserPromptSubmit"]
        prompt = _payload("UserPromptSubmit", session, project, transcript)
        for _ in range(20):
            doc = _check(_run(command, timeout, prompt, env))
            if doc is not None:
                break
            time.sleep(0.5)
    finally:
        _stop_daemon(runtime)
    return ran, answers, doc


def _store_with_hooks(
    exe: Path, tmp_path: Path, runtime: Path
) -> tuple[Path, Path, dict[str, str], dict[str, tuple[str, int]]]:
    """A store holding MEMORY for alice, and the hooks installed from the bundle into a
    project: (store, project, environment, commands by event)."""
    store = tmp_path / "store"
    project = _project(tmp_path)
    env = _env(store, runtime)
    _cli(exe, env, "init", cwd=project)
    _cli(exe, env, "remember", "--scope", "user=alice", "--text", MEMORY, cwd=project)
    return store, project, env, _install(exe, env, project)


def test_hooks_installed_from_the_bundle_answer_every_event(
    exe: Path, tmp_path: Path, runtime: Path
) -> None:
    store, project, env, commands = _store_with_hooks(exe, tmp_path, runtime)
    assert set(commands) == set(INSTALLED)
    _assert_the_hook_program(commands, exe, store)
    transcript = _transcript(tmp_path, "bundle-1")
    ran, answers, doc = _every_event_then_the_memory(
        commands, "bundle-1", project, transcript, env, runtime
    )
    assert doc is not None and "blue-green" in doc["hookSpecificOutput"]["additionalContext"]
    assert all(answers[e] is None for e in ("PostToolUse", "PreCompact", "Stop", "SessionEnd"))
    assert all(answers[e] is None for e in OTHERS)
    events = _session_events(exe, env, "claude-code:bundle-1", project)
    texts = [e["text"] for e in events]
    assert 'Bash({"command": "make test"})' in texts  # the queued tool call was ingested
    assert "Add a health check to the shop's API." in texts  # the transcript, at Stop
    for r in ran:
        print(f"{r.event}: {r.seconds * 1000:.0f} ms")


def test_bundle_hooks_return_while_the_store_is_locked(
    exe: Path, tmp_path: Path, runtime: Path
) -> None:
    store = tmp_path / "store"
    project = _project(tmp_path)
    env = _env(store, runtime)
    _cli(exe, env, "init", cwd=project)
    commands = _install(exe, env, project)
    transcript = _transcript(tmp_path, "bundle-locked")
    lock = sqlite3.connect(store / STORE_FILE, timeout=0, isolation_level=None)
    try:
        lock.execute("BEGIN EXCLUSIVE")  # another writer holds the store: every write waits
        ran = _all_events(commands, "bundle-locked", project, transcript, env)
        lock.execute("COMMIT")
        for r in ran:
            _check(r)
    finally:
        lock.close()
        _stop_daemon(runtime)  # drains the queue now that the store is free
    texts = [e["text"] for e in _session_events(exe, env, "claude-code:bundle-locked", project)]
    assert 'Bash({"command": "make test"})' in texts
    for r in ran:
        print(f"locked {r.event}: {r.seconds * 1000:.0f} ms")


def test_bundle_hooks_without_a_passphrase_tell_the_session_once(
    exe: Path, tmp_path: Path, runtime: Path
) -> None:
    store = tmp_path / "store"
    project = _project(tmp_path)
    _cli(exe, _env(store, runtime), "init", cwd=project)
    commands = _install(exe, _env(store, runtime), project)
    env = _env(store, runtime, passphrase=False)
    transcript = _transcript(tmp_path, "bundle-nopass")
    told: list[str] = []
    try:
        for session in ("bundle-nopass", "bundle-nopass-2"):
            for r in _all_events(commands, session, project, transcript, env):
                doc = _check(r)
                if doc is not None:
                    assert set(doc) == {"systemMessage"}, doc
                    told.append(f"{session}: {doc['systemMessage']}")
            # The daemon that could not open the store has left its note by now: the next
            # session's first hook tells it (the first session's may have come too early).
            deadline = time.monotonic() + 60
            while not list(runtime.rglob("*.error")) and time.monotonic() < deadline:
                time.sleep(0.2)
    finally:
        _stop_daemon(runtime)
    assert list(runtime.rglob("*.error")), "no daemon left a note"
    second = [t for t in told if t.startswith("bundle-nopass-2:")]
    assert len(second) == 1, told  # once per session, not at every call
    assert "Memory Center is off for this session" in second[0]
    assert "passphrase" in second[0].lower()
    assert len(told) <= 2


def test_the_bundle_hook_program_without_a_daemon_runs_the_hook_in_the_main_program(
    exe: Path, tmp_path: Path, runtime: Path
) -> None:
    """The hook program has no engine: with the daemon switched off it hands the hook to the
    main program beside it, which injects the memory and records the tool call itself."""
    _store, project, env, commands = _store_with_hooks(exe, tmp_path, runtime)
    env["MEMORY_CENTER_HOOK_DAEMON"] = "0"
    transcript = _transcript(tmp_path, "bundle-direct")
    prompt = _payload("UserPromptSubmit", "bundle-direct", project, transcript)
    doc = _check(_run(*commands["UserPromptSubmit"], prompt, env))
    assert doc is not None and "blue-green" in doc["hookSpecificOutput"]["additionalContext"]
    tool = _payload("PostToolUse", "bundle-direct", project, transcript)
    assert _check(_run(*commands["PostToolUse"], tool, env)) is None
    texts = [e["text"] for e in _session_events(exe, env, "claude-code:bundle-direct", project)]
    assert 'Bash({"command": "make test"})' in texts
    assert not list(runtime.rglob("*.sock"))  # no daemon was started


def _xdotool(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        ["xdotool", *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, f"xdotool {args}: {done.stderr}"
    return done.stdout


def _hook_commands(settings: Path) -> dict[str, tuple[str, int]]:
    """Our command per event in a Claude Code settings file (empty while there is none)."""
    try:
        doc = json.loads(settings.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {
        event: (handler["command"], int(handler["timeout"]))
        for event, groups in doc.get("hooks", {}).items()
        for group in groups
        for handler in group["hooks"]
        if MARKER in handler["command"]
    }


def test_hooks_installed_in_the_bundles_window_answer_every_event(
    exe: Path, tmp_path: Path, runtime: Path, xdisplay: str
) -> None:
    """Settings -> Connected agents -> Install (your user settings), pressed in the bundle's
    own window on an X display with the keys a user would press (Ctrl+4 for Settings, then
    Alt+I): the command the window writes answers every event as Claude Code runs it."""
    store = tmp_path / "store"
    project = _project(tmp_path)
    claude = tmp_path / "claude-config"
    env = {**_env(store, runtime), "CLAUDE_CONFIG_DIR": str(claude)}
    _cli(exe, env, "init", cwd=project)
    _cli(exe, env, "remember", "--scope", "user=alice", "--text", MEMORY, cwd=project)
    settings = claude / "settings.json"
    shown = {**env, "DISPLAY": xdisplay, "QT_QPA_PLATFORM": "xcb"}
    gui = subprocess.Popen(
        [str(exe), "gui"],
        env=shown,
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _xdotool(shown, "search", "--sync", "--onlyvisible", "--name", "^Memory Center$")
        deadline = time.monotonic() + 60
        while not _hook_commands(settings) and time.monotonic() < deadline:
            assert gui.poll() is None, "the window closed"
            # Found again each time: the window may be made anew while it starts (a
            # window id from the first search can be gone by the time it is focused).
            found = _xdotool(shown, "search", "--onlyvisible", "--name", "^Memory Center$")
            if not found.split():
                time.sleep(0.5)
                continue
            window = found.split()[-1]
            subprocess.run(
                ["xdotool", "windowfocus", "--sync", window],
                env=shown,
                capture_output=True,
                timeout=30,
                check=False,
            )
            _xdotool(shown, "key", "--clearmodifiers", "ctrl+4")
            time.sleep(1.0)  # the Settings page is built on first show
            _xdotool(shown, "key", "--clearmodifiers", "alt+i")
            time.sleep(1.0)
    finally:
        gui.terminate()
        _, err = gui.communicate(timeout=30)
    assert "Traceback" not in err
    commands = _hook_commands(settings)
    assert set(commands) == set(INSTALLED), f"no hooks written by the window: {err[-2000:]}"
    _assert_the_hook_program(commands, exe, store)
    transcript = _transcript(tmp_path, "window-1")
    _ran, answers, doc = _every_event_then_the_memory(
        commands, "window-1", project, transcript, env, runtime
    )
    assert doc is not None and "blue-green" in doc["hookSpecificOutput"]["additionalContext"]
    assert all(answers[e] is None for e in ("PostToolUse", "PreCompact", "Stop", "SessionEnd"))
