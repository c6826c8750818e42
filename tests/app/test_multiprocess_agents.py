"""Several processes on one store at once (R30): two SDK agents and a CLI writer.

Afterwards every write is there exactly once and the hash chain verifies; a deletion made in
one process stops injection in another process on its very next call.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from core import MemoryService
from tests.conftest import PASSPHRASE

REPO = Path(__file__).resolve().parents[2]
TURNS = 12  # per SDK agent: two events each
CLI_WRITES = 15
SCOPE = {"user": "alice", "project": "shop"}

# Each writer loads everything it needs, says "ready", and waits for "go" on stdin: a
# barrier, so all of them write at once however slow the machine is; each then writes a
# fixed number of events instead of writing until a wall-clock deadline.
AGENT = r"""
import json, sys
from pathlib import Path
from core import MemoryService
from core.sdk import MemoryRuntime, RuntimeConfig
data_dir, name, turns = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
# Generous limits: the test is about writes, not about how fast a read is (#38).
svc = MemoryService.open(data_dir, passphrase=sys.argv[4], prefer_keyring=False,
                         hot_path_seconds=10)
config = RuntimeConfig(hot_path_seconds=60, search_seconds=60)
rt = MemoryRuntime(svc, {"user": "alice", "project": "shop"}, name, config=config, agent=name)
assert svc.index.warm_up(wait=120)  # the embedder is loaded before the start signal
rt.inject("warm up")
print("ready", flush=True)
sys.stdin.readline()
written = injected = 0
for turn in range(turns):
    block, snap = rt.inject("how does the shop deploy")
    injected += snap is not None
    rt.sync_turn([{"role": "user", "text": f"{name} turn {turn}"},
                  {"role": "assistant", "text": f"{name} reply {turn}"}])
    written += 2
rt.close(); svc.close()
print(json.dumps({"written": written, "injected": injected, "degraded": rt.state.degraded}))
"""

CLI = r"""
import json, sys
from click.testing import CliRunner
from app.cli import cli
data_dir, writes = sys.argv[1], int(sys.argv[2])
env = {"MEMORY_CENTER_DATA_DIR": data_dir, "MEMORY_CENTER_PASSPHRASE": sys.argv[3]}
runner = CliRunner()
print("ready", flush=True)
sys.stdin.readline()
written = 0
for n in range(writes):
    res = runner.invoke(cli, ["event", "add", "--session", "cli", "--actor", "user", "--trust",
                              "user", "--scope", "user=alice", "--text", f"cli {n}"], env=env)
    assert res.exit_code == 0, res.output
    written += 1
print(json.dumps({"written": written}))
"""

READER = r"""
import json, sys
from pathlib import Path
from core import MemoryService
from core.sdk import MemoryRuntime, RuntimeConfig
svc = MemoryService.open(Path(sys.argv[1]), passphrase=sys.argv[2], prefer_keyring=False,
                         hot_path_seconds=10)
config = RuntimeConfig(hot_path_seconds=60, search_seconds=60)
rt = MemoryRuntime(svc, {"user": "alice", "project": "shop"}, "reader", config=config)
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


def _barrier(procs: list[subprocess.Popen[str]]) -> None:
    """Wait until every process has loaded, then release them all at once."""
    for proc in procs:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if line.strip() != "ready":
            proc.kill()
            _, err = proc.communicate(timeout=30)
            pytest.fail(f"a writer did not start: {line!r} {err[-2000:]}")
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()


def _result(proc: subprocess.Popen[str]) -> dict[str, int]:
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    return dict(json.loads(out.strip().splitlines()[-1]))


@pytest.mark.slow
def test_three_writers_lose_nothing_and_the_chain_verifies(data_dir: Path) -> None:
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        svc.memories.remember(SCOPE, "The shop deploys with blue-green releases")
        before = svc.status().event_count
    procs = [
        _spawn(AGENT, str(data_dir), "agent-a", str(TURNS), PASSPHRASE, stdin=True),
        _spawn(AGENT, str(data_dir), "agent-b", str(TURNS), PASSPHRASE, stdin=True),
        _spawn(CLI, str(data_dir), str(CLI_WRITES), PASSPHRASE, stdin=True),
    ]
    _barrier(procs)
    a, b, c = (_result(p) for p in procs)
    assert (a["written"], b["written"], c["written"]) == (2 * TURNS, 2 * TURNS, CLI_WRITES)
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        # Only the events the writers wrote: a read that degraded on a loaded machine
        # records a `degraded` event in the session too, which is no lost or extra write.
        events = svc.events.list_events(limit=10_000)
        counts = Counter(e.session_id for e in events if e.kind.value == "message")
        assert counts["agent-a"] == a["written"]
        assert counts["agent-b"] == b["written"]
        assert counts["cli"] == c["written"]
        texts = [e.text for e in events if e.kind.value == "message"]
        assert len(texts) == len(set(texts))  # each write once
        report = svc.verify()
        assert report.ok, report.first_failure
        assert report.events_checked >= before + a["written"] + b["written"] + c["written"]
        snapshots = a["injected"] + b["injected"]
        assert snapshots > 0


@pytest.mark.slow
def test_deletion_in_one_process_stops_injection_in_another(data_dir: Path) -> None:
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        record = svc.memories.remember(
            SCOPE, "The shop deploys with blue-green releases"
        ).value.record
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
            svc.review.delete(record.id, reason="the user asked", requested_by="alice")
        assert "blue-green" not in ask()
    finally:
        _, err = reader.communicate(timeout=30)  # closes stdin: the reader's loop ends
    assert reader.returncode == 0, err
