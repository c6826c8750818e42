"""#13, R19, R24: the keyword index persisted as a sealed file beside the vector index."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from core import MemoryService
from core.retrieval import keyword_file
from core.retrieval.keyword import KeywordIndex
from tests.conftest import PASSPHRASE

SCOPE = {"user": "mei", "project": "atlas"}
FACTS = [
    "The zanzibar gateway listens on port 7781.",
    "Staging deploys run through the blue pipeline every Tuesday.",
    "Mei prefers oat milk in her coffee.",
    "The family dentist appointment is booked for the 14th.",
    "我们的服务器部署在上海机房。",
]


def _open(data_dir: Path) -> MemoryService:
    return MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False)


def _fill(data_dir: Path) -> dict[str, str]:
    """Remember the facts; close (which writes the keyword file); return id by text."""
    svc = _open(data_dir)
    try:
        ids = {}
        for text in FACTS:
            record = svc.memories.remember(SCOPE, text).value.record
            assert record is not None
            ids[text] = record.id
    finally:
        svc.close()
    return ids


def _file(data_dir: Path) -> Path:
    return data_dir / "index" / keyword_file.FILE_NAME


def _found(svc: MemoryService, query: str) -> list[str]:
    # Ranked hits: keyword hits first, then (with an embedder) near vector neighbours.
    return [h.content for h in svc.retrieval.search_memory(SCOPE, query, limit=10)]


def _read_file(svc: MemoryService, path: Path) -> KeywordIndex:
    index, _meta = keyword_file.load(path, svc._store.codec)
    return index


def test_the_file_is_written_sealed_and_read_back_without_decrypting_memories(
    data_dir: Path,
) -> None:
    ids = _fill(data_dir)
    path = _file(data_dir)
    assert path.exists()
    raw = path.read_bytes()
    assert b"zanzibar" not in raw and b"MCKW" not in raw  # sealed, not plain
    svc = _open(data_dir)
    try:
        on_disk = _read_file(svc, path)
        assert set(on_disk.ids()) == set(ids.values())
        assert "zanzibar" in on_disk.terms_of(ids[FACTS[0]])
        assert _found(svc, "zanzibar gateway port") == [FACTS[0]]
        # Opening used the file: nothing had to be decrypted for the keyword index, and only
        # the records retrieval ranked were read.
        assert svc.index.catalog.records.cached <= len(FACTS)
        assert _found(svc, "上海") == [FACTS[4]]
    finally:
        svc.close()


def test_a_deleted_file_is_rebuilt_with_the_same_results(data_dir: Path) -> None:
    _fill(data_dir)
    svc = _open(data_dir)
    try:
        before = svc.retrieval.search_memory(SCOPE, "pipeline Tuesday deploys", limit=5)
    finally:
        svc.close()
    _file(data_dir).unlink()
    svc = _open(data_dir)
    try:
        after = svc.retrieval.search_memory(SCOPE, "pipeline Tuesday deploys", limit=5)
        assert [(h.memory_id, round(h.score, 9)) for h in after] == [
            (h.memory_id, round(h.score, 9)) for h in before
        ]
    finally:
        svc.close()
    assert _file(data_dir).exists()


def test_purge_removes_the_terms_postings_and_rewrites_the_file(data_dir: Path) -> None:
    ids = _fill(data_dir)
    victim = ids[FACTS[0]]
    path = _file(data_dir)
    svc = _open(data_dir)
    try:
        assert _found(svc, "zanzibar") == [FACTS[0]]
        written = path.stat().st_mtime_ns
        svc.review.delete(victim, reason="asked to forget", purge=True)
        # Rewritten now, not at close: the purged terms must not wait on disk.
        assert path.stat().st_mtime_ns != written
        plain = keyword_file.plaintext(_read_file(svc, path), 0)
        on_disk = _read_file(svc, path)
        assert victim not in set(on_disk.ids())
        assert not on_disk.knows("zanzibar") and not on_disk.knows("7781")
        assert b"zanzibar" not in plain and victim.encode() not in plain
        assert on_disk.knows("pipeline")  # the other memories stay
        assert FACTS[0] not in _found(svc, "zanzibar gateway")
        assert not svc.index.catalog.keywords.knows("zanzibar")
    finally:
        svc.close()


def test_a_purge_in_a_process_that_never_searched_keeps_the_other_entries(
    data_dir: Path,
) -> None:
    ids = _fill(data_dir)
    svc = _open(data_dir)  # a CLI purge: no read before the delete
    try:
        svc.review.delete(ids[FACTS[1]], reason="gone", purge=True)
    finally:
        svc.close()
    svc = _open(data_dir)
    try:
        on_disk = _read_file(svc, _file(data_dir))
        assert set(on_disk.ids()) == set(ids.values()) - {ids[FACTS[1]]}
    finally:
        svc.close()


def test_a_tampered_file_is_named_by_verify_and_rebuilt_on_open(data_dir: Path) -> None:
    _fill(data_dir)
    path = _file(data_dir)
    blob = bytearray(path.read_bytes())
    blob[len(blob) // 2] ^= 0x01
    path.write_bytes(bytes(blob))
    svc = _open(data_dir)
    try:
        report = svc.verify()
        assert not report.ok
        failure = report.first_failure
        assert failure is not None
        assert failure.row_id == "index/keywords.mcidx"
        assert failure.field == "keyword"
        assert "index rebuild" in failure.problem
        # Not trusted: the index is rebuilt from the store, and search still works.
        assert _found(svc, "oat milk coffee") == [FACTS[2]]
    finally:
        svc.close()
    svc = _open(data_dir)
    try:
        assert svc.verify().ok  # rewritten at close
    finally:
        svc.close()


def test_a_file_swapped_for_another_stores_file_does_not_open(
    data_dir: Path, tmp_path: Path
) -> None:
    _fill(data_dir)
    other = tmp_path / "other"
    svc = _open(other)
    try:
        svc.memories.remember(SCOPE, "An unrelated memory about sailing boats.")
    finally:
        svc.close()
    shutil.copy(_file(other), _file(data_dir))
    svc = _open(data_dir)
    try:
        assert not svc.verify().ok
        assert not svc.index.catalog.keywords.search("sailing boats")
        assert _found(svc, "zanzibar") == [FACTS[0]]
    finally:
        svc.close()


def test_a_stale_file_catches_up_with_changes_made_while_it_was_not_updated(
    data_dir: Path, tmp_path: Path
) -> None:
    ids = _fill(data_dir)
    saved = tmp_path / "keywords-before"
    shutil.copy(_file(data_dir), saved)
    other = _open(data_dir)  # another process changes the store ...
    try:
        new = other.memories.remember(
            SCOPE, "The quokka sensor reports every ninety seconds."
        ).value.record
        assert new is not None
        other.review.edit(ids[FACTS[2]], "Mei now prefers soy milk in her tea.")
        other.review.delete(ids[FACTS[3]], reason="outdated")
    finally:
        other.close()
    shutil.copy(saved, _file(data_dir))  # ... and its file never reached this disk
    svc = _open(data_dir)
    try:
        assert _found(svc, "quokka sensor") == ["The quokka sensor reports every ninety seconds."]
        assert _found(svc, "soy milk tea") == ["Mei now prefers soy milk in her tea."]
        assert FACTS[2] not in _found(svc, "oat milk coffee")
        assert FACTS[3] not in _found(svc, "dentist appointment")
        assert not svc.index.catalog.keywords.search(
            "oat"
        ) and not svc.index.catalog.keywords.search("dentist")
        keywords = svc.index.catalog.keywords
        assert new.id in keywords and ids[FACTS[3]] not in keywords
    finally:
        svc.close()


@pytest.mark.parametrize("seed", [1, 2])
def test_packed_round_trip_scores_like_the_live_index(seed: int) -> None:
    rng = random.Random(seed)
    words = ["port", "gateway", "deploy", "coffee", "hotels", "v1.2", "上海机房", "blue", "x"]
    live = KeywordIndex()
    for i in range(300):
        live.add(f"m{i:03d}", " ".join(rng.choices(words, k=rng.randint(1, 9))), stamp=i + 1)
    for i in range(0, 300, 7):
        live.remove(f"m{i:03d}")
    index, meta = keyword_file.unpack(keyword_file.plaintext(live, 42))
    assert meta.store_revision == 42 and meta.documents == len(live)
    for query in ("port gateway", "hotel", "上海", "blue coffee x", "v1.2 deploy"):
        assert index.search(query) == pytest.approx(live.search(query))
        allowed = {f"m{i:03d}" for i in range(0, 300, 3)}
        assert index.search(query, allowed) == pytest.approx(live.search(query, allowed))
        assert index.ideal(query) == pytest.approx(live.ideal(query))
    assert index.stamp("m001") == 2 and index.stamp("m007") is None


def test_removing_the_last_holder_of_a_term_drops_the_term() -> None:
    index = KeywordIndex()
    index.add("a", "unique zanzibar words")
    index.add("b", "common words")
    assert index.knows("zanzibar")
    index.remove("a")
    assert not index.knows("zanzibar") and index.knows("word")
    assert "zanzibar" not in index.packed().terms
    index.add("c", "zanzibar returns")  # a freed term number is reused safely
    assert index.search("zanzibar").keys() == {"c"}
