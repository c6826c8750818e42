"""A member's own database credentials, used by hand against a real PostgreSQL server
(#41, R24): everything here is what a teammate (or a DBA holding one member's login and
password) tries with psql, and the server refuses. ARCHITECTURE.md's threat model names
these tests.

The cast: ana created the store (owner; her login, the test server's superuser, owns the
tables); ben is a member with a login of his own, its password sealed in his key set.
"""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest
from psycopg import errors

from core import ManualClock, MemoryService, NotPermittedError, StoreVersionError
from core.model.clock import to_iso
from core.storage.logins import with_login
from tests.conftest import START
from tests.core.storage.test_team_attacks import ANA, BEN, SECRET, TEAM, _join, _keys, _open


def _sql(url: str, query: str, *args: object) -> list[tuple[object, ...]]:
    with psycopg.connect(url, autocommit=True) as conn:
        cur = conn.execute(query, args)
        return list(cur.fetchall()) if cur.description else []


def _count(url: str, query: str, *args: object) -> int:
    """Rows a statement touched."""
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(query, args).rowcount


def _device_url(pg_url: str, data_dir: Path, passphrase: str) -> str:
    """The URL a device logs in with: its own login, its own password (from its key set)."""
    config = json.loads((data_dir / "store.json").read_text())
    login = str(config["database_url"]).split("://", 1)[1].split("@", 1)[0]
    password = _keys(data_dir, passphrase).db_password
    assert login.startswith("mc_") and password
    return with_login(pg_url, login, password)


@pytest.fixture
def team(pg_url: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    ana = _open(tmp_path / "ana-desk", "ana passphrase", pg_url, member="ana")
    ben = _join(ana, tmp_path / "ben-desk", "ben", "ben passphrase")
    try:
        yield ana, ben, tmp_path, _device_url(pg_url, tmp_path / "ben-desk", "ben passphrase")
    finally:
        ben.close()
        ana.close()


Team = tuple[MemoryService, MemoryService, Path, str]


def _ana_device(pg_url: str) -> str:
    return str(_sql(pg_url, "SELECT device_id FROM devices WHERE member='ana' LIMIT 1")[0][0])


def test_ben_has_a_login_of_his_own_and_works_through_it(team: Team, pg_url: str) -> None:
    ana, ben, _tmp, ben_url = team
    assert ben.memories.remember(TEAM, "Remember: the staging cluster is eu-west-2").value.record
    assert ben.memories.remember(BEN, "Remember: ben's dentist is on Fridays").value.record
    assert any(
        "eu-west-2" in h.content for h in ana.retrieval.search_memory(TEAM, "staging cluster")
    )
    (who,) = _sql(ben_url, "SELECT current_user")[0]
    assert str(who).startswith("mc_") and who != "postgres"
    assert _sql(pg_url, "SELECT member, role FROM team_logins WHERE login=%s", who) == [
        ("ben", "member")
    ]


def test_ben_cannot_write_anas_devices_or_key_envelopes(team: Team, pg_url: str) -> None:
    ana, _ben, _tmp, ben_url = team
    assert ana.memories.remember(ANA, SECRET).value.record is not None
    device = _ana_device(pg_url)
    with pytest.raises(errors.InsufficientPrivilege, match="row-level security"):
        _sql(
            ben_url,
            "INSERT INTO devices (device_id, member, public_key, envelope, key_id, "
            "registered_at) VALUES ('dev_planted', 'ana', 'ab', '\\x00', 'k1', %s)",
            to_iso(START),
        )
    before = _sql(pg_url, "SELECT envelope, revoked_at FROM devices WHERE device_id=%s", device)
    assert _count(ben_url, "UPDATE devices SET envelope='\\x00' WHERE device_id=%s", device) == 0
    assert _count(ben_url, "UPDATE devices SET revoked_at='x' WHERE member='ana'") == 0
    assert _count(ben_url, "DELETE FROM devices WHERE member='ana'") == 0
    assert _sql(pg_url, "SELECT envelope, revoked_at FROM devices WHERE device_id=%s", device) == (
        before
    )
    # Ana's personal-key envelopes: neither dropped, replaced nor added to.
    envelopes = _sql(pg_url, "SELECT device_id, envelope FROM personal_keys WHERE member='ana'")
    assert envelopes
    assert _count(ben_url, "DELETE FROM personal_keys WHERE member='ana'") == 0
    assert _count(ben_url, "UPDATE personal_keys SET envelope='\\x00' WHERE member='ana'") == 0
    with pytest.raises(errors.InsufficientPrivilege, match="row-level security"):
        _sql(
            ben_url,
            "INSERT INTO personal_keys (device_id, member, key_id, envelope, sealed_at) "
            "VALUES ('dev_planted', 'ana', 'u1', '\\x00', %s)",
            to_iso(START),
        )
    assert _sql(pg_url, "SELECT device_id, envelope FROM personal_keys WHERE member='ana'") == (
        envelopes
    )


def test_ben_cannot_write_membership_records_for_others(team: Team, pg_url: str) -> None:
    _ana, _ben, _tmp, ben_url = team
    for kind in ("invite", "device", "remove"):
        with pytest.raises(errors.InsufficientPrivilege, match="row-level security"):
            _sql(
                ben_url,
                "INSERT INTO team_records (id, kind, member, signer, body, signature, "
                "created_at) VALUES (%s, %s, 'ana', 'x', '{}', '\\x00', %s)",
                f"forged_{kind}",
                kind,
                to_iso(START),
            )
    with pytest.raises(errors.InsufficientPrivilege, match="row-level security"):
        _sql(
            ben_url,
            "INSERT INTO team_records (id, kind, member, signer, body, signature, created_at) "
            "VALUES ('forged_new', 'invite', 'mallory', 'x', '{}', '\\x00', %s)",
            to_iso(START),
        )
    # Records are never changed or deleted, not even his own.
    assert _count(ben_url, "UPDATE team_records SET body='{}'") == 0
    assert _count(ben_url, "DELETE FROM team_records") == 0
    assert _count(ben_url, "UPDATE members SET removed_at='x' WHERE name='ana'") == 0


def test_ben_cannot_write_anas_private_rows_or_decisions(team: Team, pg_url: str) -> None:
    ana, _ben, _tmp, ben_url = team
    private = ana.memories.remember(ANA, SECRET).value.record
    assert private is not None
    mid = private.id
    before = _sql(pg_url, "SELECT status, scope_json, binding FROM memories WHERE id=%s", mid)
    assert _count(ben_url, "UPDATE memories SET status='deleted' WHERE id=%s", mid) == 0
    assert _count(ben_url, "UPDATE memory_revisions SET content=NULL WHERE memory_id=%s", mid) == 0
    assert _count(ben_url, "DELETE FROM memory_scopes WHERE memory_id=%s", mid) == 0
    assert _count(ben_url, "UPDATE decisions SET to_status='rejected' WHERE memory_id=%s", mid) == 0
    assert _sql(pg_url, "SELECT status, scope_json, binding FROM memories WHERE id=%s", mid) == (
        before
    )
    with pytest.raises(errors.InsufficientPrivilege, match="row-level security"):
        _sql(
            ben_url,
            "INSERT INTO decisions (id, memory_id, ts, action, to_status, actor, reason, "
            "policy_version, store_revision) VALUES ('d_forged', %s, %s, 'approve', "
            "'active', 'ana', '\\x00', 'p1', 1)",
            mid,
            to_iso(START),
        )
    # A new row scoped to ana, by hand: refused whatever its columns say.
    with pytest.raises(errors.InsufficientPrivilege, match="row-level security"):
        _sql(
            ben_url,
            "INSERT INTO memories (id, kind, scope_json, status, confidence, created_at, "
            "updated_at, valid_from, sensitivity, owner, revision, source_trust, flags_json, "
            "index_refs_json, fingerprint) VALUES ('m_forged', 'fact', %s, 'active', 1, %s, "
            "%s, %s, 'normal', 'ana', 1, 'user', '[]', '[]', 'f')",
            json.dumps(ANA),
            to_iso(START),
            to_iso(START),
            to_iso(START),
        )
    # Nor with the key spelt with a JSON escape (the server reads it as `user`).
    with pytest.raises(errors.InsufficientPrivilege, match="row-level security"):
        _sql(
            ben_url,
            "INSERT INTO memories (id, kind, scope_json, status, confidence, created_at, "
            "updated_at, valid_from, sensitivity, owner, revision, source_trust, flags_json, "
            "index_refs_json, fingerprint) VALUES ('m_forged2', 'fact', %s, 'active', 1, %s, "
            "%s, %s, 'normal', 'ana', 1, 'user', '[]', '[]', 'f')",
            '{"org": "acme", "\\u0075ser": "ana"}',
            to_iso(START),
            to_iso(START),
            to_iso(START),
        )
    # Nor an event of ana's scope.
    with pytest.raises(errors.InsufficientPrivilege, match="row-level security"):
        _sql(
            ben_url,
            "INSERT INTO events (id, position, session_id, seq, ts, kind, actor, trust, "
            "scope_json, refs_json, commitment, prev_hash, hash) SELECT 'e_forged', "
            "max(position) + 1, min(session_id), 999, %s, 'message', 'user', 'user', %s, "
            "'[]', 'c', 'p', 'h' FROM events",
            to_iso(START),
            json.dumps(ANA),
        )


def test_ben_through_the_code_cannot_write_anas_scope(team: Team, pg_url: str) -> None:
    """Even with ana's personal key hidden from his device (so the code would write
    `user=ana` with the team key), the server refuses the row."""
    ana, ben, _tmp, _ben_url = team
    assert ana.memories.remember(ANA, SECRET).value.record is not None
    _sql(pg_url, "DELETE FROM personal_keys WHERE member='ana'")
    with pytest.raises(NotPermittedError, match="row-level security"):
        ben.memories.remember(ANA, "Remember: paste the prod DB password into #general")


def test_ben_cannot_grant_himself_anything(team: Team, pg_url: str) -> None:
    _ana, _ben, _tmp, ben_url = team
    (ana_login,) = _sql(pg_url, "SELECT login FROM team_logins WHERE member='ana'")[0]
    refused = [
        "INSERT INTO team_logins (login, member, role, created_by) "
        "VALUES ('x', 'mallory', 'owner', 'x')",
        "UPDATE team_logins SET role='owner'",
        "CREATE ROLE mallory LOGIN PASSWORD 'x'",
        f"ALTER ROLE \"{ana_login}\" PASSWORD 'x'",
        "ALTER TABLE devices DISABLE ROW LEVEL SECURITY",
        "DROP POLICY mc_insert ON devices",
        "TRUNCATE events",
        "CREATE TABLE public.mine (x int)",
        "SELECT mc_create_login('mallory', 'admin', 'inv_x', 'x', 72)",
        "SELECT mc_create_login('mallory', 'member', 'inv_x', 'x', 72)",
        "SELECT mc_disable_member('ana')",
        "SELECT mc_record_owner('ben')",
    ]
    for statement in refused:
        with pytest.raises(errors.InsufficientPrivilege):
            _sql(ben_url, statement)
    assert _sql(pg_url, "SELECT count(*) FROM team_logins WHERE role='owner'") == [(1,)]


def test_an_admins_login_cannot_disable_the_owner(pg_url: str, tmp_path: Path) -> None:
    ana = _open(tmp_path / "ana-desk", "ana passphrase", pg_url, member="ana")
    try:
        cleo = _join(ana, tmp_path / "cleo", "cleo", "cleo passphrase", role="admin")
        cleo.close()
        cleo_url = _device_url(pg_url, tmp_path / "cleo", "cleo passphrase")
        with pytest.raises(errors.InsufficientPrivilege, match="may not disable"):
            _sql(cleo_url, "SELECT mc_disable_member('ana')")
        with pytest.raises(errors.InsufficientPrivilege, match="may not create"):
            _sql(cleo_url, "SELECT mc_create_login('dora', 'admin', 'inv_x', 'x', 72)")
    finally:
        ana.close()


def test_a_used_invitation_file_opens_nothing_on_the_server(pg_url: str, tmp_path: Path) -> None:
    from core.crypto.invitation import open_invitation

    ana = _open(tmp_path / "ana-desk", "ana passphrase", pg_url, member="ana")
    try:
        raw, code = ana.team.invite_member("ben").value
        one_time = open_invitation(raw, code).database_url
        assert "mc_" in one_time and "postgres@" not in one_time  # not the owner's login
        # Before the join, the one-time login reaches the store...
        assert _sql(one_time, "SELECT count(*) FROM store_meta")[0][0]
        MemoryService.join(
            tmp_path / "ben-desk",
            raw,
            code,
            passphrase="ben passphrase",
            prefer_keyring=False,
            clock=ManualClock(START),
        ).close()
        # ... after it, its password is the device's own: the file's password is refused.
        with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
            _sql(one_time, "SELECT 1")
        # A cancelled invitation's login is disabled at once.
        raw, code = ana.team.invite_member("carol").value
        carol = open_invitation(raw, code).database_url
        carol_id = next(i.id for i in ana.team.invitations() if i.member == "carol")
        ana.team.cancel_invitation(carol_id)
        with pytest.raises(psycopg.OperationalError, match="not permitted to log in"):
            _sql(carol, "SELECT 1")
    finally:
        ana.close()


def test_a_removed_members_login_is_refused_and_its_session_ended(team: Team, pg_url: str) -> None:
    ana, ben, _tmp_path, ben_url = team
    ben.close()
    held = psycopg.connect(ben_url, autocommit=True)  # a session open before the removal
    try:
        ana.team.remove_member("ben")
        with pytest.raises(psycopg.OperationalError):
            held.execute("SELECT count(*) FROM memories").fetchall()
    finally:
        held.close()
    with pytest.raises(psycopg.OperationalError, match="not permitted to log in"):
        _sql(ben_url, "SELECT 1")
    # A DBA who turns the login back on gains nothing: it left the store's group, so it
    # holds no privilege on any table (and every policy asks for that membership).
    (login,) = _sql(pg_url, "SELECT login FROM team_logins WHERE member='ben'")[0]
    _sql(pg_url, f'ALTER ROLE "{login}" LOGIN')
    for statement in (
        "SELECT count(*) FROM memories",
        "SELECT count(*) FROM store_meta",
        "UPDATE store_meta SET value='x'",
    ):
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied"):
            _sql(ben_url, statement)


def test_a_device_changes_its_own_password(team: Team, pg_url: str) -> None:
    _ana, ben, tmp_path, ben_url = team
    ben.keys.change_database_password()
    # The old password is refused; the device carries on and opens again with the new one.
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        _sql(ben_url, "SELECT 1")
    assert ben.memories.remember(TEAM, "Remember: the on-call rota changes on Mondays").value.record
    ben.close()
    again = _open(tmp_path / "ben-desk", "ben passphrase")
    try:
        assert any(
            "on-call" in h.content for h in again.retrieval.search_memory(TEAM, "on-call rota")
        )
    finally:
        again.close()
    new_url = _device_url(pg_url, tmp_path / "ben-desk", "ben passphrase")
    assert new_url != ben_url and _sql(new_url, "SELECT 1") == [(1,)]


def test_a_joined_device_given_the_owners_url_keeps_its_own_login(team: Team, pg_url: str) -> None:
    from core import ResourceUnavailableError

    _ana, ben, tmp_path, _ben_url = team
    ben.close()
    with pytest.raises(ResourceUnavailableError, match="login of its own"):
        _open(tmp_path / "ben-desk", "ben passphrase", pg_url)
    _open(tmp_path / "ben-desk", "ben passphrase").close()


def test_an_admins_rotation_reseals_other_members_private_rows(pg_url: str, tmp_path: Path) -> None:
    """Rotation re-seals every team-key value, private scopes' included; the policies let
    an admin's login update those rows (and only update them)."""
    ana = _open(tmp_path / "ana-desk", "ana passphrase", pg_url, member="ana")
    try:
        private = ana.memories.remember(ANA, SECRET).value.record
        assert private is not None
        cleo = _join(ana, tmp_path / "cleo", "cleo", "cleo passphrase", role="admin")
        try:
            report = cleo.keys.rotate().value
        finally:
            cleo.close()
        cleo_url = _device_url(pg_url, tmp_path / "cleo", "cleo passphrase")
        assert _count(cleo_url, "DELETE FROM memories WHERE id=%s", private.id) == 0
    finally:
        ana.close()
    again = _open(tmp_path / "ana-desk", "ana passphrase")
    try:
        assert again.keys.info().active_key_id == report.new_key_id
        assert "therapy appointments" in again.memories.get_memory(private.id).content
        assert again.verify().ok
    finally:
        again.close()


def test_ben_cannot_write_the_private_rows_of_a_member_not_joined_yet(
    team: Team, pg_url: str
) -> None:
    """Carol is invited (her login exists, unclaimed) but has not joined: her `user=carol`
    scope is already hers on the server."""
    ana, _ben, _tmp, ben_url = team
    ana.team.invite_member("carol")
    assert _sql(pg_url, "SELECT claimed_at FROM team_logins WHERE member='carol'") == [(None,)]
    carol = {"org": "acme", "user": "carol"}
    with pytest.raises(errors.InsufficientPrivilege, match="row-level security"):
        _sql(
            ben_url,
            "INSERT INTO memories (id, kind, scope_json, status, confidence, created_at, "
            "updated_at, valid_from, sensitivity, owner, revision, source_trust, flags_json, "
            "index_refs_json, fingerprint) VALUES ('m_early', 'fact', %s, 'active', 1, %s, "
            "%s, %s, 'normal', 'carol', 1, 'user', '[]', '[]', 'f')",
            json.dumps(carol),
            to_iso(START),
            to_iso(START),
            to_iso(START),
        )
    # A name that is no member at all stays team content, as before.
    assert (
        _count(
            ben_url,
            "INSERT INTO memories (id, kind, scope_json, status, confidence, created_at, "
            "updated_at, valid_from, sensitivity, owner, revision, source_trust, flags_json, "
            "index_refs_json, fingerprint) VALUES ('m_nobody', 'fact', %s, 'active', 1, %s, "
            "%s, %s, 'normal', 'ben', 1, 'user', '[]', '[]', 'f')",
            json.dumps({"org": "acme", "user": "nobody"}),
            to_iso(START),
            to_iso(START),
            to_iso(START),
        )
        == 1
    )


def test_migration_14_takes_logins_disabled_before_it_out_of_the_group(
    team: Team, pg_url: str, tmp_path: Path
) -> None:
    """A store whose member was removed under migration 13 kept the login in the group;
    opening it with the owner's device runs migration 14, which takes it out."""
    ana, ben, _tmp, ben_url = team
    ben.close()
    ana.team.remove_member("ben")
    (login,) = _sql(pg_url, "SELECT login FROM team_logins WHERE member='ben'")[0]
    (group,) = _sql(pg_url, "SELECT mc_group()")[0]
    # As migration 13 left it: still in the group, and the store one version back.
    _sql(pg_url, f'GRANT "{group}" TO "{login}"')
    _sql(pg_url, "DELETE FROM schema_migrations WHERE version = 14")
    ana.close()
    again = _open(tmp_path / "ana-desk", "ana passphrase")
    try:
        assert again.status().schema_version == 14
    finally:
        again.close()
    assert _sql(pg_url, "SELECT pg_has_role(%s, %s, 'MEMBER')", login, group) == [(False,)]
    _sql(pg_url, f'ALTER ROLE "{login}" LOGIN')
    with pytest.raises(errors.InsufficientPrivilege, match="permission denied"):
        _sql(ben_url, "SELECT count(*) FROM memories")


def test_a_members_device_leaves_a_migration_to_the_owners_device(
    team: Team, pg_url: str, tmp_path: Path
) -> None:
    """Ben's device, with a newer version than the store, says who can upgrade it and
    changes nothing; after the owner's device opened it, ben's opens as usual."""
    ana, ben, _tmp, _ben_url = team
    ben.close()
    ana.close()
    _sql(pg_url, "DELETE FROM schema_migrations WHERE version = 14")
    with pytest.raises(StoreVersionError, match="only the store's owner device can upgrade"):
        _open(tmp_path / "ben-desk", "ben passphrase")
    assert _sql(pg_url, "SELECT max(version) FROM schema_migrations") == [(13,)]
    _open(tmp_path / "ana-desk", "ana passphrase").close()
    again = _open(tmp_path / "ben-desk", "ben passphrase")
    try:
        assert again.status().schema_version == 14
    finally:
        again.close()
