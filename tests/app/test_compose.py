"""The composition root: passphrase from the environment, opt-in LLM extractor."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.compose import open_service
from core import LLMExtractor
from core.governance.extractor import RuleExtractor
from tests.conftest import PASSPHRASE


def test_rule_extractor_by_default_llm_only_when_configured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R6: the LLM extractor is off unless both URL and model are given."""
    monkeypatch.setenv("MEMORY_CENTER_PASSPHRASE", PASSPHRASE)
    service = open_service(tmp_path / "a")
    assert isinstance(service.extractor, RuleExtractor)
    service.close()
    monkeypatch.setenv("MEMORY_CENTER_LLM_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMORY_CENTER_LLM_MODEL", "local-model")
    service = open_service(tmp_path / "a")
    assert isinstance(service.extractor, LLMExtractor)
    service.close()
