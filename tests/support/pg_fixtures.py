"""pytest fixtures for the PostgreSQL backend: one throwaway server per test run.

Without PostgreSQL installed the PostgreSQL tests skip with the reason; with
`MEMORY_CENTER_TEST_POSTGRES=require` (set by the project's check script, so CI) they fail.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from core import ManualClock, MemoryService
from tests.support.postgres import PostgresServer, required, start_or_explain

PG_PASSPHRASE = "test passphrase for memory center"


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    """A running local PostgreSQL server (skips, or fails in CI, when there is none)."""
    server, why = start_or_explain()
    if server is None:
        if required():
            pytest.fail(f"PostgreSQL is required for this run but unavailable: {why}")
        pytest.skip(f"PostgreSQL backend not tested: {why}")
    yield server
    server.destroy()


@pytest.fixture(scope="module")
def pg_crash_server() -> Iterator[PostgresServer]:
    """A durable server of this module's own, which its tests stop and restart (R23)."""
    server, why = start_or_explain(durable=True)
    if server is None:
        if required():
            pytest.fail(f"PostgreSQL is required for this run but unavailable: {why}")
        pytest.skip(f"PostgreSQL backend not tested: {why}")
    yield server
    server.destroy()


@pytest.fixture
def pg_crash_url(pg_crash_server: PostgresServer) -> Iterator[str]:
    """A fresh database on the crash server; the server runs again after the test."""
    yield pg_crash_server.database()
    if not pg_crash_server.running():
        pg_crash_server.restart()


@pytest.fixture
def pg_url(pg_server: PostgresServer) -> str:
    """A fresh, empty database on the test server."""
    return pg_server.database()


ServiceOpener = Callable[[Path, ManualClock], MemoryService]


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> ServiceOpener:
    """Opens a service for a data directory on each storage backend in turn."""
    if request.param == "sqlite":
        return lambda data_dir, clock: MemoryService.open(
            data_dir, passphrase=PG_PASSPHRASE, clock=clock, prefer_keyring=False
        )
    url = request.getfixturevalue("pg_url")
    return lambda data_dir, clock: MemoryService.open(
        data_dir, passphrase=PG_PASSPHRASE, clock=clock, prefer_keyring=False, database_url=url
    )
