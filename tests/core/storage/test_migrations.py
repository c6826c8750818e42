"""Schema migrations: old stores are upgraded with a backup first; newer stores are refused."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import inspect

from core import Event, ManualClock, MemoryService, NewEvent, StoreVersionError
from core.model.clock import to_iso
from core.storage import schema as s
from core.storage.engine import sqlite_engines
from core.storage.migrations import CURRENT_VERSION, MIGRATIONS, migrate
from core.storage.store import DB_FILE_NAME
from tests.conftest import PASSPHRASE, START

V1_TABLES = {
    "store_meta",
    "schema_migrations",
    "store_revision",
    "changes",
    "sessions",
    "events",
    "event_payloads",
}
V2_TABLES = {"memories", "memory_revisions", "memory_sources", "decisions", "settings"}
ALL_VERSIONS = list(range(1, CURRENT_VERSION + 1))
NOW = to_iso(START)


def ev(text: str, session: str = "s1") -> NewEvent:
    """A valid event."""
    return NewEvent(session=session, actor="user", trust="user", scope={"user": "u1"}, text=text)


def _tables(db: Path) -> set[str]:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    finally:
        conn.close()
    return {r[0] for r in rows}


def _versions(db: Path) -> list[int]:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT version FROM schema_migrations ORDER BY version").fetchall()
    finally:
        conn.close()
    return [r[0] for r in rows]


def _make_v1_store(data_dir: Path, clock: ManualClock) -> list[Event]:
    """A store as version 1 left it: events, no curated-memory tables, schema version 1."""
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, clock=clock) as svc:
        events = svc.events.append_events(
            [ev("first"), ev("第二个事件", "s2"), ev("third", "s1")]
        ).value
    later = _tables(data_dir / DB_FILE_NAME) - V1_TABLES
    assert later >= V2_TABLES
    conn = sqlite3.connect(data_dir / DB_FILE_NAME, isolation_level=None)
    try:
        for table in sorted(later):
            conn.execute(f"DROP TABLE {table}")
        conn.execute("DELETE FROM schema_migrations WHERE version > 1")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return events


def test_migrations_are_numbered_in_order() -> None:
    """Migrations run in ascending version order and the latest is the current version."""
    versions = [m.version for m in MIGRATIONS]
    assert versions == sorted(set(versions)) == list(range(1, CURRENT_VERSION + 1))


def test_migrate_to_a_lower_target_builds_an_old_schema(tmp_path: Path) -> None:
    """migrate(target=1) on an empty file creates only the version-1 tables, without a backup."""
    db = tmp_path / DB_FILE_NAME
    write, read = sqlite_engines(str(db))
    try:
        assert migrate(write, now=NOW, db_path=db, target=1) is None
        with write.connect() as conn:
            assert set(inspect(conn).get_table_names()) == V1_TABLES
    finally:
        write.dispose()
        read.dispose()
    assert _versions(db) == [1]


def test_migrate_from_v1_backs_up_first_and_is_idempotent(tmp_path: Path) -> None:
    """An existing store is copied aside before upgrading; a second run does nothing."""
    db = tmp_path / DB_FILE_NAME
    write, read = sqlite_engines(str(db))
    try:
        migrate(write, now=NOW, db_path=db, target=1)
        backup = migrate(write, now=NOW, db_path=db)
        assert backup is not None
        assert backup.name == "memory-center.v1-backup-20260302T090000.sqlite3"
        assert migrate(write, now=NOW, db_path=db) is None
    finally:
        write.dispose()
        read.dispose()
    assert _versions(db) == ALL_VERSIONS
    assert _tables(db) >= set(s.metadata.tables) | V2_TABLES
    assert _versions(backup) == [1]
    assert _tables(backup) == V1_TABLES


def test_opening_a_v1_store_upgrades_it_with_a_backup(data_dir: Path, clock: ManualClock) -> None:
    """A v1 store opens: backup next to the DB, schema at the current version, events intact."""
    events = _make_v1_store(data_dir, clock)
    assert _versions(data_dir / DB_FILE_NAME) == [1]
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, clock=clock) as svc:
        status = svc.status()
        assert status.schema_version == CURRENT_VERSION >= 2
        assert svc.events.list_events() == events
        report = svc.verify()
        assert report.ok and report.events_checked == 3
        svc.events.append_event(ev("after the upgrade"))
    backups = list(data_dir.glob("*.v1-backup-*.sqlite3"))
    assert [b.name for b in backups] == ["memory-center.v1-backup-20260302T090000.sqlite3"]
    assert _versions(backups[0]) == [1]
    assert _tables(data_dir / DB_FILE_NAME) >= set(s.metadata.tables) | V2_TABLES
    assert _versions(data_dir / DB_FILE_NAME) == ALL_VERSIONS


def test_backup_of_a_v1_store_holds_its_events(data_dir: Path, clock: ManualClock) -> None:
    """The pre-migration backup is a complete copy: it holds every event row."""
    events = _make_v1_store(data_dir, clock)
    MemoryService.open(data_dir, passphrase=PASSPHRASE, clock=clock).close()
    (backup,) = data_dir.glob("*.v1-backup-*.sqlite3")
    conn = sqlite3.connect(backup)
    try:
        ids = [r[0] for r in conn.execute("SELECT id FROM events ORDER BY position")]
        payloads = conn.execute("SELECT count(*) FROM event_payloads").fetchone()[0]
    finally:
        conn.close()
    assert ids == [e.id for e in events]
    assert payloads == 3


def test_current_store_reopens_without_backup(service: MemoryService, data_dir: Path) -> None:
    """A store already at the current version is not copied on open."""
    service.events.append_event(ev("x"))
    service.close()
    MemoryService.open(data_dir, passphrase=PASSPHRASE).close()
    assert list(data_dir.glob("*backup*")) == []


def test_store_from_a_newer_version_is_refused(service: MemoryService, data_dir: Path) -> None:
    """A store with a schema newer than this code is refused clearly and left untouched."""
    service.events.append_event(ev("written by the future"))
    service.close()
    conn = sqlite3.connect(data_dir / DB_FILE_NAME, isolation_level=None)
    try:
        conn.execute(
            "INSERT INTO schema_migrations (version, description, applied_at) VALUES (?, ?, ?)",
            (99, "from the future", NOW),
        )
    finally:
        conn.close()
    with pytest.raises(StoreVersionError) as info:
        MemoryService.open(data_dir, passphrase=PASSPHRASE)
    message = info.value.message
    assert "99" in message and str(CURRENT_VERSION) in message
    assert "upgrade" in message.lower()
    assert info.value.kind == "store_too_new"
    assert (data_dir / DB_FILE_NAME).exists()
    assert list(data_dir.glob("*backup*")) == []
    assert _versions(data_dir / DB_FILE_NAME) == [*ALL_VERSIONS, 99]
