"""#13: query embeddings are cached least-recently-used, so a goal an agent repeats stays."""

from __future__ import annotations

from core.index.embedder import HashingEmbedder
from core.retrieval.vectors import QUERY_CACHE, VectorLayer


def _layer() -> VectorLayer:
    def no_codec() -> None:
        raise AssertionError("a memory-only layer never seals")

    return VectorLayer(HashingEmbedder(), None, no_codec)  # type: ignore[arg-type]


def test_a_repeated_goal_survives_many_other_goals() -> None:
    layer = _layer()
    first = layer.query_vector("what does the CI pipeline use")
    for i in range(QUERY_CACHE * 2):
        layer.query_vector(f"one-off question number {i}")
        if i % 50 == 0:  # the agent asks its usual goal again now and then
            assert layer.query_vector("what does the CI pipeline use") is first
    assert layer.query_vector("what does the CI pipeline use") is first


def test_a_goal_not_asked_again_is_evicted() -> None:
    layer = _layer()
    first = layer.query_vector("asked once")
    for i in range(QUERY_CACHE):
        layer.query_vector(f"other question {i}")
    again = layer.query_vector("asked once")
    assert again is not first
    assert (again == first).all()  # recomputed, same embedding
