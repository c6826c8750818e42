"""Several real processes share one store safely (R1, R3, R30)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core import MemoryService
from tests.conftest import PASSPHRASE

REPO_ROOT = Path(__file__).resolve().parents[3]
N = 200
TIMEOUT = 180

APPEND_SCRIPT = """
import sys
from pathlib import Path
from core import MemoryService, NewEvent

data_dir, session, n, passphrase = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
with MemoryService.open(data_dir, passphrase=passphrase, prefer_keyring=False) as svc:
    for i in range(n):
        svc.events.append_event(
            NewEvent(session=session, actor="tool", trust="tool_verified",
                     scope={"user": "u1"}, text=f"{session} 第{i + 1}条")
        )
"""

OPEN_SCRIPT = """
import sys, time
from pathlib import Path
from core import MemoryService, NewEvent

data_dir, passphrase, name, sync = Path(sys.argv[1]), sys.argv[2], sys.argv[3], Path(sys.argv[4])
(sync / f"ready-{name}").touch()
while not (sync / "go").exists():
    time.sleep(0.001)
with MemoryService.open(data_dir, passphrase=passphrase, prefer_keyring=False) as svc:
    svc.events.append_event(
        NewEvent(session=name, actor="user", trust="user", scope={"user": "u1"}, text="hi")
    )
    print(svc.status().store_id)
"""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO_ROOT)
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    env.pop("MEMORY_CENTER_PASSPHRASE", None)
    return env


def _start(commands: list[list[str]]) -> list[subprocess.Popen[str]]:
    return [
        subprocess.Popen(
            cmd,
            env=_env(),
            cwd=REPO_ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for cmd in commands
    ]


def _finish(procs: list[subprocess.Popen[str]]) -> list[subprocess.CompletedProcess[str]]:
    done = []
    for proc in procs:
        out, err = proc.communicate(timeout=TIMEOUT)
        done.append(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
    return done


def _run_all(commands: list[list[str]]) -> list[subprocess.CompletedProcess[str]]:
    return _finish(_start(commands))


def _release_when_ready(sync: Path, count: int) -> None:
    """Let the waiting processes go at the same moment once all have started."""
    deadline = time.monotonic() + TIMEOUT
    while len(list(sync.glob("ready-*"))) < count:
        assert time.monotonic() < deadline, "subprocesses did not start"
        time.sleep(0.01)
    (sync / "go").touch()


@pytest.mark.slow
def test_concurrent_appends_from_three_processes(service: MemoryService, data_dir: Path) -> None:
    """R30, R3: three processes appending at once lose nothing and keep one intact chain."""
    service.close()
    sessions = ["proc-a", "proc-b", "进程-c"]
    results = _run_all(
        [
            [sys.executable, "-c", APPEND_SCRIPT, str(data_dir), name, str(N), PASSPHRASE]
            for name in sessions
        ]
    )
    for result in results:
        assert result.returncode == 0, result.stderr
    with MemoryService.open(data_dir, passphrase=PASSPHRASE) as svc:
        status = svc.status()
        assert status.event_count == N * len(sessions)
        events = svc.events.list_events(limit=10_000)
        assert [e.position for e in events] == list(range(1, N * len(sessions) + 1))
        for name in sessions:
            mine = [e for e in events if e.session_id == name]
            assert [e.seq for e in mine] == list(range(1, N + 1))
            assert [e.text for e in mine] == [f"{name} 第{i}条" for i in range(1, N + 1)]
            assert svc.events.get_session(name).event_count == N
        report = svc.verify()
        assert report.ok, report.first_failure
        assert report.events_checked == N * len(sessions)
        assert status.revision == N * len(sessions)


@pytest.mark.slow
def test_concurrent_first_open_creates_one_store(tmp_path: Path) -> None:
    """R30: processes that create the same store at once all succeed and no write is lost."""
    names = ["p0", "p1", "p2"]
    data_dir, sync = tmp_path / "fresh", tmp_path / "sync"
    sync.mkdir()
    procs = _start(
        [
            [sys.executable, "-c", OPEN_SCRIPT, str(data_dir), PASSPHRASE, name, str(sync)]
            for name in names
        ]
    )
    _release_when_ready(sync, len(names))
    results = _finish(procs)
    errors = [r.stderr.strip().splitlines()[-1] for r in results if r.returncode != 0]
    assert errors == []
    store_ids = {r.stdout.strip() for r in results}
    assert len(store_ids) == 1
    with MemoryService.open(data_dir, passphrase=PASSPHRASE) as svc:
        assert svc.status().store_id in store_ids
        assert sorted(e.session_id for e in svc.events.list_events()) == names
        assert svc.verify().ok
