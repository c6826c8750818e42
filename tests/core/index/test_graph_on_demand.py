"""The vector graph left in its file (#13): a process without a hot path reads only the rows
and the id map, searches them exactly, and reads the graph only to save what it changed."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import numpy as np
import pytest

from core import MemoryService
from core.crypto import stream as stream_module
from core.crypto.codec import Codec
from core.crypto.keys import KeySet
from core.errors import IntegrityError
from core.index import vector_delta, vector_file
from core.index import vector_index as vi_module
from core.index.vector_index import IndexMeta, VectorIndex
from tests.conftest import PASSPHRASE
from tests.core.index.test_vector_index import (
    DIM,
    META,
    Array,
    contains_vector,
    stored_vector,
    unit_vectors,
)

N = 300


@pytest.fixture
def codec() -> Codec:
    """A codec over a fresh real key set."""
    return Codec(KeySet.generate())


@pytest.fixture
def saved(tmp_path: Path, codec: Codec) -> tuple[VectorIndex, Path, list[str], Array]:
    """An index of N vectors (one removed: a dead slot) saved to a sealed file."""
    ids = [f"mem_{i:04d}" for i in range(N)]
    vectors = unit_vectors(N)
    index = VectorIndex(DIM, capacity=16)
    index.add(ids, vectors)
    index.remove(ids[7])
    path = tmp_path / "vectors.idx"
    index.save(path, codec, META)
    return index, path, ids, vectors


def _top(
    index: VectorIndex, query: Array, k: int = 10, allowed: set[str] | None = None
) -> list[str]:
    return [memory_id for memory_id, _ in index.search(query, k, allowed=allowed)]


@pytest.mark.parametrize("chunk", [8 << 20, 1000], ids=["whole", "elements-split"])
def test_a_lean_load_holds_the_rows_and_ids_but_no_graph(
    saved: tuple[VectorIndex, Path, list[str], Array],
    codec: Codec,
    monkeypatch: pytest.MonkeyPatch,
    chunk: int,
) -> None:
    """One pass reads the rows out of the element table, whatever the pieces split; exact
    search over them ranks as the full index's exact search does."""
    full, path, ids, _ = saved
    monkeypatch.setattr(stream_module, "CHUNK_BYTES", chunk)
    lean, meta = VectorIndex.load(path, codec, graph=False)
    assert not lean.graph_loaded and meta.count == N - 1 and len(lean) == N - 1
    assert lean.ids() == full.ids() and ids[7] not in lean
    np.testing.assert_array_equal(lean._rows[: full._next_label], full._rows[: full._next_label])
    allowed = set(ids[:120])
    for query in unit_vectors(5, seed=3):
        assert lean.search(query, 10) == full.search_exact(query, 10)
        assert lean.search(query, 10, allowed=allowed) == full.search_exact(query, 10, allowed)
    assert not lean.graph_loaded  # searching never reads the graph


def test_a_tampered_file_fails_the_lean_load(
    saved: tuple[VectorIndex, Path, list[str], Array], codec: Codec
) -> None:
    """The one pass reads to the tag: a flipped bit anywhere is an IntegrityError."""
    _, path, _, _ = saved
    blob = bytearray(path.read_bytes())
    for at in (40, len(blob) // 2, len(blob) - 3):
        bad = bytearray(blob)
        bad[at] ^= 0x01
        path.write_bytes(bytes(bad))
        with pytest.raises(IntegrityError):
            VectorIndex.load(path, codec, graph=False)


def test_changes_without_the_graph_reach_the_saved_file(
    saved: tuple[VectorIndex, Path, list[str], Array], codec: Codec
) -> None:
    """Adds, a re-add and removals made while the graph is in its file are replayed on it at
    the save, in order; the new file holds the exact vectors, and the removed memory's
    vector bytes are gone from it (R19)."""
    _, path, ids, vectors = saved
    lean, _ = VectorIndex.load(path, codec, graph=False)
    fresh = unit_vectors(4, seed=11)
    lean.add(["new_a", "new_b"], fresh[:2])
    lean.add([ids[3]], fresh[2:3])  # a changed memory, re-embedded
    lean.remove(ids[5])
    lean.add(["gone"], fresh[3:4])
    lean.remove("gone")  # added then removed: ends removed
    assert not lean.graph_loaded
    assert _top(lean, fresh[0], 1) == ["new_a"]
    lean.save(path, codec, META)
    # The removal was written in passing: the graph was never read (#13).
    assert not lean.graph_loaded and not contains_vector(_file_plaintext(path, codec), vectors[5])
    plain = VectorIndex.load(path, codec)[0].plaintext(META)
    reopened, meta = VectorIndex.load(path, codec)
    # The graph file holds one fewer; the two new memories are in its additions file.
    assert meta.count == N - 1 - 1 and len(reopened) == N - 1 + 2 - 1
    assert {"new_a", "new_b", ids[3]} <= set(reopened.ids())
    assert ids[5] not in reopened and "gone" not in reopened
    np.testing.assert_allclose(reopened.get_vector("new_a"), fresh[0], atol=1e-6)
    np.testing.assert_allclose(reopened.get_vector(ids[3]), fresh[2], atol=1e-6)
    assert not contains_vector(plain, vectors[5]) and not contains_vector(plain, fresh[3])
    assert _top(reopened, fresh[1], 1) == ["new_b"]


def test_the_graph_is_released_only_when_the_file_holds_everything(
    saved: tuple[VectorIndex, Path, list[str], Array], codec: Codec
) -> None:
    _, path, ids, _ = saved
    lean, _ = VectorIndex.load(path, codec, graph=False)
    lean.get_vector(ids[0])  # needs the graph's exact floats: read from the file
    assert lean.graph_loaded and lean.release_graph() and not lean.graph_loaded
    lean.compact()
    assert lean.graph_loaded and not lean.release_graph()  # compacted, not saved yet
    lean.save(path, codec, META)
    assert lean.release_graph()


def test_a_file_saved_meanwhile_by_another_process_is_merged(
    saved: tuple[VectorIndex, Path, list[str], Array], codec: Codec
) -> None:
    """The graph is read from the file as it is at the save: another process's additions
    stay, and this process's journal is applied on top."""
    _, path, ids, _ = saved
    lean, _ = VectorIndex.load(path, codec, graph=False)
    other, _ = VectorIndex.load(path, codec)
    other.add(["from_other"], unit_vectors(1, seed=21))
    other.save(path, codec, META)
    lean.add(["from_lean"], unit_vectors(1, seed=22))
    lean.remove(ids[9])
    lean.save(path, codec, META)
    merged, _ = VectorIndex.load(path, codec)
    assert "from_other" in merged and "from_lean" in merged and ids[9] not in merged


def test_a_missing_file_means_a_graph_built_from_the_rows(
    saved: tuple[VectorIndex, Path, list[str], Array],
    codec: Codec,
    caplog: pytest.LogCaptureFixture,
) -> None:
    _, path, ids, vectors = saved
    lean, _ = VectorIndex.load(path, codec, graph=False)
    lean.add(["late"], unit_vectors(1, seed=31))
    path.unlink()
    with caplog.at_level(logging.WARNING, logger=vi_module.__name__):
        lean.save(path, codec, META)
    assert "rebuilt" in caplog.text
    rebuilt, meta = VectorIndex.load(path, codec)
    assert meta.count == N and "late" in rebuilt
    assert _top(rebuilt, vectors[42], 1) == [ids[42]]


def test_a_file_of_another_embedder_is_not_adopted(
    saved: tuple[VectorIndex, Path, list[str], Array], codec: Codec
) -> None:
    _, path, ids, _ = saved
    lean, _ = VectorIndex.load(path, codec, graph=False)
    stranger = VectorIndex(DIM)
    stranger.add(["other_space"], unit_vectors(1, seed=41))
    stranger.save(path, codec, IndexMeta("other", "other-v2", DIM, store_revision=1))
    lean.save(path, codec, META)
    again, meta = VectorIndex.load(path, codec)
    assert meta.embedder == META.embedder and "other_space" not in again and ids[42] in again


def test_a_long_journal_reads_the_graph(
    saved: tuple[VectorIndex, Path, list[str], Array],
    codec: Codec,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bulk import without the graph stops journaling past JOURNAL_MAX vectors."""
    _, path, _, _ = saved
    monkeypatch.setattr(vi_module, "JOURNAL_MAX", 10)
    lean, _ = VectorIndex.load(path, codec, graph=False)
    batch = unit_vectors(8, seed=51)
    lean.add([f"bulk_{i}" for i in range(8)], batch)
    assert not lean.graph_loaded
    lean.add([f"more_{i}" for i in range(8)], batch)
    assert lean.graph_loaded
    np.testing.assert_allclose(lean.get_vector("bulk_3"), batch[3], atol=1e-6)


def test_a_format_1_file_loads_lean_through_the_full_path(
    saved: tuple[VectorIndex, Path, list[str], Array], codec: Codec
) -> None:
    import pickle

    from core.index.vector_index import MAGIC
    from core.storage.framing import frame, unframe

    full, path, _, vectors = saved
    header, _ = unframe(full.plaintext(META), MAGIC, (1, 2), "vector index")
    del header["pickle"], header["buffers"]
    old = frame(MAGIC, 1, header, pickle.dumps(full._index, protocol=pickle.HIGHEST_PROTOCOL))
    path.write_bytes(codec.seal(old, vector_file.aad_of(path)))
    lean, meta = VectorIndex.load(path, codec, graph=False)
    assert not lean.graph_loaded and meta.count == N - 1
    assert lean.search(vectors[20], 3) == full.search_exact(vectors[20], 3)


def test_the_memory_center_service_leaves_the_graph_on_disk(data_dir: Path) -> None:
    """Through the service: search, a new memory and a deletion in a process that leaves the
    graph in its file; the next process finds the new vector and not the deleted one."""
    scope = {"user": "ana", "project": "garden"}
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="hashing"
    ) as svc:
        kept = svc.memories.remember(scope, "Water the tomatoes every morning").value.record
        doomed = svc.memories.remember(scope, "The basil sits on the sunny windowsill").value.record
        assert kept is not None and doomed is not None
    svc = MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="hashing"
    )
    try:
        svc.index.leave_vector_graph_on_disk()
        svc.index.warm_up()
        hits = svc.retrieval.search_memory(scope, "tomatoes watering")
        assert hits and hits[0].memory_id == kept.id
        layer = svc.index.catalog.vectors
        assert layer is not None and not layer.index.graph_loaded
        added = svc.memories.remember(scope, "Compost goes in the left bin").value.record
        assert added is not None
        svc.retrieval.search_memory(scope, "compost bin")  # a patient read embeds it
        svc.review.delete(doomed.id, reason="wrong", purge=True)
    finally:
        svc.close()
    assert not layer.index.graph_loaded  # saved at close, then released
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="hashing"
    ) as again:
        vectors = again.index.catalog.vectors
        assert vectors is not None
        vectors.load_file()
        assert added.id in vectors.index and doomed.id not in vectors.index
        assert vectors.index.graph_loaded


# --- additions saved beside the graph file (vector_delta) -------------------------------


def test_additions_alone_are_saved_beside_the_graph_file(
    saved: tuple[VectorIndex, Path, list[str], Array], codec: Codec
) -> None:
    """A save without the graph whose changes remove nothing from the graph file writes
    only the additions file; the graph file is not rewritten, and every load applies it."""
    _, path, ids, _ = saved
    graph_bytes = path.read_bytes()
    lean, _ = VectorIndex.load(path, codec, graph=False)
    fresh = unit_vectors(3, seed=61)
    lean.add(["add_a", "add_b"], fresh[:2])
    lean.add([ids[4]], fresh[2:3])  # an edited memory, embedded again
    lean.add(["brief"], unit_vectors(1, seed=62))
    lean.remove("brief")  # added and removed here: in neither file
    meta = lean.save(path, codec, META)
    assert meta.count == N - 1 + 2
    assert path.read_bytes() == graph_bytes and not lean.graph_loaded
    extra = vector_delta.delta_path(path)
    assert extra.exists()
    for graph in (True, False):
        again, _ = VectorIndex.load(path, codec, graph=graph)
        assert len(again) == N - 1 + 2 and "brief" not in again
        assert _top(again, fresh[0], 1) == ["add_a"] and _top(again, fresh[2], 1) == [ids[4]]
    full, _ = VectorIndex.load(path, codec)
    full.save(path, codec, META, whole=True)  # a graph that holds them: the file goes
    assert not extra.exists()
    assert "add_b" in VectorIndex.load(path, codec, graph=False)[0]


def test_a_removal_from_the_graph_file_scrubs_it_in_passing_and_keeps_the_additions(
    saved: tuple[VectorIndex, Path, list[str], Array], codec: Codec
) -> None:
    """R19: a vector in the graph file is scrubbed by rewriting that file, never hidden by
    the additions file. Without the graph in memory the file is rewritten as it is read
    (#13): the element zeroed and marked deleted, the additions kept beside the new file."""
    original, path, ids, vectors = saved
    lean, _ = VectorIndex.load(path, codec, graph=False)
    lean.add(["first"], unit_vectors(1, seed=71))
    lean.save(path, codec, META)
    extra = vector_delta.delta_path(path)
    assert extra.exists()
    lean.remove(ids[11])
    lean.save(path, codec, META)
    assert not lean.graph_loaded and extra.exists()
    assert not contains_vector(_file_plaintext(path, codec), vectors[11])
    assert contains_vector(_file_plaintext(path, codec), stored_vector(original, ids[12]))
    again, _ = VectorIndex.load(path, codec, graph=False)
    assert ids[11] not in again and "first" in again and len(again) == N - 1
    full, meta = VectorIndex.load(path, codec)
    assert ids[11] not in full and "first" in full and meta.count == N - 2
    assert full.dead_slots == 2  # ids[7] before, ids[11] now
    assert ids[11] not in _top(full, vectors[11], N) and _top(full, vectors[12], 1) == [ids[12]]
    # A third process's save reads the rewritten file and its additions as one.
    full.save(path, codec, META, whole=True)
    assert not extra.exists()
    assert "first" in VectorIndex.load(path, codec, graph=False)[0]


def test_a_graph_file_without_deletions_gets_its_first_one_in_passing(
    tmp_path: Path, codec: Codec
) -> None:
    """hnswlib skips elements marked deleted only in a graph that says it has deletions:
    the rewritten pickle stream says so, and a full graph walk never returns the memory."""
    ids = [f"mem_{i:04d}" for i in range(N)]
    vectors = unit_vectors(N, seed=5)
    first = VectorIndex(DIM, capacity=16)
    first.add(ids, vectors)
    path = tmp_path / "vectors.idx"
    first.save(path, codec, META)
    gone = first._labels[ids[40]]
    lean, _ = VectorIndex.load(path, codec, graph=False)
    lean.remove(ids[40])
    lean.save(path, codec, META)
    assert not lean.graph_loaded
    full, _ = VectorIndex.load(path, codec)
    graph = full._graph()
    labels, _ = graph.knn_query(vectors[40], k=N - 1)
    assert gone not in {int(label) for label in labels[0]}
    assert full.search(vectors[40], 1)[0][0] != ids[40]


def test_a_file_that_fails_its_tag_is_not_sealed_again_in_passing(
    saved: tuple[VectorIndex, Path, list[str], Array],
    codec: Codec,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Bad input: a graph file tampered with after it was read (same size and time, so it
    still looks like the file read) fails the rewrite at its tag, and nothing of it is
    sealed again; the save goes the graph's way, which finds the file broken and builds the
    graph from the rows, so the deleted vector still leaves the disk (R19)."""
    _, path, ids, vectors = saved
    lean, _ = VectorIndex.load(path, codec, graph=False)
    lean.remove(ids[20])
    found = path.stat()
    blob = bytearray(path.read_bytes())
    blob[len(blob) // 2] ^= 0x01
    with path.open("r+b") as handle:
        handle.write(blob)
    os.utime(path, ns=(found.st_atime_ns, found.st_mtime_ns))
    with caplog.at_level(logging.WARNING, logger="core.index.vector_index"):
        lean.save(path, codec, META)
    warned = [r.getMessage() for r in caplog.records]
    assert any("not rewritten in passing" in m for m in warned)
    assert any("rebuilt" in m for m in warned)
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]
    again, _ = VectorIndex.load(path, codec)
    assert ids[20] not in again and len(again) == N - 2
    assert not contains_vector(_file_plaintext(path, codec), vectors[20])


def test_a_format_1_file_is_written_whole_when_a_removal_needs_it(
    saved: tuple[VectorIndex, Path, list[str], Array],
    codec: Codec,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A file whose pickle stream cannot be reproduced exactly is not edited in passing: the
    graph is read and written whole, as before."""
    _, path, ids, vectors = saved
    lean, _ = VectorIndex.load(path, codec, graph=False)
    lean.remove(ids[30])
    monkeypatch.setattr(vector_file, "stream_with_deletions", lambda _layout, _deletions: None)
    lean.save(path, codec, META)
    assert lean.graph_loaded and lean.release_graph()
    assert not contains_vector(_file_plaintext(path, codec), vectors[30])
    assert ids[30] not in VectorIndex.load(path, codec)[0]


def _file_plaintext(path: Path, codec: Codec) -> bytes:
    """The graph file's own plaintext, as it lies on disk."""
    return codec.open(path.read_bytes(), vector_file.aad_of(path))


def test_a_stale_or_damaged_additions_file_is_deleted(
    saved: tuple[VectorIndex, Path, list[str], Array],
    codec: Codec,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """One made for another graph file may hold a deleted memory's vector (R19), and one
    that does not open is of no use: both go; the reconcile embeds their memories again."""
    _, path, ids, _ = saved
    lean, _ = VectorIndex.load(path, codec, graph=False)
    lean.add(["orphan"], unit_vectors(1, seed=81))
    lean.save(path, codec, META)
    extra = vector_delta.delta_path(path)
    kept = extra.read_bytes()
    other, _ = VectorIndex.load(path, codec)
    other.compact()
    other.save(path, codec, META)  # a new graph file, with a new id
    extra.write_bytes(kept)  # the old additions file back beside it
    assert "orphan" in other  # the compacting process had applied it itself
    fresh, _ = VectorIndex.load(path, codec, graph=False)
    assert not extra.exists() and len(fresh) == len(other)
    extra.write_bytes(b"MC" + bytes(40))
    with caplog.at_level(logging.WARNING, logger=vi_module.__name__):
        again, _ = VectorIndex.load(path, codec)
    assert not extra.exists() and "unusable" in caplog.text and ids[0] in again


def _additions(path: Path, codec: Codec) -> list[str]:
    found = vector_delta.read(vector_delta.delta_path(path), codec, DIM)
    return [] if found is None else found.ids


def test_saves_merge_into_the_additions_file(
    saved: tuple[VectorIndex, Path, list[str], Array], codec: Codec
) -> None:
    """Processes that each add and save keep each other's additions; one that removes a
    memory only the additions file holds takes it out, and a later save of a process that
    read it before never brings it back (R19)."""
    _, path, _, _ = saved
    first, _ = VectorIndex.load(path, codec, graph=False)
    agent, _ = VectorIndex.load(path, codec)  # holds the graph, as an agent does
    first.add(["one"], unit_vectors(1, seed=91))
    first.save(path, codec, META)
    agent.add(["two"], unit_vectors(1, seed=92))
    agent.save(path, codec, META)
    assert _additions(path, codec) == ["one", "two"]
    third, _ = VectorIndex.load(path, codec, graph=False)
    assert {"one", "two"} <= set(third.ids())
    third.remove("one")
    third.save(path, codec, META)
    assert _additions(path, codec) == ["two"]
    first.add(["three"], unit_vectors(1, seed=93))
    first.save(path, codec, META)  # it added "one" itself: still its own change, so kept
    assert _additions(path, codec) == ["two", "one", "three"]
    agent.add(["four"], unit_vectors(1, seed=94))
    agent.save(path, codec, META)  # it only ever read of "one" through the others
    assert "one" in _additions(path, codec)
    assert {"two", "three", "four"} <= set(VectorIndex.load(path, codec)[0].ids())


def test_a_process_that_read_an_addition_does_not_bring_it_back(
    saved: tuple[VectorIndex, Path, list[str], Array], codec: Codec
) -> None:
    """R19: a vector that came from the additions file is not this process's change; when
    another process deletes that memory, this one's next save leaves it deleted."""
    _, path, _, _ = saved
    writer, _ = VectorIndex.load(path, codec, graph=False)
    writer.add(["gone_soon"], unit_vectors(1, seed=95))
    writer.save(path, codec, META)
    reader, _ = VectorIndex.load(path, codec)
    assert "gone_soon" in reader
    deleter, _ = VectorIndex.load(path, codec, graph=False)
    deleter.remove("gone_soon")
    deleter.save(path, codec, META)
    reader.add(["other"], unit_vectors(1, seed=96))
    reader.save(path, codec, META)
    assert _additions(path, codec) == ["other"]


def test_an_agent_saves_few_additions_without_writing_its_graph(
    saved: tuple[VectorIndex, Path, list[str], Array],
    codec: Codec,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A process with the graph writes only the additions file for a few additions, and
    the whole graph once they are more than DELTA_MAX (every load applies them)."""
    _, path, _, _ = saved
    monkeypatch.setattr(vi_module, "DELTA_MAX", 4)
    graph_bytes = path.read_bytes()
    agent, _ = VectorIndex.load(path, codec)
    agent.add(["a1", "a2"], unit_vectors(2, seed=97))
    agent.save(path, codec, META)
    assert path.read_bytes() == graph_bytes and _additions(path, codec) == ["a1", "a2"]
    agent.add(["a3", "a4", "a5"], unit_vectors(3, seed=98))
    agent.save(path, codec, META)
    assert path.read_bytes() != graph_bytes and _additions(path, codec) == []
    assert {"a1", "a5"} <= set(VectorIndex.load(path, codec, additions=False)[0].ids())


def test_additions_file_validation(tmp_path: Path, codec: Codec) -> None:
    """A file renamed, of another width, or with ids and rows that disagree is refused."""
    path = tmp_path / "vectors.delta.idx"
    delta = vector_delta.Delta("abc", ["x", "y"], unit_vectors(2))
    vector_delta.write(path, codec, delta)
    read = vector_delta.read(path, codec, DIM)
    assert read is not None and read.ids == ["x", "y"] and read.base == "abc"
    np.testing.assert_array_equal(read.vectors, delta.vectors)
    with pytest.raises(IntegrityError):
        vector_delta.read(path, codec, DIM + 1)
    moved = tmp_path / "other.delta.idx"
    path.rename(moved)
    with pytest.raises(IntegrityError):
        vector_delta.read(moved, codec, DIM)
    assert vector_delta.read(path, codec, DIM) is None


def _open_lean(data_dir: Path) -> MemoryService:
    svc = MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="hashing"
    )
    svc.index.leave_vector_graph_on_disk()
    svc.index.warm_up()
    return svc


def test_a_memory_center_session_that_only_adds_writes_the_additions_file(
    data_dir: Path,
) -> None:
    """Through the service: the memory center's new memory is saved beside the graph file at
    close; an agent's process finds it; a key rotation (R24) rewrites both files under the
    new key, so `verify` passes and nothing is left under the old key."""
    scope = {"user": "ana", "project": "garden"}
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="hashing"
    ) as svc:
        svc.memories.remember(scope, "Water the tomatoes every morning")
    graph_file = data_dir / "index" / "vectors.mcidx"
    extra = vector_delta.delta_path(graph_file)
    graph_bytes = graph_file.read_bytes()
    svc = _open_lean(data_dir)
    try:
        added = svc.memories.remember(scope, "Compost goes in the left bin").value.record
        assert added is not None
        assert svc.retrieval.search_memory(scope, "compost bin")[0].memory_id == added.id
    finally:
        svc.close()
    assert graph_file.read_bytes() == graph_bytes and extra.exists()
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="hashing"
    ) as agent:
        vectors = agent.index.catalog.vectors
        assert vectors is not None
        vectors.load_file()
        assert added.id in vectors.index and agent.verify().ok
    svc = _open_lean(data_dir)
    try:
        svc.retrieval.search_memory(scope, "tomatoes")
        svc.keys.rotate()
        assert svc.verify().ok
    finally:
        svc.close()
    assert graph_file.read_bytes() != graph_bytes and not extra.exists()
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="hashing"
    ) as again:
        assert again.verify().ok
        vectors = again.index.catalog.vectors
        assert vectors is not None
        vectors.load_file()
        assert added.id in vectors.index


def test_a_memory_center_deletion_scrubs_the_graph_file_without_reading_the_graph(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R19 through the service: the memory center deletes an embedded memory; at its close
    the graph file is written again without that vector and the graph was never read
    (#13); an agent's process neither finds nor ranks it, and `verify` passes."""
    scope = {"user": "ana", "project": "garden"}
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="hashing"
    ) as svc:
        doomed = svc.memories.remember(scope, "The shed key hides under the blue pot").value.record
        kept = svc.memories.remember(scope, "Water the tomatoes every morning").value.record
        assert doomed is not None and kept is not None
        layer = svc.index.catalog.vectors
        assert layer is not None
        doomed_vector = layer.index.get_vector(doomed.id)
        assert doomed_vector is not None
    graph_file = data_dir / "index" / "vectors.mcidx"

    def graph_read(_self: VectorIndex) -> None:
        raise AssertionError("the memory center read the vector graph")

    svc = _open_lean(data_dir)
    monkeypatch.setattr(VectorIndex, "_materialize", graph_read)
    try:
        assert svc.retrieval.search_memory(scope, "shed key")[0].memory_id == doomed.id
        svc.review.delete(doomed.id, reason="no longer true")
        layer = svc.index.catalog.vectors
        assert layer is not None
        codec = layer._codec()
    finally:
        svc.close()
    monkeypatch.undo()
    assert not contains_vector(_file_plaintext(graph_file, codec), doomed_vector)
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="hashing"
    ) as agent:
        assert agent.verify().ok
        vectors = agent.index.catalog.vectors
        assert vectors is not None
        vectors.load_file()
        assert doomed.id not in vectors.index and kept.id in vectors.index
        assert doomed.id not in [
            hit.memory_id for hit in agent.retrieval.search_memory(scope, "shed key")
        ]


@pytest.mark.parametrize("lean", [True, False], ids=["memory-center", "agent"])
def test_a_process_closing_after_another_deleted_does_not_write_the_vector_back(
    data_dir: Path, lean: bool
) -> None:
    """R19 across processes: one process purges a memory while another still holds its
    vector; the second one's close reads the change feed first, so neither the graph file
    nor the additions file gets the vector back."""
    scope = {"user": "ana"}
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="hashing"
    ) as svc:
        doomed = svc.memories.remember(scope, "The old alarm code is 4711").value.record
        assert doomed is not None
    holder = (
        _open_lean(data_dir)
        if lean
        else MemoryService.open(
            data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="hashing"
        )
    )
    try:
        assert holder.retrieval.search_memory(scope, "alarm code")  # its vector is loaded here
        holder.memories.remember(scope, "The new alarm code is kept by Ben")
        holder.retrieval.search_memory(scope, "alarm code")
        with MemoryService.open(
            data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="hashing"
        ) as other:
            other.review.delete(doomed.id, reason="leaked", purge=True)
    finally:
        holder.close()
    graph_file = data_dir / "index" / "vectors.mcidx"
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder="hashing"
    ) as again:
        layer = again.index.catalog.vectors
        assert layer is not None
        on_disk, _ = VectorIndex.load(graph_file, layer._codec())
        assert doomed.id not in on_disk
        assert len(on_disk) == 1


# --- bad input ----------------------------------------------------------------------------


def _sealed_plaintext(path: Path, codec: Codec, plain: bytes) -> None:
    """Seal `plain` as the vector file at `path` (authentic, whatever it holds)."""
    with path.open("wb") as handle:
        codec.seal_to([plain], vector_file.aad_of(path), handle)


@pytest.mark.parametrize("change", ["buffers", "next_label"])
def test_sizes_the_table_does_not_bear_out_are_refused_not_allocated(
    saved: tuple[VectorIndex, Path, list[str], Array], codec: Codec, change: str
) -> None:
    """A header that names buffers longer than the file, or more labels than the element
    table has: the lean read never allocates from it (it is not authenticated yet), and
    the full read refuses it with one clear error."""
    from core.index.vector_index import FORMAT_VERSION, MAGIC
    from core.storage.framing import frame, unframe

    full, path, _, _ = saved
    plain = full.plaintext(META)
    header, at = unframe(plain, MAGIC, FORMAT_VERSION, "vector index")
    if change == "buffers":
        header["buffers"] = [*header["buffers"][:-1], 10**15]
    else:
        header["next_label"] = 10**15
    _sealed_plaintext(path, codec, frame(MAGIC, FORMAT_VERSION, header, plain[at:]))
    with pytest.raises(IntegrityError):
        VectorIndex.load(path, codec, graph=False)


@pytest.mark.parametrize(
    "head",
    [b"[" * 100_000 + b"]" * 100_000, b'{"base": "\\xff', b"\xff\xfe not json"],
    ids=["deeply-nested", "bad-escape", "invalid-utf8"],
)
def test_an_additions_file_with_a_broken_header_is_one_clear_error(
    tmp_path: Path, codec: Codec, head: bytes
) -> None:
    """Deeply nested JSON, a broken escape or bytes that are not UTF-8 in the header: an
    IntegrityError naming the file kind, never a traceback of the JSON parser."""
    import struct

    from core.storage.framing import write_file

    path = tmp_path / "vectors.delta.idx"
    plain = vector_delta.MAGIC + struct.pack(">BI", vector_delta.FORMAT_VERSION, len(head)) + head
    write_file(path, codec.seal(plain, vector_delta._aad(path)), "test", make_dir=False)
    with pytest.raises(IntegrityError, match="vector additions"):
        vector_delta.read(path, codec, DIM)


def test_a_broken_additions_file_is_dropped_and_the_graph_still_loads(
    saved: tuple[VectorIndex, Path, list[str], Array],
    codec: Codec,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Beside a good graph file: one warning line, the additions file deleted, nothing
    else lost."""
    _, path, ids, _ = saved
    extra = vector_delta.delta_path(path)
    head = b"[" * 100_000
    plain = vector_delta.MAGIC + b"\x01" + len(head).to_bytes(4, "big") + head
    extra.write_bytes(codec.seal(plain, vector_delta._aad(extra)))
    with caplog.at_level(logging.WARNING, logger=vi_module.__name__):
        lean, meta = VectorIndex.load(path, codec, graph=False)
    assert not extra.exists() and meta.count == N - 1 and ids[0] in lean
    assert "unusable" in caplog.text and "Traceback" not in caplog.text
