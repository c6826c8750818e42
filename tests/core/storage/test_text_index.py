"""#13, R19: the memory center's full-text search answered from a sealed text index.

Every test runs on a real SQLite store with real encryption; "another process" is a second
service opened on the same data directory, as the CLI beside the desktop would be.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from core import IntegrityError, MemoryFilter, MemoryRecord, MemoryService, Scope
from core.storage import text_index
from core.storage.text_index import TextIndex
from tests.conftest import PASSPHRASE

SCOPE = {"user": "mei", "project": "atlas"}
FACTS = [
    "The Zanzibar gateway listens on port 7781.",
    "Staging deploys run through the blue pipeline every Tuesday.",
    "Mei prefers oat milk in her coffee.",
    "The family dentist appointment is booked for the 14th.",
    "我们的服务器部署在上海机房。",
    "The backup port 7782 is only for the Zanzibar failover.",
]


def _open(data_dir: Path) -> MemoryService:
    return MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False)


def _fill(data_dir: Path) -> dict[str, str]:
    """Remember the facts (one left as a suggestion); close; return id by text."""
    svc = _open(data_dir)
    try:
        ids = {}
        for text in FACTS[:-1]:
            record = svc.memories.remember(SCOPE, text).value.record
            assert record is not None
            ids[text] = record.id
        suggested = svc.memories.suggest(SCOPE, FACTS[-1]).value.record
        assert suggested is not None
        ids[FACTS[-1]] = suggested.id
        # What the desktop does in the background after its first paint.
        assert svc.index.prepare_text_search() == len(FACTS)
        assert svc.index.prepare_text_search() == 0  # current: nothing more to read
    finally:
        svc.close()
    return ids


def _file(data_dir: Path) -> Path:
    return data_dir / "index" / text_index.FILE_NAME


def _search(svc: MemoryService, text: str, **kw: object) -> list[str]:
    return [r.content for r in svc.memories.list_memories(MemoryFilter(text=text, **kw))]  # type: ignore[arg-type]


def _plain_answer(records: list[MemoryRecord], text: str) -> list[str]:
    """What decrypting every record and matching each would give (the old path)."""
    return [r.content for r in records if text.casefold() in r.content.casefold()]


@pytest.mark.parametrize(
    "needle", ["zanzibar", "PORT 778", "port 7781.", "上海", "t 77", "milk in", "absent words", "e"]
)
def test_results_equal_decrypting_every_record(data_dir: Path, needle: str) -> None:
    _fill(data_dir)
    svc = _open(data_dir)
    try:
        everything = svc.memories.list_memories(None)
        assert _search(svc, needle) == _plain_answer(everything, needle)
        # Metadata filters, visibility and paging combine with it as before.
        assert _search(svc, needle, statuses=("candidate",)) == _plain_answer(
            [r for r in everything if r.status.value == "candidate"], needle
        )
        assert _search(svc, needle, visible_to=Scope.of({"user": "someone-else"})) == []
        full = _plain_answer(everything, needle)
        assert _search(svc, needle, limit=1, offset=1) == full[1:2]
    finally:
        svc.close()


def test_a_reopened_store_answers_from_the_file_without_decrypting_non_matches(
    data_dir: Path,
) -> None:
    ids = _fill(data_dir)
    path = _file(data_dir)
    raw = path.read_bytes()
    assert b"zanzibar" not in raw.lower() and b"MCTX" not in raw  # sealed, not plain
    svc = _open(data_dir)
    try:
        assert sorted(_search(svc, "zanzibar")) == sorted([FACTS[0], FACTS[-1]])
        texts = svc.index.catalog.texts
        assert texts.decrypted == 0  # every text came from the file, nothing changed since
        hits, opaque = texts.candidates("zanzibar")
        assert sorted(hits) == sorted([ids[FACTS[0]], ids[FACTS[-1]]]) and opaque == []
        # A change made now is caught up from the change feed: one row, not the store.
        svc.memories.remember(SCOPE, "The Zanzibar router reboots nightly.")
        assert len(_search(svc, "zanzibar")) == 3
        assert texts.decrypted == 1
    finally:
        svc.close()


def test_changes_made_elsewhere_are_read_fresh_not_from_the_stale_file(
    data_dir: Path, tmp_path: Path
) -> None:
    ids = _fill(data_dir)
    saved = tmp_path / "texts-before"
    shutil.copy(_file(data_dir), saved)
    other = _open(data_dir)  # another process edits, adds and deletes ...
    try:
        other.review.edit(ids[FACTS[2]], "Mei now prefers soy milk in her tea.")
        other.memories.remember(SCOPE, "The quokka sensor reports every ninety seconds.")
        other.review.delete(ids[FACTS[3]], reason="outdated")
    finally:
        other.close()
    shutil.copy(saved, _file(data_dir))  # ... and its file never reached this disk
    svc = _open(data_dir)
    try:
        assert _search(svc, "oat milk") == []
        assert _search(svc, "soy milk") == ["Mei now prefers soy milk in her tea."]
        assert _search(svc, "quokka") == ["The quokka sensor reports every ninety seconds."]
        # A deletion without purge keeps the content (tombstoned, in every status listing).
        assert _search(svc, "dentist") == _plain_answer(svc.memories.list_memories(None), "dentist")
        assert _search(svc, "dentist", statuses=("active",)) == []
    finally:
        svc.close()


def test_purge_rewrites_the_file_without_the_memory(data_dir: Path) -> None:
    ids = _fill(data_dir)
    marker = "Zanzibar gateway"
    svc = _open(data_dir)
    try:
        svc.review.delete(ids[FACTS[0]], reason="wrong", purge=True)
        entries, _opaque, _at = text_index.load(_file(data_dir), svc._store.codec)
        assert ids[FACTS[0]] not in entries
        assert all(marker.casefold() not in text for _rev, _at, text in entries.values())
        assert ids[FACTS[2]] in entries  # the others survive
        assert _search(svc, "zanzibar") == [FACTS[-1]]
    finally:
        svc.close()


def test_a_purge_in_a_process_that_never_searched_keeps_the_other_entries(
    data_dir: Path,
) -> None:
    ids = _fill(data_dir)
    svc = _open(data_dir)  # a CLI delete: it never read the text file before
    try:
        svc.review.delete(ids[FACTS[1]], reason="wrong", purge=True)
    finally:
        svc.close()
    svc = _open(data_dir)
    try:
        entries, _opaque, _at = text_index.load(_file(data_dir), svc._store.codec)
        assert set(entries) == set(ids.values()) - {ids[FACTS[1]]}
    finally:
        svc.close()


def test_a_tampered_file_is_named_by_verify_and_replaced(data_dir: Path) -> None:
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
        assert (failure.row_id, failure.field) == ("index/texts.mcidx", "texts")
        # Not trusted: the search decrypts instead, and the answer is right.
        assert _search(svc, "oat milk") == [FACTS[2]]
    finally:
        svc.close()
    svc = _open(data_dir)
    try:
        assert svc.verify().ok  # rewritten at close
    finally:
        svc.close()


def test_a_file_swapped_in_from_another_store_does_not_open(data_dir: Path, tmp_path: Path) -> None:
    _fill(data_dir)
    other = tmp_path / "other"
    svc = _open(other)
    try:
        svc.memories.remember(SCOPE, "An unrelated memory about sailing boats.")
        svc.memories.list_memories(MemoryFilter(text="sailing"))
    finally:
        svc.close()
    shutil.copy(_file(other), _file(data_dir))
    svc = _open(data_dir)
    try:
        assert not svc.verify().ok
        assert _search(svc, "sailing") == []
        assert _search(svc, "zanzibar gateway") == [FACTS[0]]
    finally:
        svc.close()


def test_a_row_tampered_in_the_database_is_reported_not_returned(data_dir: Path) -> None:
    ids = _fill(data_dir)
    target = ids[FACTS[0]]
    con = sqlite3.connect(data_dir / "memory-center.sqlite3")
    try:
        # Raise the confidence behind the codec's back: the metadata binding breaks.
        con.execute("UPDATE memories SET confidence = 0.99 WHERE id = ?", (target,))
        con.commit()
    finally:
        con.close()
    svc = _open(data_dir)
    try:
        assert _search(svc, "zanzibar") == [FACTS[-1]]  # cached text matched, check refused
        assert svc.status().damaged_rows >= 1
    finally:
        svc.close()


def test_index_rebuild_drops_the_file_and_search_still_answers(data_dir: Path) -> None:
    _fill(data_dir)
    svc = _open(data_dir)
    try:
        svc.index.rebuild()
        assert not _file(data_dir).exists()
        assert _search(svc, "blue pipeline") == [FACTS[1]]
    finally:
        svc.close()
    assert _file(data_dir).exists()  # written again at close


def test_a_malformed_plaintext_is_refused_by_name() -> None:
    entry = (3, "2026-01-02T03:04:05.000000+00:00", "héllo 上海")
    plain = text_index._plaintext({"m1": entry}, {"m2"}, 41)
    assert text_index.unpack(plain) == ({"m1": entry}, {"m2"}, 41)
    with pytest.raises(IntegrityError, match="text index"):
        text_index.unpack(b"MCKW" + b"\x00" * 10)
    with pytest.raises(IntegrityError, match="malformed"):
        text_index.unpack(plain[:-2])
    assert len(TextIndex(None)) == 0


def test_a_purge_by_another_process_leaves_this_processs_copy_too(data_dir: Path) -> None:
    ids = _fill(data_dir)
    target = ids[FACTS[2]]
    here = _open(data_dir)
    try:
        assert _search(here, "oat milk") == [FACTS[2]]  # this process holds the text
        other = _open(data_dir)
        try:
            other.review.delete(target, reason="wrong", purge=True)
        finally:
            other.close()
        assert _search(here, "oat milk") == []
        hits, _opaque = here.index.catalog.texts.candidates("oat milk")
        assert hits == []  # gone from memory, not just filtered out
    finally:
        here.close()  # writes its copy of the file
    svc = _open(data_dir)
    try:
        entries, _opaque, _at = text_index.load(_file(data_dir), svc._store.codec)
        assert target not in entries
        assert all("oat milk" not in text for _rev, _at2, text in entries.values())
    finally:
        svc.close()
