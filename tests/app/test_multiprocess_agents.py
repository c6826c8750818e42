"""Several processes on one store at once (R30): two SDK agents and a CLI writer.

Afterwards every write is there exactly once and the hash chain verifies; a deletion made in
one process stops injection in another process on its very next call.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core import MemoryService
from tests.conftest import PASSPHRASE

REPO = Path(__file__).resolve().parents[2]
SECONDS = 3.0
SCOPE = {"user": "alice", "project": "shop"}

AGENT = r"""
import json, sys, time
from pathlib import Path
from core import MemoryService
from core.sdk import MemoryRuntime
data_dir, name = Path(sys.argv[1]), sys.argv[2]
start, seconds = float(sys.argv[3]), float(sys.argv[4])
svc = MemoryService.open(data_dir, passphrase=sys.argv[5], prefer_keyring=False)
rt = MemoryRuntime(svc, {"user": "alice", "project": "shop"}, name, agent=name)
while time.time() < start:
    time.sleep(0.01)
written = injected = degraded = 0
while time.time() < start + seconds:
    block, snap = rt.inject("how does the shop deploy")
    injected += snap is not None
    rt.sync_turn([{"role": "user", "text": f"{name} turn {written}"},
                  {"role": "assistant", "text": f"{name} reply {written}"}])
    written += 2
rt.close(); svc.close()
print(json.dumps({"written": written, "injected": injected, "degraded": rt.state.degraded}))
"""

CLI = r"""
import json, sys, time
from click.testing import CliRunner
from app.cli import cli
data_dir, start, seconds = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
env = {"MEMORY_CENTER_DATA_DIR": data_dir, "MEMORY_CENTER_PASSPHRASE": sys.argv[4]}
runner = CliRunner()
while time.time() < start:
    time.sleep(0.01)
written = 0
while time.time() < start + seconds:
    res = runner.invoke(cli, ["event", "add", "--session", "cli", "--actor", "user", "--trust",
                              "user", "--scope", "user=alice", "--text", f"cli {written}"], env=env)
    assert res.exit_code == 0, res.output
    written += 1
print(json.dumps({"written": written}))
"""

READER = r"""
import json, sys
from pathlib import Path
from core import MemoryService
from core.sdk import MemoryRuntime
svc = MemoryService.open(Path(sys.argv[1]), passphrase=sys.argv[2], prefer_keyring=False)
rt = MemoryRuntime(svc, {"user": "alice", "project": "shop"}, "reader")
for line in sys.stdin:
    block, snap = rt.inject(line.strip())
    print(json.dumps({"block": block, "snapshot": snap}), flush=True)
rt.close(); svc.close()
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), "OPENBLAS_NUM_THREADS": "1"}


def _spawn(code: str, *args: str, stdin: bool = False) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        env=_env(),
        text=True,
        stdin=subprocess.PIPE if stdin else None,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _result(proc: subprocess.Popen[str]) -> dict[str, int]:
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    return dict(json.loads(out.strip().splitlines()[-1]))


@pytest.mark.slow
def test_three_writers_lose_nothing_and_the_chain_verifies(data_dir: Path) -> None:
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        svc.remember(SCOPE, "The shop deploys with blue-green releases")
        before = svc.status().event_count
    start = str(time.time() + 4.0)  # every process is up before anyone writes
    seconds = str(SECONDS)
    procs = [
        _spawn(AGENT, str(data_dir), "agent-a", start, seconds, PASSPHRASE),
        _spawn(AGENT, str(data_dir), "agent-b", start, seconds, PASSPHRASE),
        _spawn(CLI, str(data_dir), start, seconds, PASSPHRASE),
    ]
    a, b, c = (_result(p) for p in procs)
    assert min(a["written"], b["written"], c["written"]) > 0
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        counts = {s.id: s.event_count for s in svc.list_sessions()}
        assert counts["agent-a"] == a["written"]
        assert counts["agent-b"] == b["written"]
        assert counts["cli"] == c["written"]
        report = svc.verify()
        assert report.ok, report.first_failure
        assert report.events_checked >= before + a["written"] + b["written"] + c["written"]
        snapshots = a["injected"] + b["injected"]
        assert snapshots > 0


@pytest.mark.slow
def test_deletion_in_one_process_stops_injection_in_another(data_dir: Path) -> None:
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        record = svc.remember(SCOPE, "The shop deploys with blue-green releases").value.record
    assert record is not None
    reader = _spawn(READER, str(data_dir), PASSPHRASE, stdin=True)
    assert reader.stdin is not None and reader.stdout is not None

    def ask() -> str:
        assert reader.stdin is not None and reader.stdout is not None
        reader.stdin.write("how does the shop deploy\n")
        reader.stdin.flush()
        return str(json.loads(reader.stdout.readline())["block"])

    try:
        assert "blue-green" in ask()
        with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
            svc.delete(record.id, reason="the user asked", requested_by="alice")
        assert "blue-green" not in ask()
    finally:
        _, err = reader.communicate(timeout=30)  # closes stdin: the reader's loop ends
    assert reader.returncode == 0, err
