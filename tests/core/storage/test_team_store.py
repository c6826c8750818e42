"""A store on PostgreSQL shared by several devices: invitations, interleaved writers, one chain.

Every "device" is its own data directory with its own key file, as on separate machines;
the server is a real, throwaway PostgreSQL (R3, R19, R21, R24, R30).
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import text

from core import (
    InvalidInputError,
    InvalidStateError,
    KeyUnavailableError,
    ManualClock,
    MemoryService,
    NotFoundError,
    ResourceUnavailableError,
    WrongPassphraseError,
)
from core.crypto.codec import Codec
from core.crypto.keys import KEY_FILE_NAME, PassphraseKeyStore
from core.storage.memories import content_aad
from tests.conftest import PASSPHRASE, START
from tests.support.postgres import PostgresServer

REPO_ROOT = Path(__file__).resolve().parents[3]
SCOPE = {"org": "acme", "project": "atlas"}
N = 150
TIMEOUT = 240

WRITER = """
import sys, time
from pathlib import Path
from core import MemoryService, NewEvent

data_dir, name, n, sync = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
with MemoryService.open(data_dir, passphrase=sys.argv[5], prefer_keyring=False) as svc:
    (sync / f"ready-{name}").touch()
    while not (sync / "go").exists():
        time.sleep(0.005)
    for i in range(n):
        svc.append_event(NewEvent(session=name, actor="tool", trust="tool_verified",
                                  scope={"org": "acme"}, text=f"{name} #{i + 1}"))
    svc.remember({"org": "acme", "project": "atlas"}, f"Remember: {name} owns release step {n}")
print("done")
"""


def _open(data_dir: Path, url: str | None = None, passphrase: str = PASSPHRASE) -> MemoryService:
    return MemoryService.open(
        data_dir,
        passphrase=passphrase,
        clock=ManualClock(START),
        prefer_keyring=False,
        database_url=url,
    )


def _join(svc: MemoryService, data_dir: Path, member: str, passphrase: str) -> MemoryService:
    raw, code = svc.invite_member(member).value
    return MemoryService.join(data_dir, raw, code, passphrase=passphrase, prefer_keyring=False)


def test_invitation_lets_a_second_device_read_and_write(pg_url: str, tmp_path: Path) -> None:
    first = _open(tmp_path / "desktop", pg_url)
    try:
        first.remember(SCOPE, "Remember: the atlas deploy window is Tuesday 14:00")
        # Without an invitation the other machine holds no key: a clear error, nothing kept.
        with pytest.raises(KeyUnavailableError, match="invitation"):
            _open(tmp_path / "laptop", pg_url, passphrase="laptop passphrase")
        laptop = _join(first, tmp_path / "laptop", "kim-laptop", "laptop passphrase")
        try:
            hits = laptop.search_memory(SCOPE, "when can we deploy atlas")
            assert hits and "Tuesday 14:00" in hits[0].content
            laptop.remember(SCOPE, "Remember: atlas release notes live in docs/releases")
        finally:
            laptop.close()
        assert any("docs/releases" in h.content for h in first.search_memory(SCOPE, "notes"))
        (member,) = first.members()
        assert member.name == "kim-laptop" and member.devices == 1 and member.joined_at
        assert first.verify().ok
    finally:
        first.close()
    # The joined device reopens with only its directory: the server URL is remembered.
    again = MemoryService.open(tmp_path / "laptop", passphrase="laptop passphrase")
    try:
        assert again.status().store_id and again.status().path.startswith("postgresql://")
    finally:
        again.close()


def test_bad_invitations_are_refused_and_leave_nothing(pg_url: str, tmp_path: Path) -> None:
    first = _open(tmp_path / "desktop", pg_url)
    try:
        raw, code = first.invite_member("guest").value
    finally:
        first.close()
    target = tmp_path / "guest"
    wrong = (
        "AAAAA-BBBBB-CCCCC-DDDDD"
        if code != "AAAAA-BBBBB-CCCCC-DDDDD"
        else "ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ"
    )
    with pytest.raises(WrongPassphraseError):
        MemoryService.join(target, raw, wrong, passphrase="guest passphrase", prefer_keyring=False)
    for bad in (b"", b"{}", b"[" * 100_000, raw[:-20], b"\xff\xfe"):
        with pytest.raises(InvalidInputError):
            MemoryService.join(target, bad, code, passphrase="guest passphrase")
    assert not target.exists()
    with pytest.raises(ResourceUnavailableError, match="already holds a store"):
        MemoryService.join(tmp_path / "desktop", raw, code, passphrase="x" * 12)


def test_invitations_need_a_server_store(service: MemoryService) -> None:
    with pytest.raises(InvalidStateError, match="database server"):
        service.invite_member("kim")


def test_append_only_holds_on_the_server(pg_url: str, tmp_path: Path) -> None:
    svc = _open(tmp_path / "d", pg_url)
    try:
        event = svc.remember(SCOPE, "Remember: the atlas budget is 12k").value
        assert event.record is not None
        import psycopg

        with psycopg.connect(pg_url) as conn:
            for sql in (
                "UPDATE events SET kind = 'x'",
                "DELETE FROM events",
                "DELETE FROM event_payloads",
                "UPDATE event_payloads SET event_id = 'evt_other'",
            ):
                with pytest.raises(psycopg.Error, match="append-only"):
                    conn.execute(sql)
                conn.rollback()
    finally:
        svc.close()


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO_ROOT)
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    env.pop("MEMORY_CENTER_PASSPHRASE", None)
    env.pop("MEMORY_CENTER_DATABASE_URL", None)
    return env


@pytest.mark.slow
def test_three_devices_interleave_and_one_deletion_reaches_all(
    pg_server: PostgresServer, tmp_path: Path
) -> None:
    url = pg_server.database()
    owner = _open(tmp_path / "owner", url)
    devices = {"desk": "desk passphrase", "laptop": "laptop passphrase", "ci-box": "ci passphrase"}
    for name, passphrase in devices.items():
        _join(owner, tmp_path / name, name, passphrase).close()
    owner.close()
    sync = tmp_path / "sync"
    sync.mkdir()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(tmp_path / name), name, str(N), str(sync), pw],
            env=_env(),
            cwd=REPO_ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, pw in devices.items()
    ]
    deadline = time.monotonic() + TIMEOUT
    while len(list(sync.glob("ready-*"))) < len(devices):
        assert time.monotonic() < deadline, "writers did not start"
        assert all(p.poll() is None for p in procs), [p.communicate() for p in procs]
        time.sleep(0.02)
    (sync / "go").touch()
    for proc in procs:
        _out, err = proc.communicate(timeout=TIMEOUT)
        assert proc.returncode == 0, err
    views = {name: _open(tmp_path / name, passphrase=pw) for name, pw in devices.items()}
    try:
        desk = views["desk"]
        events = desk.list_events(limit=10_000)
        written = [e for e in events if e.actor.value == "tool"]
        assert len(written) == N * len(devices)
        for name in devices:
            mine = [e.text for e in written if e.session_id == name]
            assert mine == [f"{name} #{i}" for i in range(1, N + 1)]
        positions = [e.position for e in events]
        assert positions == sorted(positions) == list(range(1, len(events) + 1))
        report = desk.verify()
        assert report.ok, report.first_failure
        # Interleaved: no writer had the log to itself from start to end.
        order = [e.session_id for e in written]
        assert sum(1 for a, b in itertools.pairwise(order) if a != b) > len(devices)
        target = next(
            h
            for h in desk.search_memory(SCOPE, "who owns the release step")
            if "laptop" in h.content
        )
        for view in views.values():
            assert "laptop owns" in view.inject(SCOPE, "release step owner", 600).value.text
        desk.delete(target.memory_id, reason="wrong owner", purge=True)
        for name, view in views.items():
            block = view.inject(SCOPE, "release step owner", 600).value.text
            assert "laptop owns" not in block, name
            assert all(h.memory_id != target.memory_id for h in view.search_memory(SCOPE, "owner"))
    finally:
        for view in views.values():
            view.close()


def test_purged_ciphertext_leaves_the_table_files(
    pg_server: PostgresServer, tmp_path: Path
) -> None:
    """After a purge, VACUUM FULL rewrites the content tables: the old ciphertext is gone.

    What is checked: the bytes of the purged revision's ciphertext do not occur in the data
    files of any table of the database (heap and TOAST). Not checked: the server's WAL and
    base backups, which keep old pages (ciphertext only; see ARCHITECTURE.md).
    """
    url = pg_server.database()
    svc = _open(tmp_path / "d", url)
    try:
        outcome = svc.remember(SCOPE, "Remember: the vault combination is kept by Ana").value
        assert outcome.record is not None
        with svc._store.read("peek") as conn:
            sealed = bytes(
                conn.execute(
                    text("SELECT content FROM memory_revisions WHERE memory_id = :m"),
                    {"m": outcome.record.id},
                ).scalar_one()
            )
        marker = sealed[-24:]  # the GCM tag and the end of the ciphertext
        assert _in_table_files(pg_server, url, marker)
        svc.delete(outcome.record.id, reason="compliance", purge=True)
        assert not _in_table_files(pg_server, url, marker)
    finally:
        svc.close()


def _in_table_files(server: PostgresServer, url: str, needle: bytes) -> bool:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
        paths = [
            row[0]
            for row in conn.execute(
                "SELECT pg_relation_filepath(c.oid) FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname IN ('public', 'pg_toast') AND c.relkind IN ('r', 't', 'i')"
            )
            if row[0]
        ]
    found = False
    for rel in paths:
        for segment in sorted(server.data.glob(rel + "*")):
            if needle in segment.read_bytes():
                found = True
    return found


def test_removing_a_member_rotates_the_key_past_their_devices(pg_url: str, tmp_path: Path) -> None:
    owner = _open(tmp_path / "owner", pg_url)
    desk = _join(owner, tmp_path / "desk", "kim", "desk passphrase")
    _join(owner, tmp_path / "laptop", "lee", "laptop passphrase").close()
    laptop_keys = PassphraseKeyStore(
        tmp_path / "laptop" / KEY_FILE_NAME, "laptop passphrase"
    ).load()
    try:
        before = owner.remember(SCOPE, "Remember: atlas on-call rota is in the wiki").value
        assert before.record is not None
        report = owner.remove_member("lee").value
        assert report.new_key_id not in laptop_keys.keys
        after = owner.remember(SCOPE, "Remember: the new atlas vault path is /ops/v2").value
        assert after.record is not None
        # A device that stayed open through the rotation follows it (its envelope).
        assert any("/ops/v2" in h.content for h in desk.search_memory(SCOPE, "vault path"))
        # The removed device can no longer open the store ...
        with pytest.raises(KeyUnavailableError, match="removed"):
            _open(tmp_path / "laptop", passphrase="laptop passphrase")
        # ... and its old key set opens neither new content nor re-sealed old content.
        with owner._store.read("peek") as conn:
            blobs = conn.execute(
                text("SELECT memory_id, revision, content FROM memory_revisions")
            ).all()
        old_codec = Codec(laptop_keys)
        for memory_id, revision, blob in blobs:
            with pytest.raises(KeyUnavailableError):
                old_codec.open_text(bytes(blob), content_aad(memory_id, revision))
        (lee,) = [m for m in owner.members() if m.name == "lee"]
        assert lee.removed_at is not None
        with pytest.raises(NotFoundError):
            owner.remove_member("lee")
        assert owner.verify().ok
    finally:
        desk.close()
        owner.close()
