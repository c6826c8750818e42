"""#38: the hot-path limit of the application's processes (hooks, MCP server, CLI) is a
setting, so a slow or loaded machine, and the tests that are not about the limit, can raise
it; the hook client's waits grow with it (R17)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.compose import open_service
from core import InvalidInputError
from core.retrieval.injector import HOT_PATH_SECONDS
from tests.conftest import PASSPHRASE


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.setenv("MEMORY_CENTER_PASSPHRASE", PASSPHRASE)
    monkeypatch.setenv("MEMORY_CENTER_EMBEDDER", "hashing")
    return monkeypatch


def _limit(data_dir: Path) -> float:
    svc = open_service(data_dir, warm_model=False)
    try:
        return float(svc._engine.retriever.timeout)
    finally:
        svc.close()


def test_the_setting_sets_the_engine_limit(env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # The product's default, not the raised one the suite gives stores (tests/conftest.py).
    env.setattr("core.services.context.HOT_PATH_SECONDS", HOT_PATH_SECONDS)
    assert _limit(tmp_path / "s") == HOT_PATH_SECONDS
    env.setenv("MEMORY_CENTER_HOT_PATH_SECONDS", "7.5")
    assert _limit(tmp_path / "s") == 7.5


@pytest.mark.parametrize(
    ("value", "named"),
    [
        ("soon", "MEMORY_CENTER_HOT_PATH_SECONDS"),
        ("0", "hot_path_seconds"),
        ("99", "hot_path_seconds"),
    ],
)
def test_a_bad_setting_is_a_clear_error(
    env: pytest.MonkeyPatch, tmp_path: Path, value: str, named: str
) -> None:
    env.setenv("MEMORY_CENTER_HOT_PATH_SECONDS", value)
    with pytest.raises(InvalidInputError, match=named):
        open_service(tmp_path / "s", warm_model=False)
