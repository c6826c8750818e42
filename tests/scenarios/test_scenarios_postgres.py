"""Every must-pass acceptance scenario again, on a store whose tables live on PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import ManualClock, MemoryService
from tests.scenarios.adapter import PASSPHRASE, SCENARIO_HOT_PATH_SECONDS
from tests.scenarios.runner import load, play, scenario_paths
from tests.scenarios.test_scenarios import MISSING_REASON, SCENARIO_DIR, must_pass_ids
from tests.support.postgres import PostgresServer


def _params() -> list[object]:
    if not SCENARIO_DIR.is_dir():
        return [pytest.param(None, id="no-scenario-dir")]
    wanted = set(must_pass_ids())
    return [pytest.param(p, id=p.stem) for p in scenario_paths(SCENARIO_DIR) if p.stem in wanted]


@pytest.mark.slow
@pytest.mark.parametrize("path", _params())
def test_scenario_on_postgres(path: Path | None, pg_server: PostgresServer) -> None:
    """Play one scenario against a fresh database on the test server."""
    if path is None:
        pytest.skip(MISSING_REASON)
    url = pg_server.database()

    def opener(data_dir: Path, clock: ManualClock) -> MemoryService:
        return MemoryService.open(
            data_dir,
            passphrase=PASSPHRASE,
            clock=clock,
            prefer_keyring=False,
            database_url=url,
            hot_path_seconds=SCENARIO_HOT_PATH_SECONDS,
        )

    play(load(path), opener=opener)
