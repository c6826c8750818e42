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
    assert isinstance(service.memories.extractor, RuleExtractor)
    service.close()
    monkeypatch.setenv("MEMORY_CENTER_LLM_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMORY_CENTER_LLM_MODEL", "local-model")
    service = open_service(tmp_path / "a")
    assert isinstance(service.memories.extractor, LLMExtractor)
    service.close()


@pytest.mark.parametrize("memory_center", [True, False], ids=["memory-center", "agent"])
def test_the_memory_center_leaves_the_vector_graph_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory_center: bool
) -> None:
    """#13: the GUI opens with `graph_on_demand` (its vector index reads only the rows);
    agents keep the graph for their hot path."""
    monkeypatch.setenv("MEMORY_CENTER_PASSPHRASE", PASSPHRASE)
    monkeypatch.setenv("MEMORY_CENTER_EMBEDDER", "hashing")
    scope = {"user": "ana"}
    with open_service(tmp_path / "a", warm_model=False) as first:
        first.memories.remember(scope, "The spare key hangs behind the shed door")
    service = open_service(tmp_path / "a", graph_on_demand=memory_center)
    try:
        assert service.retrieval.search_memory(scope, "where is the spare key")
        layer = service.index.catalog.vectors
        assert layer is not None and layer.graph_on_demand is memory_center
        assert layer.index.graph_loaded is not memory_center
    finally:
        service.close()
