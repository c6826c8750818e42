"""Private `user=X` scopes on a team store: sealed with X's personal key, which only X's
devices hold; a teammate with the team key and raw SQL reads nothing of them (R24, #12).

Every "device" is its own data directory with its own passphrase key file, as on separate
machines; the server is a real, throwaway PostgreSQL; the crypto is the real codec.
"""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from core import (
    AuthenticationFailedError,
    ManualClock,
    MemoryFilter,
    MemoryService,
    NewEvent,
    NotFoundError,
    NotPermittedError,
    PrivateScopeError,
    RotationInterruptedError,
    RotationProgress,
)
from core.crypto.codec import NONCE_BYTES, Aad, Codec, read_header
from core.crypto.keys import KEY_FILE_NAME, KeySet, PassphraseKeyStore
from core.governance.fences import features
from core.governance.text import fingerprint
from core.storage import text_index
from core.storage.event_log import payload_aad
from core.storage.memories import content_aad, reason_aad, speaker_aad
from core.storage.snapshots import body_aad
from tests.conftest import START

ANA = {"org": "acme", "user": "ana"}
TEAM = {"org": "acme"}
SECRET = "Remember: ana's therapy appointments are on Thursdays at 17:00"
SHARED = "Remember: acme's release freeze starts on the 20th"


def _open(data_dir: Path, passphrase: str, url: str | None = None, **kw: str) -> MemoryService:
    return MemoryService.open(
        data_dir,
        passphrase=passphrase,
        clock=ManualClock(START),
        prefer_keyring=False,
        database_url=url,
        **kw,
    )


def _join(inviter: MemoryService, data_dir: Path, member: str, passphrase: str) -> MemoryService:
    raw, code = inviter.team.invite_member(member).value
    return MemoryService.join(
        data_dir, raw, code, passphrase=passphrase, prefer_keyring=False, clock=ManualClock(START)
    )


def _keys(data_dir: Path, passphrase: str) -> KeySet:
    return PassphraseKeyStore(data_dir / KEY_FILE_NAME, passphrase).load()


def _raw_materials(keys: KeySet) -> list[bytes]:
    """Every secret of a key set: team data keys, fingerprint key, device key, personal."""
    found = [*keys.keys.values(), keys.fingerprint_key]
    found += [raw for _kid, raw in keys.personal.values()]
    return found + ([keys.device_key] if keys.device_key else [])


def _opens_with_any(blob: bytes, aad: Aad, keys: KeySet) -> bool:
    """Try every key of the set on the raw ciphertext, whatever id its header names."""
    head = read_header(blob)
    header, nonce = blob[: head.length], blob[head.length : head.length + NONCE_BYTES]
    body = blob[head.length + NONCE_BYTES :]
    for raw in _raw_materials(keys):
        try:
            AESGCM(raw).decrypt(nonce, body, header + aad.encode())
        except InvalidTag:
            continue
        return True
    return False


def _sql(url: str, query: str, *args: object) -> list[tuple[object, ...]]:
    with psycopg.connect(url) as conn:
        return list(conn.execute(query, args).fetchall())


@pytest.fixture
def team(pg_url: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    ana = _open(tmp_path / "ana-desk", "ana passphrase", pg_url, member="ana")
    ben = _join(ana, tmp_path / "ben-desk", "ben", "ben passphrase")
    try:
        yield ana, ben, tmp_path
    finally:
        ben.close()
        ana.close()


def test_teammate_with_team_key_and_raw_sql_cannot_read_a_private_memory(
    team: tuple[MemoryService, MemoryService, Path], pg_url: str
) -> None:
    ana, _ben, tmp_path = team
    private = ana.memories.remember(ANA, SECRET, speaker="Ana Ferreira").value.record
    shared = ana.memories.remember(TEAM, SHARED).value.record
    assert private is not None and shared is not None
    snap = ana.retrieval.inject(ANA, "when are ana's appointments and the freeze", 800).value
    assert "Thursdays at 17:00" in snap.text and "release freeze" in snap.text
    ben_keys = _keys(tmp_path / "ben-desk", "ben passphrase")
    assert ben_keys.keys and ben_keys.device_key and set(ben_keys.personal) == {"ben"}
    # The memory's revision, its decision reason, its source event and ana's snapshot.
    sealed = [
        (bytes(b), content_aad(m, r))  # type: ignore[arg-type]
        for m, r, b in _sql(
            pg_url,
            "SELECT memory_id, revision, content FROM memory_revisions WHERE memory_id=%s",
            private.id,
        )
    ]
    # Who said it is sealed with the same personal key (#17).
    sealed += [
        (bytes(b), speaker_aad(m, r))  # type: ignore[arg-type]
        for m, r, b in _sql(
            pg_url,
            "SELECT memory_id, revision, speaker FROM memory_revisions WHERE memory_id=%s",
            private.id,
        )
    ]
    sealed += [
        (bytes(b), reason_aad(str(d)))  # type: ignore[arg-type]
        for d, b in _sql(pg_url, "SELECT id, reason FROM decisions WHERE memory_id=%s", private.id)
    ]
    sealed += [
        (bytes(b), payload_aad(e))  # type: ignore[arg-type]
        for e, b in _sql(
            pg_url,
            "SELECT p.event_id, p.ciphertext FROM event_payloads p JOIN events e "
            "ON e.id = p.event_id WHERE e.id = %s",
            private.source_event_ids[0],
        )
    ]
    sealed += [
        (bytes(b), body_aad(snap.snapshot_id))
        for (b,) in _sql(  # type: ignore[arg-type]
            pg_url, "SELECT body FROM snapshots WHERE id=%s", snap.snapshot_id
        )
    ]
    assert len(sealed) >= 5
    ben_codec = Codec(ben_keys)
    for blob, aad in sealed:
        assert SECRET.encode()[:20] not in blob
        assert not _opens_with_any(blob, aad, ben_keys), aad
        with pytest.raises(PrivateScopeError):
            ben_codec.open(blob, aad)
    # The team memory opens with ben's keys from the same raw rows.
    ((team_blob,),) = _sql(
        pg_url, "SELECT content FROM memory_revisions WHERE memory_id=%s", shared.id
    )
    assert ben_codec.open_text(bytes(team_blob), content_aad(shared.id, 1)) == shared.content  # type: ignore[arg-type]


def test_the_owners_text_index_holds_no_private_text(
    team: tuple[MemoryService, MemoryService, Path],
) -> None:
    """The desktop's text index is sealed with the team key, so a private memory's text never
    enters it: the owner's search still finds it, decrypting it with the personal key (#13)."""
    ana, _ben, tmp_path = team
    private = ana.memories.remember(ANA, SECRET).value.record
    shared = ana.memories.remember(TEAM, SHARED).value.record
    assert private is not None and shared is not None
    found = [r.id for r in ana.memories.list_memories(MemoryFilter(text="thursdays"))]
    assert found == [private.id]
    assert [r.id for r in ana.memories.list_memories(MemoryFilter(text="release freeze"))] == [
        shared.id
    ]
    ana.index.catalog.texts.save(ana._store.codec)
    path = tmp_path / "ana-desk" / "index" / text_index.FILE_NAME
    assert SECRET.encode()[:20] not in path.read_bytes()
    entries, opaque, _at = text_index.load(
        path, Codec(_keys(tmp_path / "ben-desk", "ben passphrase"))
    )
    assert private.id not in entries and shared.id in entries
    assert private.id in opaque  # read, with ana's personal key, at every search
    assert all("thursdays" not in text for _rev, _at, text in entries.values())


def test_teammate_never_sees_it_and_the_owner_gets_both(
    team: tuple[MemoryService, MemoryService, Path],
) -> None:
    ana, ben, _ = team
    private = ana.memories.remember(ANA, SECRET).value.record
    ana.memories.remember(TEAM, SHARED)
    assert private is not None
    for svc in (ana, ben):
        svc.index.catalog.invalidate()
    # Ben: the private memory is simply not there, not damage.
    assert all(r.id != private.id for r in ben.memories.list_memories())
    hits = ben.retrieval.search_memory(ANA, "ana appointments Thursdays")
    assert all("Thursdays" not in h.content for h in hits)
    block = ben.retrieval.inject(ANA, "ana appointments and release freeze", 800).value.text
    assert "Thursdays" not in block and "release freeze" in block
    with pytest.raises(NotFoundError):
        ben.memories.get_memory(private.id)
    report = ben.verify()
    assert report.ok, report.first_failure
    assert report.unreadable_values >= 2
    assert ben.status().damaged_rows == 0
    # Ben may not write into ana's private scope: a clear error, nothing written.
    before = ben.memories.count_memories()
    with pytest.raises(PrivateScopeError, match="private to member 'ana'"):
        ben.memories.remember(ANA, "Remember: ana likes green tea")
    assert ben.memories.count_memories() == before
    # A scope naming someone who is no member (no personal key on the store) is team content.
    zoe = ben.memories.remember(
        {"org": "acme", "user": "zoe"}, "Remember: zoe's desk is 4B"
    ).value.record
    assert zoe is not None
    assert any(
        h.memory_id == zoe.id
        for h in ana.retrieval.search_memory({"org": "acme", "user": "zoe"}, "desk")
    )
    # Ana: injection combines her private memory with the team's.
    block = ana.retrieval.inject(ANA, "ana appointments and release freeze", 800).value.text
    assert "Thursdays at 17:00" in block and "release freeze" in block
    mine = ana.verify()
    assert mine.ok and mine.unreadable_values == 0
    assert ana.keys.info().private_scopes == ("ana",)
    assert ben.keys.info().private_scopes == ("ben",)


def test_the_personal_key_reaches_the_members_other_devices_only(
    team: tuple[MemoryService, MemoryService, Path], pg_url: str
) -> None:
    ana, ben, tmp_path = team
    private = ana.memories.remember(ANA, SECRET).value.record
    assert private is not None
    # An invitation ana writes for herself carries her personal key.
    laptop = _join(ana, tmp_path / "ana-laptop", "ana", "laptop passphrase")
    try:
        assert any(
            private.id == h.memory_id for h in laptop.retrieval.search_memory(ANA, "appointments")
        )
    finally:
        laptop.close()
    # Ben may not add a device to ana (#41): only a device of ana's own can.
    with pytest.raises(NotPermittedError, match="only a device of ana's own"):
        ben.team.invite_member("ana")
    # A device of ana gets the key through an envelope that another of her devices seals
    # to it, once its signed registration verifies.
    with psycopg.connect(pg_url) as conn:
        conn.execute("DELETE FROM personal_keys WHERE member = 'ana'")
    _open(tmp_path / "ana-desk", "ana passphrase").close()  # re-seals to the laptop
    laptop = _open(tmp_path / "ana-laptop", "laptop passphrase")
    try:
        assert any(
            private.id == h.memory_id for h in laptop.retrieval.search_memory(ANA, "appointments")
        )
    finally:
        laptop.close()
    ben_devices = _sql(pg_url, "SELECT count(*) FROM personal_keys WHERE member = 'ana'")
    assert ben_devices == [(2,)]  # desk, laptop: never one of ben's devices
    assert "ana" not in _keys(tmp_path / "ben-desk", "ben passphrase").personal


def test_removal_rotates_past_the_member_with_progress_and_resumes(
    team: tuple[MemoryService, MemoryService, Path], pg_url: str
) -> None:
    ana, ben, tmp_path = team
    for i in range(30):
        ana.memories.remember(TEAM, f"Remember: acme runbook step {i} is owned by ops")
    ben_private = ben.memories.remember(
        {"org": "acme", "user": "ben"}, "Remember: ben is job hunting"
    )
    assert ben_private.value.record is not None
    old = _keys(tmp_path / "ben-desk", "ben passphrase")
    seen: list[RotationProgress] = []
    stop_after = iter(range(3))
    with pytest.raises(RotationInterruptedError):
        ana.team.remove_member_tracked(
            "ben", on_progress=seen.append, should_stop=lambda: next(stop_after, 99) >= 2
        )
    assert ana.keys.rotation_pending()
    report = ana.team.remove_member_tracked("ben", on_progress=seen.append).value
    assert report.resumed and not ana.keys.rotation_pending()
    phases = [p.phase for p in seen]
    assert phases[0] == "revoking" and phases[-1] == "done" and "sealing" in phases
    last = seen[-1]
    assert last.visited == last.total > 30
    assert all(a.visited <= a.total for a in seen)
    after = ana.memories.remember(TEAM, "Remember: the new acme vault path is /ops/v3").value.record
    assert after is not None
    ((blob,),) = _sql(pg_url, "SELECT content FROM memory_revisions WHERE memory_id=%s", after.id)
    assert not _opens_with_any(bytes(blob), content_aad(after.id, 1), old)  # type: ignore[arg-type]
    assert _sql(pg_url, "SELECT count(*) FROM personal_keys WHERE member = 'ben'") == [(0,)]
    with pytest.raises(AuthenticationFailedError, match="removed"):
        _open(tmp_path / "ben-desk", "ben passphrase")
    with pytest.raises(NotFoundError):
        ana.team.remove_member_tracked("ben")
    report_after = ana.verify()
    assert report_after.ok, report_after.first_failure
    assert report_after.unreadable_values >= 1  # ben's private rows: nobody's to read now


def test_a_single_user_store_keeps_one_key_set(tmp_path: Path) -> None:
    """On a local SQLite store there are no personal keys: user scopes use the one key set,
    so nothing changes (and nothing gets slower) for a single user."""
    svc = _open(tmp_path / "solo", "solo passphrase")
    try:
        record = svc.memories.remember(ANA, SECRET).value.record
        assert record is not None
        with svc._store.read("peek") as conn:
            blob = conn.exec_driver_sql(
                "SELECT content FROM memory_revisions WHERE memory_id = ?", (record.id,)
            ).scalar_one()
        assert read_header(bytes(blob)).key_id == svc.keys.info().active_key_id
        assert not _keys(tmp_path / "solo", "solo passphrase").personal
        assert svc.verify().unreadable_values == 0
    finally:
        svc.close()


def test_a_bad_member_name_is_refused_and_writes_nothing(pg_url: str, tmp_path: Path) -> None:
    from core import InvalidInputError

    target = tmp_path / "bad"
    with pytest.raises(InvalidInputError, match="member"):
        _open(target, "bad passphrase", pg_url, member="ana\nsmith")
    with pytest.raises(InvalidInputError, match="member"):
        _open(target, "bad passphrase", pg_url, member="a" * 65)
    assert not target.exists()
    assert _sql(pg_url, "SELECT count(*) FROM pg_tables WHERE tablename = 'store_meta'") == [(0,)]


def test_an_invitation_carries_team_keys_only(
    team: tuple[MemoryService, MemoryService, Path],
) -> None:
    from core.crypto.invitation import open_invitation

    ana, _ben, _ = team
    raw, code = ana.team.invite_member("lee").value
    shared = open_invitation(raw, code).keys
    assert shared.device_key is None and not shared.personal and shared.keys
    # To herself (a second device) ana hands her own personal key, and nobody else's.
    raw, code = ana.team.invite_member("ana").value
    own = open_invitation(raw, code).keys
    assert own.device_key is None and set(own.personal) == {"ana"}


def test_purges_reach_private_copies_on_either_side(
    team: tuple[MemoryService, MemoryService, Path], pg_url: str
) -> None:
    ana, ben, _ = team
    private = ana.memories.remember(ANA, SECRET).value.record
    shared = ana.memories.remember(TEAM, SHARED).value.record
    assert private is not None and shared is not None
    snap = ana.retrieval.inject(ANA, "ana appointments and release freeze", 800).value
    assert {i.memory_id for i in snap.items} >= {private.id, shared.id}
    # Ana purges her private memory: its copies go, under her own key, and both verify.
    ana.review.delete(private.id, reason="no longer true", purge=True)
    assert ana.memories.tombstone(private.id).purged
    assert _sql(
        pg_url,
        "SELECT count(*) FROM memory_revisions WHERE memory_id=%s AND content IS NOT NULL",
        private.id,
    ) == [(0,)]
    # Ben purges the team memory; ana's private snapshot that injected it cannot be redacted
    # on ben's device, so it is removed whole rather than kept with the copy.
    ben.index.catalog.invalidate()
    ben.review.delete(shared.id, reason="wrong date", purge=True)
    assert _sql(pg_url, "SELECT count(*) FROM snapshots WHERE id=%s", snap.snapshot_id) == [(0,)]
    assert any("deleted whole" in line for line in ben.memories.tombstone(shared.id).report)
    for svc in (ana, ben):
        report = svc.verify()
        assert report.ok, report.first_failure


def test_a_teammate_cannot_test_a_guessed_text_against_private_fingerprints(
    team: tuple[MemoryService, MemoryService, Path], pg_url: str
) -> None:
    """Fingerprints and fences of a private scope are keyed with the member's personal
    fingerprint key: ben, holding the team keys and raw SQL, guesses the exact text and
    finds nothing; ana's own fence still stops the text coming back."""
    ana, _ben, tmp_path = team
    private = ana.memories.remember(ANA, SECRET).value.record
    shared = ana.memories.remember(TEAM, SHARED).value.record
    assert private is not None and shared is not None
    team_key = _keys(tmp_path / "ben-desk", "ben passphrase").fingerprint_key
    stored = dict(_sql(pg_url, "SELECT id, fingerprint FROM memories"))
    # A team memory's fingerprint is the team key's (dedupe across the team works) ...
    assert stored[shared.id] == fingerprint(team_key, shared.content)
    # ... a private one's is not, and no row answers ben's guess.
    assert fingerprint(team_key, private.content) not in stored.values()
    assert stored[private.id] != fingerprint(team_key, private.content)

    ana.review.delete(private.id, reason="not for the team to know")
    fences = [r[0] for r in _sql(pg_url, "SELECT fingerprint FROM deletion_fences")]
    assert len(fences) == 1 and fingerprint(team_key, private.content) not in fences
    guess = features(team_key, private.content)
    (terms_json,) = _sql(pg_url, "SELECT terms_json FROM fence_features")[0]
    assert guess.terms and not guess.terms & set(json.loads(str(terms_json)))
    # Ana's fence stands for her: the same text extracted again is refused.
    ana.events.append_event(NewEvent("s-ana", "user", "user", ANA, SECRET))
    (again,) = ana.memories.extract("s-ana").value
    assert any("deletion fence: the same content" in r for r in again.reasons)
    assert again.record is not None and again.record.status.value != "active"
    assert ana.verify().ok
