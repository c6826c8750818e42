"""Who said a memory is a field, not part of its text (#17): every write path, sealed, shown.

A turn of imported history used to carry "Melanie: ..." inside its text, where the speaker's
name distorted similarity and could not be told from the words. It now travels as `speaker`
beside `said_at`: sealed in its own column, shown in search hits and injections, matched by
keyword, carried through edits, export and import, and destroyed by a purge.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg
import pytest

from core import MemoryFilter, MemoryService, NewEvent
from core.errors import InvalidInputError
from core.retrieval import injector
from core.storage.migrations import CURRENT_VERSION
from core.storage.opener import DB_FILE_NAME
from tests.conftest import PASSPHRASE

SCOPE = {"user": "mei"}
SAID = "2023-05-08T14:00:00+00:00"


def test_remember_keeps_the_speaker_out_of_the_text_and_shows_it(service: MemoryService) -> None:
    out = service.memories.remember(
        SCOPE, "I painted a sunset by the lake.", said_at=SAID, speaker="Melanie"
    ).value
    assert out.record is not None
    assert out.record.speaker == "Melanie" and "Melanie" not in out.record.content
    (hit,) = service.retrieval.search_memory(SCOPE, "sunset lake")
    assert hit.speaker == "Melanie" and hit.content == "I painted a sunset by the lake."
    block = service.retrieval.inject(SCOPE, "what did she paint by the lake", 300).value.text
    assert "Melanie: I painted a sunset by the lake." in block


def test_the_speakers_name_is_matched_by_keyword(service: MemoryService) -> None:
    """A question that names the speaker finds their turn though the text never says it."""
    service.memories.remember(
        SCOPE, "We adopted a puppy last week.", said_at=SAID, speaker="Caroline"
    )
    service.memories.remember(
        SCOPE, "The weather was lovely at the beach.", said_at=SAID, speaker="Mei"
    )
    hits = service.retrieval.search_memory(SCOPE, "Caroline")
    assert [h.content for h in hits][:1] == ["We adopted a puppy last week."]


def test_speaker_survives_reopen_and_edit(data_dir: Path) -> None:
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        out = svc.memories.remember(SCOPE, "My bike is blue.", said_at=SAID, speaker="Mei").value
        assert out.record is not None
        memory_id = out.record.id
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        assert svc.memories.get_memory(memory_id).speaker == "Mei"
        edited = svc.review.edit(memory_id, "My bike is dark blue.").value
        assert edited.speaker == "Mei" and edited.revision == 2
        assert svc.memories.get_memory(memory_id).speaker == "Mei"
        assert svc.verify().ok


def test_suggest_batch_import_and_extraction_take_the_speaker(service: MemoryService) -> None:
    suggested = service.memories.suggest(SCOPE, "Mei prefers green tea.", speaker="Mei").value
    assert suggested.record is not None and suggested.record.speaker == "Mei"
    many = service.memories.remember_many(
        [
            {"scope": SCOPE, "text": "Our choir meets on Thursdays.", "speaker": "Jon"},
            {"scope": SCOPE, "text": "The recital is in June."},
        ]
    ).value
    assert [o.record.speaker for o in many if o.record] == ["Jon", None]
    doc = {
        "format": "memory-center-export-v1",
        "memories": [{"content": "Mei's locker is 14.", "scope": SCOPE, "speaker": "Ana"}],
    }
    (imported,) = service.memories.import_memories(doc).value
    assert imported.record is not None and imported.record.speaker == "Ana"
    exported = {m["content"]: m for m in service.memories.export_memories()["memories"]}
    assert exported["Mei's locker is 14."]["speaker"] == "Ana"
    assert "speaker" not in exported["The recital is in June."]
    service.events.append_event(
        NewEvent(
            session="history",
            actor="user",
            trust="user",
            scope=SCOPE,
            text="Remember: I always take the 7:40 train.",
            said_at=SAID,
            speaker="Mei",
        )
    )
    extracted = service.memories.extract("history").value
    records = [o.record for o in extracted if o.record is not None]
    assert records and all(r.speaker == "Mei" for r in records)
    assert all("Mei:" not in r.content for r in records)


@pytest.mark.parametrize(
    ("value", "problem"),
    [("Mei\nsays", "one line"), ("x" * 101, "100"), (12, "string"), ("   ", "blank")],
)
def test_bad_speaker_is_a_clear_error_and_writes_nothing(
    service: MemoryService, value: object, problem: str
) -> None:
    before = service.events.revision()
    with pytest.raises(InvalidInputError, match=problem) as info:
        service.memories.remember(SCOPE, "Remember: Mei's locker is 14.", speaker=value)  # type: ignore[arg-type]
    assert info.value.field == "speaker"
    doc = {
        "format": "memory-center-export-v1",
        "memories": [{"content": "Mei's locker is 14.", "scope": SCOPE, "speaker": value}],
    }
    with pytest.raises(InvalidInputError, match=problem) as info:
        service.memories.import_memories(doc)
    assert info.value.field == "memories[0].speaker"
    assert service.events.revision() == before and service.memories.list_memories() == []


def test_a_store_from_before_the_speaker_column_upgrades(data_dir: Path) -> None:
    """Version 9 had no speaker column: it is added, old memories read with none."""
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        out = svc.memories.remember(SCOPE, "Remember: the gate code is 4411.").value
        assert out.record is not None
        memory_id = out.record.id
    db = sqlite3.connect(data_dir / DB_FILE_NAME)
    try:
        db.execute("ALTER TABLE memory_revisions DROP COLUMN speaker")
        db.execute("DELETE FROM schema_migrations WHERE version >= 10")
        db.execute("UPDATE store_meta SET value = '9' WHERE key = 'schema_version'")
        db.commit()
    finally:
        db.close()
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        assert svc.status().schema_version == CURRENT_VERSION
        old = svc.memories.get_memory(memory_id)
        assert old.speaker is None and "4411" in old.content
        new = svc.memories.remember(SCOPE, "Our dog is called Rex.", speaker="Mei").value
        assert new.record is not None and new.record.speaker == "Mei"
        assert svc.verify().ok


def test_purge_destroys_the_sealed_speaker(service: MemoryService, data_dir: Path) -> None:
    """R19: a purge nulls the speaker of every revision, as it nulls the content."""
    out = service.memories.remember(SCOPE, "My bike lock code is 5521.", speaker="Mei").value
    assert out.record is not None
    memory_id = out.record.id
    service.review.edit(memory_id, "My bike lock code is 5522.")
    service.review.delete(memory_id, reason="forget it", purge=True, purge_events=True)
    service.close()
    db = sqlite3.connect(data_dir / DB_FILE_NAME)
    try:
        rows = db.execute(
            "SELECT revision, speaker, content FROM memory_revisions WHERE memory_id = ?",
            (memory_id,),
        ).fetchall()
    finally:
        db.close()
    assert [r[0] for r in rows] == [1, 2]
    assert all(speaker is None and content is None for _, speaker, content in rows)


def test_two_peoples_words_neither_merge_nor_supersede(service: MemoryService) -> None:
    """The same words said by two people are two turns; their values are two facts."""
    said = {"said_at": SAID}
    first = service.memories.remember(SCOPE, "Yes, I loved it!", speaker="Mei", **said).value
    second = service.memories.remember(SCOPE, "Yes, I loved it!", speaker="Jon", **said).value
    assert first.record and second.record and first.record.id != second.record.id
    assert second.outcome == "active"
    paris = service.memories.remember(
        SCOPE, "I moved to Paris in May.", speaker="Mei", **said
    ).value
    berlin = service.memories.remember(
        SCOPE, "I moved to Berlin in May.", speaker="Jon", **said
    ).value
    assert berlin.superseded == () and berlin.conflicts_with == ()
    assert paris.record and service.memories.get_memory(paris.record.id).status.value == "active"
    # One person's repeated words still merge.
    again = service.memories.remember(SCOPE, "Yes, I loved it!", speaker="mei", **said).value
    assert again.outcome == "merged" and again.record and again.record.id == first.record.id


def test_an_impersonal_contradiction_across_speakers_is_still_found(
    service: MemoryService,
) -> None:
    """Whoever says it, "the concert is on Sunday" contradicts "the concert is on Saturday"."""
    old = service.memories.remember(
        SCOPE, "The concert is on Saturday at 8pm.", speaker="Jon"
    ).value
    new = service.memories.remember(SCOPE, "The concert is on Sunday at 8pm.", speaker="Mei").value
    assert old.record is not None
    assert new.superseded == (old.record.id,) or new.conflicts_with == (old.record.id,)


def test_a_hit_by_the_person_asked_about_gains(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same words said by two people: the person the question names is nudged up, on
    top of what the keyword and vector match of the name already give (by_speaker)."""
    said = {"said_at": SAID}
    mei = service.memories.remember(
        SCOPE, "I started pottery classes.", speaker="Mei", **said
    ).value
    service.memories.remember(SCOPE, "I started pottery classes.", speaker="Jon", **said)
    assert mei.record is not None

    def gap() -> float:
        hits = service.retrieval.search_memory(SCOPE, "When did Mei start pottery classes?")
        score = {service.memories.get_memory(h.memory_id).speaker: h.score for h in hits}
        return score["Mei"] - score["Jon"]

    with_nudge = gap()
    monkeypatch.setattr(injector, "SPEAKER_NUDGE", False)
    without = gap()
    assert with_nudge > without > 0


def test_the_memory_centers_text_search_finds_a_speakers_words(service: MemoryService) -> None:
    """Searching the memory center for a name lists what that person said (text index)."""
    service.memories.remember(
        SCOPE, "We adopted a puppy last week.", said_at=SAID, speaker="Caroline"
    )
    service.memories.remember(SCOPE, "The weather was lovely.", said_at=SAID, speaker="Mei")
    for _ in range(2):  # the first search builds the sealed text index, the second reads it
        found = service.memories.list_memories(MemoryFilter(text="caroline"))
        assert [r.content for r in found] == ["We adopted a puppy last week."]


def test_a_chinese_speaker_is_named_too(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CJK name has no word boundaries: "王芳推荐了什么" names 王芳 (by_speaker)."""
    said = {"said_at": SAID}
    service.memories.remember(SCOPE, "我推荐那家新开的川菜馆。", speaker="王芳", **said)
    service.memories.remember(SCOPE, "我推荐那家新开的川菜馆。", speaker="李娜", **said)

    def gap() -> float:
        hits = service.retrieval.search_memory(SCOPE, "王芳推荐了哪家餐馆？")
        score = {service.memories.get_memory(h.memory_id).speaker: h.score for h in hits}
        return score["王芳"] - score["李娜"]

    with_nudge = gap()
    monkeypatch.setattr(injector, "SPEAKER_NUDGE", False)
    assert with_nudge > gap()


def test_a_postgresql_store_from_before_the_speaker_column_upgrades(
    pg_url: str, tmp_path: Path
) -> None:
    """The same upgrade on a server store: the column is added as BYTEA by the migration."""

    def open_store() -> MemoryService:
        return MemoryService.open(
            tmp_path / "device",
            passphrase=PASSPHRASE,
            prefer_keyring=False,
            database_url=pg_url,
        )

    with open_store() as svc:
        out = svc.memories.remember(SCOPE, "Remember: the gate code is 4411.").value
        assert out.record is not None
        memory_id = out.record.id
    with psycopg.connect(pg_url) as conn:
        conn.execute("ALTER TABLE memory_revisions DROP COLUMN speaker")
        conn.execute("DELETE FROM schema_migrations WHERE version >= 10")
    with open_store() as svc:
        assert svc.status().schema_version == CURRENT_VERSION
        assert svc.memories.get_memory(memory_id).speaker is None
        new = svc.memories.remember(SCOPE, "Our dog is called Rex.", speaker="Mei").value
        assert new.record is not None and new.record.speaker == "Mei"
        assert svc.verify().ok
    with psycopg.connect(pg_url) as conn:
        (kind,) = conn.execute(
            "SELECT data_type FROM information_schema.columns "
            "WHERE table_name = 'memory_revisions' AND column_name = 'speaker'"
        ).fetchone()
    assert kind == "bytea"


def test_a_deletion_fence_stops_the_words_of_the_person_who_said_them(
    service: MemoryService,
) -> None:
    """Deleting Mei's turn fences Mei's words, not Jon's identical turn; after a purge the
    speaker is gone and the fence holds for everyone (R19)."""
    said = {"said_at": SAID}
    mei = service.memories.remember(SCOPE, "I finally quit my job.", speaker="Mei", **said).value
    assert mei.record is not None
    service.review.delete(mei.record.id, reason="private")
    again = service.memories.suggest(SCOPE, "I finally quit my job.", speaker="Mei", **said).value
    assert again.outcome == "rejected" and again.record is not None
    assert "deletion fence" in " ".join(again.reasons)
    jon = service.memories.suggest(SCOPE, "I finally quit my job.", speaker="Jon", **said).value
    assert jon.outcome != "rejected", jon.reasons
    # A purge destroys the speaker with the words: the fence then holds for anyone.
    service.review.delete(jon.record.id, reason="not needed", purge=True)  # type: ignore[union-attr]
    service.review.delete(mei.record.id, reason="private", purge=True)
    ana = service.memories.suggest(SCOPE, "I finally quit my job.", speaker="Ana", **said).value
    assert ana.outcome == "rejected", ana.reasons
