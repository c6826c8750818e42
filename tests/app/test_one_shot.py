"""Per-turn commands in a process of their own (#13): `app.one_shot` changes what their
start and end cost, never what they do. Every test runs real processes through the
`memory-center` entry point (`app.launch.main`) on a real store.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import PASSPHRASE
from tests.support.cli_process import checkout_env, run_python

LAUNCH = "from app.launch import main; main()"

pytestmark = pytest.mark.slow


def _env(store: Path, passphrase: str = PASSPHRASE) -> dict[str, str]:
    return checkout_env(
        store, passphrase, MEMORY_CENTER_EMBEDDER="hashing", MEMORY_CENTER_CLI_DAEMON="0"
    )


def _cli(store: Path, *args: str, passphrase: str = PASSPHRASE) -> subprocess.CompletedProcess[str]:
    return run_python(LAUNCH, *args, env=_env(store, passphrase))


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("one-shot") / "store"
    assert _cli(path, "init").returncode == 0
    return path


def test_writes_of_a_one_shot_process_are_saved_with_their_vectors(store: Path) -> None:
    """The process ends without the interpreter's teardown, but only after the command closed
    its store: the memory is there for the next process, and so is its vector, which the
    close saved to the index file."""
    done = _cli(store, "remember", "--scope", "user=ana", "--text", "I take the 7:40 train")
    assert done.returncode == 0, done.stderr
    listed = _cli(store, "--json", "memory", "list")
    assert listed.returncode == 0, listed.stderr
    assert "7:40 train" in listed.stdout
    assert (store / "index" / "keywords.mcidx").exists()
    assert {"vectors.mcidx", "vectors.delta.mcidx"} & {p.name for p in (store / "index").iterdir()}
    index = _cli(store, "--json", "index", "status")
    assert index.returncode == 0, index.stderr
    report = json.loads(index.stdout)
    assert report["vector"]["vectors"] == report["active_memories"] >= 1
    status = _cli(store, "--json", "status")
    assert json.loads(status.stdout)["memory_counts"]["active"] >= 1


def test_failures_keep_their_exit_code_and_one_line(store: Path) -> None:
    """Bad input: the exit code and the message are the interpreter's ordinary ones."""
    missing = _cli(store, "memory", "show", "mem_does_not_exist")
    assert missing.returncode == 1
    assert missing.stderr.strip() == "error: memory not found: mem_does_not_exist"
    wrong = _cli(store, "status", passphrase="not the passphrase at all")
    assert wrong.returncode == 1
    assert "wrong passphrase" in wrong.stderr
    assert wrong.stdout == ""
    usage = _cli(store, "status", "--no-such-option")
    assert usage.returncode == 2
    assert "No such option" in usage.stderr


def test_output_written_to_a_pipe_arrives_whole(store: Path) -> None:
    """stdout is a pipe here (block-buffered): everything is flushed before the process
    ends, up to the last line."""
    listed = _cli(store, "memory", "list")
    assert listed.returncode == 0, listed.stderr
    status = _cli(store, "status")
    assert status.stdout.splitlines()[0].startswith("store:")
    assert status.stdout.rstrip().splitlines()[-1].startswith("memories:")


RUN = """
import gc, sys, threading, time
from pathlib import Path
from app import one_shot

def command():
    print("collector during start-up:", gc.isenabled())
    one_shot.settled()
    print("collector for the command:", gc.isenabled(), gc.get_freeze_count() > 0)
    if sys.argv[1] == "thread":
        def late():
            time.sleep(0.3)
            print("the command's thread finished")
        threading.Thread(target=late).start()
    sys.exit(sys.argv[2] if not sys.argv[2].isdigit() else int(sys.argv[2]))

one_shot.run(command, Path(sys.argv[3]))
print("never reached")
"""


@pytest.mark.parametrize(("code", "expected"), [("0", 0), ("3", 3), ("a message", 1)])
def test_the_exit_code_is_the_commands_own(tmp_path: Path, code: str, expected: int) -> None:
    """The collector is off while the command starts and on (with the start-up objects
    frozen out of it) once `settled` is called; `sys.exit`'s code or message is kept."""
    done = run_python(RUN, "plain", code, str(tmp_path), env=_env(tmp_path))
    assert done.returncode == expected, done.stderr
    assert done.stdout.splitlines() == [
        "collector during start-up: False",
        "collector for the command: True True",
    ]
    assert done.stderr == ("a message\n" if expected == 1 else "")


def test_a_thread_the_command_started_is_waited_for(tmp_path: Path) -> None:
    done = run_python(RUN, "thread", "0", str(tmp_path), env=_env(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "the command's thread finished"
