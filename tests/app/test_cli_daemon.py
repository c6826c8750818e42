"""Per-turn CLI commands answered by the store's daemon (#13, R17, R30).

Real processes throughout: `memory-center daemon start` starts the real daemon on a real
encrypted store; each command is the `memory-center` entry point (`app.launch:main`) in a
fresh Python process. A command the daemon answers must give exactly what it gives in
process, without the process importing the engine.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.hooks.cli_forward import command_of
from tests.app.hook_support import hook_env, stop_daemon

REPO_ROOT = Path(__file__).resolve().parents[2]
# The console script, plus a last stderr line saying whether this process imported the
# command line or the engine (a command the daemon answered needs neither).
ENTRY = """
import atexit, sys

def probe():
    here = "app.cli" in sys.modules or "sqlalchemy" in sys.modules
    sys.stderr.write("\\nIN PROCESS " + ("yes" if here else "no") + "\\n")

# An exit handler: a command run in process ends the process itself (app/one_shot.py).
atexit.register(probe)
from app.launch import main
main()
"""
SCOPE = ("--scope", "user=alice")


@pytest.fixture
def runtime() -> Iterator[Path]:
    """A short private runtime directory (Unix socket paths are limited to ~100 bytes)."""
    with tempfile.TemporaryDirectory(prefix="mcd") as folder:
        yield Path(folder)


@pytest.fixture
def env(runtime: Path, tmp_path: Path) -> dict[str, str]:
    return {
        **hook_env(runtime, daemon=True),
        "MEMORY_CENTER_DATA_DIR": str(tmp_path / "store"),
        "PYTHONPATH": str(REPO_ROOT),
    }


@pytest.fixture
def daemon(env: dict[str, str], runtime: Path, tmp_path: Path) -> Iterator[Path]:
    """A store with two memories and its daemon running."""
    store = tmp_path / "store"
    _ok(run(env, "init"))
    _ok(run(env, "remember", *SCOPE, "--text", "Alice takes her coffee black"))
    _ok(run(env, "remember", *SCOPE, "--text", "Alice's team deploys on Thursdays"))
    started = run(env, "daemon", "start", "--idle", "120")
    _ok(started)
    assert "daemon running (pid" in started.stdout
    try:
        yield store
    finally:
        stop_daemon(store, runtime)


def run(
    env: dict[str, str], *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", ENTRY, *args],
        env=env,
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=120,
    )


def _ok(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stderr


def served(done: subprocess.CompletedProcess[str]) -> bool:
    """True when the command was answered without importing the engine here."""
    last = done.stderr.rstrip().splitlines()[-1]
    return last == "IN PROCESS no"


def output(done: subprocess.CompletedProcess[str]) -> str:
    """stderr without the probe's own line."""
    return done.stderr.rstrip().rpartition("\n")[0].strip()


def local(env: dict[str, str]) -> dict[str, str]:
    return {**env, "MEMORY_CENTER_CLI_DAEMON": "0"}


def test_reads_answer_the_same_as_in_process(daemon: Path, env: dict[str, str]) -> None:
    for args in (
        ("--json", "memory", "list"),
        ("search", *SCOPE, "coffee"),
        ("--json", "candidates", "list"),
        ("memory", "list", "--json"),
    ):
        there, here = run(env, *args), run(local(env), *args)
        assert served(there), args
        assert not served(here), args
        assert (there.returncode, there.stdout) == (here.returncode, here.stdout), args
    status = run(env, "--json", "status")
    assert served(status)
    assert json.loads(status.stdout)["memory_counts"]["active"] == 2


def test_writes_through_the_daemon_land_in_the_store(daemon: Path, env: dict[str, str]) -> None:
    remembered = run(env, "remember", *SCOPE, "--text", "Alice is allergic to peanuts")
    assert served(remembered)
    _ok(remembered)
    added = run(
        env,
        *("event", "add", "--session", "s1", "--actor", "user", "--trust", "user", *SCOPE),
        stdin=json.dumps({"text": "Plan the Lisbon offsite", "data": {"turn": 1}}),
    )
    assert served(added)
    _ok(added)
    injected = run(env, "--json", "inject", *SCOPE, "what is Alice allergic to?")
    assert served(injected)
    block = json.loads(injected.stdout)["result"]
    assert "peanuts" in block["text"]
    # Read back by a process that opens the store itself.
    memories = json.loads(run(local(env), "--json", "memory", "list").stdout)
    assert "Alice is allergic to peanuts" in [m["content"] for m in memories]
    events = json.loads(run(local(env), "--json", "event", "list", "--session", "s1").stdout)
    assert [e["text"] for e in events] == ["Plan the Lisbon offsite"]
    snapshot = run(local(env), "--json", "snapshot", "show", block["snapshot_id"])
    _ok(snapshot)


def test_bad_input_gets_the_same_error_and_writes_nothing(
    daemon: Path, env: dict[str, str]
) -> None:
    before = run(local(env), "--json", "status").stdout
    there = run(env, "remember", *SCOPE, "--text", "   ")
    here = run(local(env), "remember", *SCOPE, "--text", "   ")
    assert served(there)
    assert there.returncode == here.returncode == 1
    assert output(there) == output(here) == "error: text: must not be empty or blank"
    bad_json = run(
        env,
        *("event", "add", "--session", "s1", "--actor", "user", "--trust", "user", *SCOPE),
        stdin="{not json",
    )
    assert served(bad_json)
    assert bad_json.returncode == 1
    assert "stdin" in output(bad_json)
    usage = run(env, "remember", "--no-such-option")
    assert usage.returncode == 2
    assert "No such option" in output(usage)
    assert json.loads(run(local(env), "--json", "status").stdout) == json.loads(before)


def test_another_environment_runs_in_process(daemon: Path, env: dict[str, str]) -> None:
    """A different passphrase (or any MEMORY_CENTER_* setting) gets the answer it would get
    without a daemon: here, the wrong passphrase is refused."""
    wrong = run({**env, "MEMORY_CENTER_PASSPHRASE": "not the passphrase"}, "status")
    assert not served(wrong)
    assert wrong.returncode == 1
    assert "wrong passphrase" in output(wrong)


def test_a_refused_hand_over_keeps_the_stdin_it_read(daemon: Path, env: dict[str, str]) -> None:
    """`event add` reads its payload before asking the daemon; when the daemon refuses (here:
    another environment), the command runs in process with that same payload."""
    other = {**env, "MEMORY_CENTER_USER": "someone-else"}
    added = run(
        other,
        *("event", "add", "--session", "s2", "--actor", "user", "--trust", "user", *SCOPE),
        stdin=json.dumps({"text": "Book the Porto train"}),
    )
    assert not served(added)
    _ok(added)
    events = json.loads(run(local(env), "--json", "event", "list", "--session", "s2").stdout)
    assert [e["text"] for e in events] == ["Book the Porto train"]


def test_commands_outside_the_list_run_in_process(daemon: Path, env: dict[str, str]) -> None:
    for args in (("--help",), ("status", "--help"), ("policy", "show")):
        done = run(env, *args)
        assert not served(done), args
        _ok(done)


def test_stopped_or_killed_daemon_falls_back(
    daemon: Path, env: dict[str, str], runtime: Path
) -> None:
    stopped = run(env, "daemon", "stop")
    _ok(stopped)
    assert "daemon stopped" in stopped.stdout
    assert run(env, "daemon", "status").stdout.strip() == "not running"
    done = run(env, "remember", *SCOPE, "--text", "Alice flies to Lisbon in May")
    assert not served(done)
    _ok(done)
    # A daemon killed outright leaves its socket and token behind: still no harm.
    _ok(run(env, "daemon", "start"))
    pid = json.loads(run(env, "--json", "daemon", "status").stdout)["daemon_pid"]
    os.kill(pid, signal.SIGKILL)
    time.sleep(0.2)
    after = run(env, "--json", "memory", "list")
    assert not served(after)
    _ok(after)
    assert len(json.loads(after.stdout)) == 3


def test_daemon_start_names_the_reason_it_cannot_open(
    env: dict[str, str], runtime: Path, tmp_path: Path
) -> None:
    _ok(run(env, "init"))
    bad = {**env, "MEMORY_CENTER_PASSPHRASE": "not the passphrase"}
    done = run(bad, "daemon", "start")
    assert done.returncode == 1
    assert output(done).startswith("error: the daemon could not open the store: ")
    assert "passphrase" in output(done)
    assert run(env, "daemon", "status").stdout.strip() == "not running"


def test_which_commands_the_daemon_may_run() -> None:
    assert command_of(["status"]) == (None, "status", "")
    assert command_of(["--json", "--data-dir", "/s", "memory", "list"]) == ("/s", "memory", "list")
    assert command_of(["--data-dir=/s", "event", "add", "--text", "x"]) == ("/s", "event", "add")
    assert command_of(["memory", "delete", "mem_1", "--reason", "x"]) is None
    assert command_of(["status", "--data-dir", "/other"]) is None
    assert command_of(["inject", "--help"]) is None
    assert command_of(["gui"]) is None
    assert command_of([]) is None
