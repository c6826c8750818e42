"""#10: a purge through the CLI removes exactly the purged vector; stale temp files go (R19)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from app.cli import cli
from core.retrieval.vectors import STALE_TEMP_SECONDS
from tests.conftest import PASSPHRASE

SCOPE = ["--scope", "user=alice", "--scope", "project=garden"]
REPO = Path(__file__).resolve().parents[2]
TEXTS = [
    "The tomatoes need watering every second evening.",
    "Compost goes into the left bin, leaves into the right one.",
    "The hedge is trimmed in late June, never in spring.",
    "Seed potatoes are stored in the cellar at 6 degrees.",
    "The rain barrel overflow drains towards the lavender.",
]


@pytest.fixture
def run(tmp_path: Path) -> Any:
    """A CLI on one store; each call opens the store afresh, like a new process."""
    env = {
        "MEMORY_CENTER_PASSPHRASE": PASSPHRASE,
        "MEMORY_CENTER_DATA_DIR": str(tmp_path / "s"),
        "MEMORY_CENTER_EMBEDDER": "hashing",
    }
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        result = runner.invoke(cli, list(args), env=env, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result

    invoke("init")
    return invoke


def _vectors(run: Any) -> int:
    return int(json.loads(run("--json", "index", "status").stdout)["vector"]["vectors"])


def _file_vectors(data_dir: Path) -> set[str]:
    """The memory ids in the sealed vector file on disk, read without syncing anything."""
    from core import SystemClock
    from core.index.vector_index import VectorIndex
    from core.storage.opener import open_store

    opened = open_store(data_dir, SystemClock(), passphrase=PASSPHRASE, create=False)
    try:
        index, _ = VectorIndex.load(data_dir / "index" / "vectors.mcidx", opened.store.codec)
        return set(index.ids())
    finally:
        opened.store.dispose()


def test_cli_purge_removes_exactly_the_purged_vector(run: Any, tmp_path: Path) -> None:
    """The purge used to save an index it had not loaded yet: every vector was wiped."""
    data_dir = tmp_path / "s"
    ids = [
        json.loads(run("--json", "remember", *SCOPE, "--text", t).stdout)["record"]["id"]
        for t in TEXTS
    ]
    assert _vectors(run) == len(TEXTS)
    assert _file_vectors(data_dir) == set(ids)
    run("memory", "delete", ids[2], "--reason", "wrong", "--purge")
    assert _file_vectors(data_dir) == set(ids) - {ids[2]}
    run("memory", "delete", ids[0], "--reason", "moved", "--purge", "--purge-events")
    assert _file_vectors(data_dir) == set(ids) - {ids[0], ids[2]}
    assert _vectors(run) == len(TEXTS) - 2


def test_cli_write_in_a_fresh_process_keeps_the_other_vectors(run: Any, tmp_path: Path) -> None:
    """A write embeds on the write path before any sync; its save must not drop the rest."""
    data_dir = tmp_path / "s"
    for text in TEXTS[:4]:
        run("remember", *SCOPE, "--text", text)
    assert _vectors(run) == 4
    run("remember", *SCOPE, "--text", TEXTS[4])
    assert len(_file_vectors(data_dir)) == 5


def _kill_mid_write(data_dir: Path) -> None:
    """Start a process that stalls inside the vector file write, then kill -9 it."""
    script = f"""
import os, sys, time
from pathlib import Path
import core.crypto.keys as keys
real_replace = os.replace
def stall(src, dst):
    if str(dst).endswith("vectors.mcidx"):
        print("writing", flush=True)
        time.sleep(600)
    real_replace(src, dst)
keys.os.replace = stall
from core import MemoryService
svc = MemoryService.open(Path({str(data_dir)!r}), passphrase={PASSPHRASE!r},
                         prefer_keyring=False)
svc.memories.remember({{"user": "alice"}}, "The gate code of the allotment is on the shed door.")
svc.close()
"""
    env = {**os.environ, "PYTHONPATH": str(REPO), "MEMORY_CENTER_EMBEDDER": "hashing"}
    proc = subprocess.Popen(
        [sys.executable, "-c", script], cwd=REPO, env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "writing"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        if proc.stdout is not None:
            proc.stdout.close()


def test_temp_file_left_by_kill_9_is_removed_on_open(run: Any, tmp_path: Path) -> None:
    """kill -9 during the vector file write left `.vectors.mcidx.*.tmp` behind for ever."""
    run("remember", *SCOPE, "--text", TEXTS[0])
    data_dir = tmp_path / "s"
    _kill_mid_write(data_dir)
    index_dir = data_dir / "index"
    leftovers = list(index_dir.glob(".vectors.mcidx.*.tmp"))
    assert len(leftovers) == 1, "the killed writer should have left its temp file"
    # A temp file younger than a save could take may be another process's write in
    # progress: it stays. Once it is older than that, the next open removes it.
    run("search", *SCOPE, "tomatoes")
    assert list(index_dir.glob(".vectors.mcidx.*.tmp")) == leftovers
    old = time.time() - STALE_TEMP_SECONDS - 5
    os.utime(leftovers[0], (old, old))
    run("search", *SCOPE, "tomatoes")
    assert list(index_dir.glob(".vectors.mcidx.*.tmp")) == []
    # The killed process had committed its memory before the save: two memories, two vectors.
    assert _vectors(run) == 2
