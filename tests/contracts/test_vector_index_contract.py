"""Contract of the vector-index seam: what retrieval relies on from any nearest-neighbour index.

`INDEXES` builds an empty index of a given dimension; another engine joins with one entry.
Vectors here are random unit vectors with a fixed seed, so nearest neighbours are known.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from core.crypto.codec import Codec
from core.crypto.keys import KeySet
from core.errors import IntegrityError, InvalidInputError, KeyUnavailableError
from core.index.vector_index import IndexMeta, VectorIndex

IndexFactory = Callable[[int], VectorIndex]

INDEXES: dict[str, IndexFactory] = {
    "hnsw": lambda dim: VectorIndex(dim, capacity=16),
}

DIM = 32


@pytest.fixture(params=list(INDEXES), ids=list(INDEXES))
def make(request: pytest.FixtureRequest) -> IndexFactory:
    return INDEXES[request.param]


def _vectors(n: int, seed: int = 7) -> NDArray[np.float32]:
    rows = np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _filled(make: IndexFactory, n: int = 200) -> tuple[VectorIndex, list[str]]:
    index = make(DIM)
    ids = [f"m{i}" for i in range(n)]
    index.add(ids, _vectors(n))
    return index, ids


def test_every_vector_finds_itself_first(make: IndexFactory) -> None:
    index, ids = _filled(make)
    vectors = _vectors(len(ids))
    for i in range(0, len(ids), 17):
        best_id, score = index.search(vectors[i], 3)[0]
        assert best_id == ids[i] and score == pytest.approx(1.0, abs=1e-4)


def test_results_are_best_first_and_at_most_k(make: IndexFactory) -> None:
    index, _ids = _filled(make)
    hits = index.search(_vectors(1, seed=99)[0], 10)
    scores = [s for _i, s in hits]
    assert len(hits) == 10 and scores == sorted(scores, reverse=True)
    exact = index.search_exact(_vectors(1, seed=99)[0], 10)
    # At 200 vectors the graph search is exact. Exact search scores the half-precision rows,
    # the graph its float32 vectors: they agree to ~1e-4 at this small dimension.
    assert [i for i, _s in hits] == [i for i, _s in exact]
    assert scores == pytest.approx([s for _i, s in exact], abs=5e-4)


def test_allowed_ids_confine_the_search(make: IndexFactory) -> None:
    index, ids = _filled(make)
    allowed = set(ids[:5]) | {"not-indexed"}
    hits = index.search(_vectors(1, seed=3)[0], 20, allowed=allowed)
    assert {i for i, _s in hits} == set(ids[:5])


def test_removed_ids_are_gone_and_their_vectors_scrubbed(make: IndexFactory) -> None:
    index, ids = _filled(make, 50)
    vectors = _vectors(50)
    assert index.remove(ids[4]) and not index.remove(ids[4])
    assert ids[4] not in index and len(index) == 49
    assert index.get_vector(ids[4]) is None
    assert all(i != ids[4] for i, _s in index.search(vectors[4], 49))


def test_adding_an_existing_id_replaces_its_vector(make: IndexFactory) -> None:
    index, ids = _filled(make, 20)
    replacement = _vectors(1, seed=1234)
    index.add([ids[0]], replacement)
    assert len(index) == 20
    stored = index.get_vector(ids[0])
    assert stored is not None and np.allclose(stored, replacement[0], atol=1e-6)


@pytest.mark.parametrize(
    ("ids", "shape", "field"),
    [
        (["a"], (1, DIM + 1), "vectors"),
        (["a", "b"], (1, DIM), "vectors"),
        (["a", "a"], (2, DIM), "ids"),
    ],
    ids=["wrong-dim", "count-mismatch", "repeated-id"],
)
def test_bad_batches_are_refused_and_change_nothing(
    make: IndexFactory, ids: list[str], shape: tuple[int, int], field: str
) -> None:
    index, _ = _filled(make, 10)
    with pytest.raises(InvalidInputError) as caught:
        index.add(ids, np.ones(shape, dtype=np.float32))
    assert caught.value.field == field
    assert len(index) == 10 and "a" not in index


def test_k_below_one_is_refused(make: IndexFactory) -> None:
    index, _ = _filled(make, 5)
    with pytest.raises(InvalidInputError, match="k"):
        index.search(_vectors(1)[0], 0)


def test_saved_index_is_sealed_and_loads_back_the_same(make: IndexFactory, tmp_path: Path) -> None:
    index, ids = _filled(make, 60)
    codec = Codec(KeySet.generate())
    meta = IndexMeta("contract", "v1", DIM, store_revision=12)
    path = tmp_path / "vectors.idx"
    written = index.save(path, codec, meta)
    assert written.count == 60
    raw = path.read_bytes()
    assert _vectors(60)[0].tobytes()[:16] not in raw
    loaded, loaded_meta = VectorIndex.load(path, codec)
    assert loaded_meta == written and sorted(loaded.ids()) == sorted(ids)
    query = _vectors(1, seed=5)[0]
    assert loaded.search(query, 5) == index.search(query, 5)


def test_an_index_file_opens_only_with_its_store_key(make: IndexFactory, tmp_path: Path) -> None:
    index, _ = _filled(make, 10)
    path = tmp_path / "vectors.idx"
    index.save(path, Codec(KeySet.generate()), IndexMeta("contract", "v1", DIM, 1))
    with pytest.raises((KeyUnavailableError, IntegrityError)):
        VectorIndex.load(path, Codec(KeySet.generate()))
