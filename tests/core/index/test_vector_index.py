"""VectorIndex: search, scope filters, deletion that scrubs bytes, sealed persistence."""

from __future__ import annotations

import pickle
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from core.crypto import stream as stream_module
from core.crypto.codec import Aad, Codec
from core.crypto.keys import KeySet
from core.errors import (
    IntegrityError,
    InvalidInputError,
    KeyUnavailableError,
    ResourceUnavailableError,
)
from core.index import vector_file, vector_persistence
from core.index import vector_index as vi_module
from core.index.embedder import HashingEmbedder
from core.index.vector_index import FORMAT_VERSION, MAGIC, IndexMeta, VectorIndex
from core.storage.framing import frame, unframe

DIM = 32
N = 300

Array = np.ndarray[Any, Any]


def unit_vectors(n: int, dim: int = DIM, seed: int = 7) -> Array:
    """Random unit rows (float32)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, dim)).astype(np.float32)
    out: Array = x / np.linalg.norm(x, axis=1, keepdims=True)
    return out


@pytest.fixture
def vectors() -> Array:
    """N random unit vectors."""
    return unit_vectors(N)


@pytest.fixture
def ids() -> list[str]:
    """N memory ids."""
    return [f"mem_{i:04d}" for i in range(N)]


@pytest.fixture
def index(ids: list[str], vectors: Array) -> VectorIndex:
    """An index over the fixture vectors, started small so it has to grow."""
    idx = VectorIndex(DIM, capacity=16)
    idx.add(ids, vectors)
    return idx


@pytest.fixture
def codec() -> Codec:
    """A codec over a fresh real key set."""
    return Codec(KeySet.generate())


META = IndexMeta("hashing", "hashing-v1-32-test", DIM, store_revision=41)


def contains_vector(blob: bytes, vector: Array) -> bool:
    """Whether the exact float32 bytes of a vector occur in a blob."""
    return np.asarray(vector, dtype=np.float32).tobytes() in blob


def stored_vector(index: VectorIndex, memory_id: str) -> Array:
    """The float32 vector as the index holds it (normalised, so maybe not the input bytes)."""
    vec = index.get_vector(memory_id)
    assert vec is not None
    return vec


# --- add, search, remove ------------------------------------------------------------------


def test_search_finds_each_vector_first(index: VectorIndex, ids: list[str], vectors: Array) -> None:
    """A stored vector is its own nearest neighbour with cosine 1, and the index grew."""
    assert len(index) == N
    for i in (0, 17, N - 1):
        hits = index.search(vectors[i], 3)
        assert hits[0][0] == ids[i]
        assert hits[0][1] == pytest.approx(1.0, abs=1e-5)
        assert len(hits) == 3
        assert hits[0][1] >= hits[1][1] >= hits[2][1]


def test_search_caps_k_and_handles_an_empty_index() -> None:
    """k larger than the index returns what there is; an empty index returns nothing."""
    empty = VectorIndex(DIM)
    assert empty.search(unit_vectors(1)[0], 5) == []
    empty.add(["a", "b"], unit_vectors(2))
    assert len(empty.search(unit_vectors(1, seed=3)[0], 10)) == 2


def test_get_vectors_reads_many_live_ids_at_once(
    index: VectorIndex, ids: list[str], vectors: Array
) -> None:
    """The batch read agrees with the graph's exact floats to float16 precision and skips
    ids that are unknown or removed."""
    index.remove(ids[3])
    got = index.get_vectors([ids[1], ids[3], "never-added", ids[7]])
    assert sorted(got) == sorted([ids[1], ids[7]])
    for mid in (ids[1], ids[7]):
        assert got[mid].dtype == np.float32
        np.testing.assert_allclose(got[mid], stored_vector(index, mid), atol=1e-3)


def test_remove_hides_the_id(index: VectorIndex, ids: list[str], vectors: Array) -> None:
    """R19: a removed id is never returned again; removing twice reports False."""
    assert index.remove(ids[5]) is True
    assert index.remove(ids[5]) is False
    assert ids[5] not in index
    assert len(index) == N - 1
    assert all(hit != ids[5] for hit, _ in index.search(vectors[5], 20))
    assert index.get_vector(ids[5]) is None
    assert index.dead_slots == 1


def test_readd_replaces_in_place(index: VectorIndex, ids: list[str], vectors: Array) -> None:
    """Adding an existing id updates its vector instead of creating a second entry."""
    index.add([ids[0]], vectors[1:2])
    assert len(index) == N
    top = {hit for hit, _ in index.search(vectors[1], 2)}
    assert top == {ids[0], ids[1]}
    assert not contains_vector(index.plaintext(META), vectors[0])


def test_readd_after_remove(index: VectorIndex, ids: list[str], vectors: Array) -> None:
    """A removed id can come back (e.g. a memory re-activated) and is found again."""
    index.remove(ids[3])
    index.add([ids[3]], vectors[3:4])
    assert index.search(vectors[3], 1)[0][0] == ids[3]


@pytest.mark.parametrize(
    ("ids_", "rows", "field"),
    [
        (["a", "b"], unit_vectors(1), "vectors"),
        (["a"], unit_vectors(1, dim=DIM + 1), "vectors"),
        (["a", "a"], unit_vectors(2), "ids"),
        (["a"], np.full((1, DIM), np.nan), "vectors"),
    ],
)
def test_add_validates(ids_: list[str], rows: Array, field: str) -> None:
    """Mismatched counts, wrong dim, duplicate ids and NaN are input errors; nothing added."""
    idx = VectorIndex(DIM)
    with pytest.raises(InvalidInputError) as info:
        idx.add(ids_, rows)
    assert info.value.field == field
    assert len(idx) == 0


def test_vectors_are_normalised_on_add() -> None:
    """Scores are cosines even when a caller passes an unnormalised vector."""
    idx = VectorIndex(DIM)
    idx.add(["a"], 5 * unit_vectors(1))
    assert idx.search(unit_vectors(1)[0], 1)[0][1] == pytest.approx(1.0, abs=1e-5)


# --- scope filter (R13) -------------------------------------------------------------------


@pytest.mark.parametrize("exact_max", [0, 10_000], ids=["graph-filter", "exact-filter"])
def test_allowed_restricts_results(
    index: VectorIndex,
    ids: list[str],
    vectors: Array,
    exact_max: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """R13: with `allowed`, nothing outside the set comes back, on both search paths."""
    monkeypatch.setattr(vi_module, "EXACT_FILTER_MAX", exact_max)
    monkeypatch.setattr(vi_module, "EXACT_FILTER_SHARE", 1.0 if exact_max else 0.0)
    allowed = set(ids[100:200])
    hits = index.search(vectors[5], 10, allowed=allowed)
    assert len(hits) == 10
    assert {hit for hit, _ in hits} <= allowed
    exact = index.search_exact(vectors[5], 10, allowed=allowed)
    assert [h for h, _ in hits][:3] == [h for h, _ in exact][:3]


def test_allowed_edge_cases(index: VectorIndex, ids: list[str], vectors: Array) -> None:
    """Empty or unknown allowed ids give nothing; removed ids stay out even if allowed."""
    assert index.search(vectors[0], 5, allowed=set()) == []
    assert index.search(vectors[0], 5, allowed={"nope"}) == []
    index.remove(ids[0])
    hits = index.search(vectors[0], 5, allowed={ids[0], ids[1]})
    assert [h for h, _ in hits] == [ids[1]]


# --- deletion scrubs bytes (R19) ----------------------------------------------------------


def test_remove_scrubs_vector_bytes_without_compaction(
    index: VectorIndex, ids: list[str], vectors: Array
) -> None:
    """mark_deleted alone would leave the floats; remove overwrites them first."""
    stored = {i: stored_vector(index, ids[i]) for i in (9, 10)}
    assert contains_vector(index.plaintext(META), stored[9])
    index.remove(ids[9])
    plain = index.plaintext(META)
    assert not contains_vector(plain, stored[9])
    assert contains_vector(plain, stored[10])


def test_compact_after_remove_purges_and_keeps_the_rest(
    index: VectorIndex, ids: list[str], vectors: Array, tmp_path: Path, codec: Codec
) -> None:
    """After remove + compact + save, no trace of the removed vector; others unchanged."""
    stored = {memory_id: stored_vector(index, memory_id) for memory_id in ids}
    gone = [ids[i] for i in range(0, N, 3)]
    assert index.rebuild_without(gone) == len(gone)
    assert index.dead_slots == 0 and not index.needs_compaction()
    assert len(index) == N - len(gone)
    plain = index.plaintext(META)
    for memory_id in gone:
        assert not contains_vector(plain, stored[memory_id])
    for i in (1, 2, N - 1):
        assert contains_vector(plain, stored[ids[i]])
        assert index.search(vectors[i], 1)[0][0] == ids[i]
    index.save(tmp_path / "vectors.idx", codec, META)
    loaded, _ = VectorIndex.load(tmp_path / "vectors.idx", codec)
    assert loaded.search_exact(vectors[0], 1)[0][0] != ids[0]
    assert loaded.ids() == index.ids()


def test_needs_compaction_after_many_removals(index: VectorIndex, ids: list[str]) -> None:
    """A fifth of dead slots asks for a rebuild; compact reports what it reclaimed."""
    for memory_id in ids[: N // 5]:
        index.remove(memory_id)
    assert index.needs_compaction()
    assert index.compact() == N // 5


# --- persistence (R24) --------------------------------------------------------------------


def test_save_load_round_trip(
    index: VectorIndex, ids: list[str], vectors: Array, tmp_path: Path, codec: Codec
) -> None:
    """Ids, vectors, search results, meta and ef survive a save and load."""
    path = tmp_path / "vectors.idx"
    written = index.save(path, codec, META)
    assert written.count == N
    loaded, meta = VectorIndex.load(path, codec)
    assert meta == written
    assert loaded.ids() == index.ids()
    assert loaded.ef_search == index.ef_search
    assert loaded._index.ef == index.ef_search  # hnswlib resets ef to 10 on load
    for i in (0, 50, N - 1):
        np.testing.assert_array_equal(loaded.get_vector(ids[i]), index.get_vector(ids[i]))
        assert loaded.search(vectors[i], 5) == index.search(vectors[i], 5)
    loaded.add(["new"], unit_vectors(1, seed=99))
    assert "new" in loaded and len(loaded) == N + 1


def test_load_falls_back_when_graph_layout_is_unknown(
    index: VectorIndex, ids: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """If hnswlib's serialized layout ever changes, vectors are still recovered exactly."""
    plain = index.plaintext(META)

    def broken(rows: Array, state: dict[str, Any], dim: int) -> None:
        raise KeyError("data_level0")

    monkeypatch.setattr(vector_persistence, "fill_from_state", broken)
    loaded, _ = VectorIndex.from_plaintext(plain)
    for memory_id in (ids[0], ids[N // 2], ids[-1]):
        np.testing.assert_array_equal(loaded.get_vector(memory_id), index.get_vector(memory_id))


def test_file_on_disk_is_sealed(
    index: VectorIndex, vectors: Array, tmp_path: Path, codec: Codec
) -> None:
    """R24: no vector's raw float bytes, no id and no header are readable on disk."""
    stored = [stored_vector(index, memory_id) for memory_id in index.ids()]
    assert all(contains_vector(index.plaintext(META), row) for row in stored[:5])
    path = tmp_path / "vectors.idx"
    index.save(path, codec, META)
    blob = path.read_bytes()
    assert not blob.startswith(MAGIC) and b"mem_0001" not in blob and b"hashing" not in blob
    for row in [*stored, *vectors]:
        assert not contains_vector(blob, row)


def test_tampered_file_fails_integrity(index: VectorIndex, tmp_path: Path, codec: Codec) -> None:
    """One flipped bit anywhere after the header is an IntegrityError, not garbage."""
    path = tmp_path / "vectors.idx"
    index.save(path, codec, META)
    blob = bytearray(path.read_bytes())
    blob[len(blob) // 2] ^= 0x01
    path.write_bytes(bytes(blob))
    with pytest.raises(IntegrityError):
        VectorIndex.load(path, codec)


@pytest.mark.parametrize("chunk", [8 << 20, 1000], ids=["whole", "elements-split"])
def test_rows_read_in_a_second_pass_equal_the_saved_ones(
    index: VectorIndex,
    ids: list[str],
    tmp_path: Path,
    codec: Codec,
    monkeypatch: pytest.MonkeyPatch,
    chunk: int,
) -> None:
    """#13: a load reads the search rows in a second pass over the file after the plaintext
    is freed; pieces that split elements (1,000 bytes against ~260-byte elements, and not a
    multiple of them) give the same rows as the index that was saved."""
    index.remove(ids[7])  # a dead slot: its row stays zero
    path = tmp_path / "vectors.idx"
    index.save(path, codec, META)
    monkeypatch.setattr(stream_module, "CHUNK_BYTES", chunk)
    loaded, _ = VectorIndex.load(path, codec)
    np.testing.assert_array_equal(
        loaded._rows[: index._next_label], index._rows[: index._next_label]
    )
    allowed = set(ids[:300])
    for q in unit_vectors(5, seed=3):
        assert loaded.search(q, 10, allowed=allowed) == index.search(q, 10, allowed=allowed)


def _label_byte_at(index: VectorIndex, path: Path) -> int:
    """Where in the sealed file the highest byte of the first element's label lies (the
    cipher is a stream: a ciphertext byte encrypts the plaintext byte at the same place)."""
    plain = index.plaintext(META)
    _header, state, _meta = vector_file.graph_state_of(plain)
    table = vector_file.ElementTable.of(state, plain)
    assert table is not None
    # The file: the codec's header and nonce, the ciphertext, then the 16-byte tag.
    prefix = path.stat().st_size - 16 - len(plain)
    return prefix + table.start + table.label_at + 7


@pytest.mark.parametrize("where", ["vector", "label"])
def test_a_file_changed_between_the_passes_is_refused(
    index: VectorIndex, tmp_path: Path, codec: Codec, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """The second pass is authenticated too: a file overwritten in place after the first
    pass (its tag checked) fails with IntegrityError instead of yielding its rows, also
    when the change makes a label point outside the index (the pass still reads to the
    tag)."""
    path = tmp_path / "vectors.idx"
    index.save(path, codec, META)
    at = _label_byte_at(index, path) if where == "label" else path.stat().st_size // 2
    real = Codec.pieces_from

    def tampered_first(self: Codec, handle: Any, size: int, aad: Aad) -> Any:
        with path.open("r+b") as other:  # the same file, changed in place
            other.seek(at)
            byte = other.read(1)
            other.seek(at)
            other.write(bytes([byte[0] ^ 0x40]))
        return real(self, handle, size, aad)

    monkeypatch.setattr(Codec, "pieces_from", tampered_first)
    with pytest.raises(IntegrityError):
        VectorIndex.load(path, codec)


def test_a_changed_compression_flag_is_an_integrity_failure(
    index: VectorIndex, tmp_path: Path, codec: Codec
) -> None:
    """The flag byte of the codec's header is authenticated, but a streamed read inflates
    before the tag comes: a zlib error there is reported as the tag's failure."""
    path = tmp_path / "vectors.idx"
    index.save(path, codec, META)
    blob = bytearray(path.read_bytes())
    blob[3] ^= 0x01  # magic (2 bytes), format version, flags
    path.write_bytes(bytes(blob))
    with pytest.raises(IntegrityError):
        VectorIndex.load(path, codec)


def test_renamed_file_fails_integrity(index: VectorIndex, tmp_path: Path, codec: Codec) -> None:
    """The file name is authenticated: swapping index files is detected."""
    index.save(tmp_path / "a.idx", codec, META)
    (tmp_path / "a.idx").rename(tmp_path / "b.idx")
    with pytest.raises(IntegrityError):
        VectorIndex.load(tmp_path / "b.idx", codec)


def test_wrong_key_fails(index: VectorIndex, tmp_path: Path) -> None:
    """Another key under the same id fails the tag; an unknown key id is unavailable."""
    keys = KeySet.generate()
    path = tmp_path / "vectors.idx"
    index.save(path, Codec(keys), META)
    impostor = KeySet({keys.active_id: bytes(32)}, keys.active_id, keys.fingerprint_key)
    with pytest.raises(IntegrityError):
        VectorIndex.load(path, Codec(impostor))
    with pytest.raises(KeyUnavailableError):
        VectorIndex.load(path, Codec(KeySet.generate()))


def test_missing_file_is_unavailable(tmp_path: Path, codec: Codec) -> None:
    """A missing index is a resource problem (rebuild it), not corruption."""
    with pytest.raises(ResourceUnavailableError):
        VectorIndex.load(tmp_path / "absent.idx", codec)
    with pytest.raises(ResourceUnavailableError):
        VectorIndex(DIM).save(tmp_path / "no-dir" / "x.idx", codec, META)


def _reframed(plain: bytes, stream: bytes, parts: list[bytes], **changes: Any) -> bytes:
    """A format-2 plaintext with this pickle stream and these buffers, header otherwise kept."""
    header, _ = unframe(plain, MAGIC, FORMAT_VERSION, "vector index")
    header.update(pickle=len(stream), buffers=[len(b) for b in parts])
    header.update(changes)
    return frame(MAGIC, FORMAT_VERSION, header, stream + b"".join(parts))


def test_forbidden_pickle_is_rejected(index: VectorIndex) -> None:
    """Defence in depth: authenticated bytes still may only rebuild an hnswlib index."""
    evil = _reframed(index.plaintext(META), pickle.dumps(print), [])
    with pytest.raises(IntegrityError, match="forbidden"):
        VectorIndex.from_plaintext(evil)


def test_buffers_that_do_not_add_up_are_refused(index: VectorIndex) -> None:
    """Lengths in the header that overrun or fall short of the file are corruption."""
    plain = index.plaintext(META)
    header, at = unframe(plain, MAGIC, FORMAT_VERSION, "vector index")
    stream = plain[at : at + header["pickle"]]
    buffers = [b"x" * n for n in header["buffers"]]
    for lengths in ([*header["buffers"][:-1], header["buffers"][-1] + 1], [-1, 1]):
        bad = _reframed(plain, stream, buffers, buffers=lengths)
        with pytest.raises(IntegrityError, match=r"add up|malformed"):
            VectorIndex.from_plaintext(bad)
    with pytest.raises(IntegrityError, match="malformed"):
        VectorIndex.from_plaintext(_reframed(plain, stream, buffers, buffers="many"))


def test_format_1_files_still_load(index: VectorIndex, ids: list[str], vectors: Array) -> None:
    """A file written before the arrays moved out of band opens with the same content."""
    plain = index.plaintext(META)
    header, _ = unframe(plain, MAGIC, FORMAT_VERSION, "vector index")
    del header["pickle"], header["buffers"]
    old = frame(MAGIC, 1, header, pickle.dumps(index._index, protocol=pickle.HIGHEST_PROTOCOL))
    loaded, meta = VectorIndex.from_plaintext(old)
    assert meta.count == N and loaded.ids() == index.ids()
    for i in (0, N // 2, N - 1):
        np.testing.assert_array_equal(loaded.get_vector(ids[i]), index.get_vector(ids[i]))
        assert loaded.search(vectors[i], 5) == index.search(vectors[i], 5)


def test_saved_file_is_one_sealed_value(index: VectorIndex, tmp_path: Path, codec: Codec) -> None:
    """Written in pieces, read back whole: the file is exactly the sealed plaintext."""
    path = tmp_path / "vectors.idx"
    index.save(path, codec, META)
    assert codec.open(path.read_bytes(), Aad("index_files", path.name, "vector")) == (
        index.plaintext(META)
    )


def test_half_precision_rows_rank_as_the_exact_vectors(
    index: VectorIndex, ids: list[str], vectors: Array
) -> None:
    """The float16 search rows move a cosine by far less than any gap between neighbours, and
    the vector handed out is the graph's exact float32."""
    np.testing.assert_array_equal(index.get_vector(ids[3]), vectors[3])
    allowed = set(ids[:200])
    for q in unit_vectors(20, seed=5):
        hits = index.search(q, 10, allowed=allowed)
        exact = sorted(((float(vectors[i] @ q), ids[i]) for i in range(200)), reverse=True)[:10]
        assert [h for h, _ in hits] == [i for _, i in exact]
        for (_, score), (truth, _) in zip(hits, exact, strict=True):
            assert abs(score - truth) < 1e-3


def test_meta_must_match_dim(index: VectorIndex) -> None:
    """Saving with meta of another dimension is refused before anything is written."""
    with pytest.raises(InvalidInputError):
        index.plaintext(IndexMeta("x", "y", DIM + 1, 0))


def test_meta_compatibility_with_embedder() -> None:
    """A loader can tell whether the file's vectors fit the current embedder."""
    emb = HashingEmbedder(dim=DIM)
    meta = IndexMeta.for_embedder(emb, store_revision=3)
    assert meta.compatible_with(emb)
    assert not meta.compatible_with(HashingEmbedder())


# --- threads ------------------------------------------------------------------------------


def _write(idx: VectorIndex, vectors: Array, offset: int) -> None:
    for i in range(offset, N, 2):
        idx.add([f"m{i}"], vectors[i : i + 1])
        if i % 10 == 0:
            idx.remove(f"m{i}")


def _read(idx: VectorIndex, vectors: Array) -> int:
    seen = 0
    for i in range(200):
        hits = idx.search(vectors[i % N], 5)
        assert all(hit.startswith("m") for hit, _ in hits)
        seen += len(hits)
    return seen


def test_concurrent_add_remove_search(vectors: Array) -> None:
    """Writers and readers in parallel neither crash nor return unknown ids."""
    idx = VectorIndex(DIM, capacity=16)
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures: list[Future[Any]] = [pool.submit(_write, idx, vectors, o) for o in (0, 1)]
        futures.append(pool.submit(_read, idx, vectors))
        for future in futures:
            future.result()  # re-raises any failure in the thread
    assert len(idx) == N - N // 10
