"""Root fixtures: real stores in temporary directories, real keys, real encryption."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# Qt runs headless in every test; set before any Qt import.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# One BLAS thread: two threads on a busy 2-core machine collapse (see docs).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from core import ManualClock, MemoryService

# PostgreSQL fixtures (`pg_server`, `pg_url`, `backend`) for the storage contract tests.
pytest_plugins = ["tests.support.pg_fixtures"]

PASSPHRASE = "test passphrase for memory center"
START = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Never touch the developer's real store, keyring or passphrase."""
    monkeypatch.delenv("MEMORY_CENTER_PASSPHRASE", raising=False)
    monkeypatch.setenv("MEMORY_CENTER_DATA_DIR", str(tmp_path / "default-store"))
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A store directory that does not exist yet."""
    return tmp_path / "store"


@pytest.fixture
def clock() -> ManualClock:
    """A clock that only moves when the test says so."""
    return ManualClock(START)


# The hot-path limit of the shared fixture. A read slower than the product's 0.5 s degrades to
# an empty block, and on a loaded two-core CI machine a first read (catalog load, model
# start) can take that long: a test about what a block holds then failed for no reason of its
# own. Tests about the limit itself open their stores with their own limit.
TEST_HOT_PATH_SECONDS = 10.0  # the most the engine accepts: 2 s still degraded at load 12


@pytest.fixture(autouse=True)
def _test_hot_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same limit for every store a test opens without naming one (a direct
    `MemoryService.open` too): such a test asserted a block's items and met an empty
    degraded block when its first read lost the race with a loaded machine."""
    monkeypatch.setattr("core.services.context.HOT_PATH_SECONDS", TEST_HOT_PATH_SECONDS)


@pytest.fixture
def service(data_dir: Path, clock: ManualClock) -> Iterator[MemoryService]:
    """A fresh store protected by a passphrase (the headless default)."""
    svc = MemoryService.open(
        data_dir,
        passphrase=PASSPHRASE,
        clock=clock,
        prefer_keyring=False,
        hot_path_seconds=TEST_HOT_PATH_SECONDS,
    )
    yield svc
    svc.close()


@pytest.fixture
def memory_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[type]:
    """Make `keyring` use the in-process backend, as if an OS keyring were present."""
    import keyring

    from tests.support.memory_keyring import MemoryKeyring

    MemoryKeyring.secrets.clear()
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    yield MemoryKeyring
    keyring.set_keyring(previous)
    MemoryKeyring.secrets.clear()
