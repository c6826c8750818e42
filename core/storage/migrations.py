"""Registered, transactional, recorded schema migrations.

Each migration has a version and runs in one transaction that also records it in
`schema_migrations` and bumps `store_meta.schema_version`. Before any migration of an
existing store the file is copied aside; a store newer than this code is refused.

Rule for contributors: a migration creates only the tables it introduces; later changes to
a table come as their own migration (ALTER), never by editing an old one.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Connection, Engine, inspect, select

from core.errors import StoreVersionError
from core.storage import logins
from core.storage import schema as s

SQLITE_APPEND_ONLY = [
    """CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
       BEGIN SELECT RAISE(ABORT, 'events are append-only'); END""",
    """CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
       BEGIN SELECT RAISE(ABORT, 'events are append-only'); END""",
    """CREATE TRIGGER IF NOT EXISTS event_payloads_no_delete BEFORE DELETE ON event_payloads
       BEGIN SELECT RAISE(ABORT, 'event payloads are never deleted'); END""",
    """CREATE TRIGGER IF NOT EXISTS event_payloads_fixed_id BEFORE UPDATE OF event_id
       ON event_payloads BEGIN SELECT RAISE(ABORT, 'events are append-only'); END""",
]

POSTGRES_APPEND_ONLY = [
    """CREATE OR REPLACE FUNCTION mc_refuse_change() RETURNS trigger AS $$
       BEGIN RAISE EXCEPTION 'events are append-only'; END $$ LANGUAGE plpgsql""",
    """CREATE TRIGGER events_no_change BEFORE UPDATE OR DELETE ON events
       FOR EACH ROW EXECUTE FUNCTION mc_refuse_change()""",
    """CREATE TRIGGER event_payloads_no_delete BEFORE DELETE ON event_payloads
       FOR EACH ROW EXECUTE FUNCTION mc_refuse_change()""",
    """CREATE TRIGGER event_payloads_fixed_id BEFORE UPDATE OF event_id ON event_payloads
       FOR EACH ROW EXECUTE FUNCTION mc_refuse_change()""",
]


POSTGRES_NOTIFY = [
    """CREATE OR REPLACE FUNCTION mc_notify_revision() RETURNS trigger AS $$
       BEGIN
         PERFORM pg_notify(
           'memory_center_' || COALESCE(
             (SELECT regexp_replace(lower(value), '[^a-z0-9]', '', 'g') FROM store_meta
              WHERE key = 'store_id'), ''),
           NEW.revision::text);
         RETURN NEW;
       END $$ LANGUAGE plpgsql""",
    """CREATE TRIGGER store_revision_notify AFTER UPDATE ON store_revision
       FOR EACH ROW EXECUTE FUNCTION mc_notify_revision()""",
]


@dataclass(frozen=True)
class Migration:
    """One schema step."""

    version: int
    description: str
    apply: Callable[[Connection], None]


def _v1_event_log(conn: Connection) -> None:
    for table in (
        s.store_meta,
        s.schema_migrations,
        s.store_revision,
        s.changes,
        s.sessions,
        s.events,
        s.event_payloads,
    ):
        table.create(conn, checkfirst=True)
    statements = POSTGRES_APPEND_ONLY if conn.dialect.name == "postgresql" else SQLITE_APPEND_ONLY
    for ddl in statements:
        conn.exec_driver_sql(ddl)
    conn.execute(s.store_revision.insert().values(id=1, revision=0))


def _v2_curated_memory(conn: Connection) -> None:
    for table in (
        s.memories,
        s.memory_revisions,
        s.memory_sources,
        s.decisions,
        s.settings,
        s.memory_exclusions,
        s.snapshots,
        s.snapshot_items,
        s.tombstones,
        s.deletion_fences,
    ):
        table.create(conn, checkfirst=True)


def _v3_scope_index(conn: Connection) -> None:
    s.memory_scopes.create(conn, checkfirst=True)
    s.ix_memories_status_expires.create(conn, checkfirst=True)
    rows = conn.execute(select(s.memories.c.id, s.memories.c.scope_json)).all()
    pairs = [
        {"memory_id": mid, "key": key, "value": value}
        for mid, scope_json in rows
        for key, value in json.loads(str(scope_json)).items()
    ]
    if pairs:
        conn.execute(s.memory_scopes.insert(), pairs)


def _v4_record_binding(conn: Connection) -> None:
    # Stores created at version 2 with this code already have the column (create() uses
    # the current table definition); older stores get it by ALTER. The MACs themselves need
    # the key, so the opener fills them once the key set is unlocked (opener.py).
    have = {c["name"] for c in inspect(conn).get_columns("memories")}
    if "binding" not in have:
        conn.exec_driver_sql("ALTER TABLE memories ADD COLUMN binding VARCHAR(64)")


def _v5_capture_cursors(conn: Connection) -> None:
    # Self-contained on purpose (its own DDL, not schema.py's table object), so the
    # migration stays what it was when later migrations change the table.
    conn.exec_driver_sql(
        """CREATE TABLE IF NOT EXISTS capture_cursors (
               key VARCHAR(200) PRIMARY KEY,
               agent VARCHAR(64) NOT NULL,
               position INTEGER NOT NULL,
               state_json TEXT NOT NULL,
               events INTEGER NOT NULL,
               updated_at VARCHAR(40) NOT NULL)"""
    )


def _v6_members_and_devices(conn: Connection) -> None:
    s.members.create(conn, checkfirst=True)
    s.devices.create(conn, checkfirst=True)


def _v7_fence_features(conn: Connection) -> None:
    s.fence_features.create(conn, checkfirst=True)


def _v8_personal_keys(conn: Connection) -> None:
    s.personal_keys.create(conn, checkfirst=True)


def _v9_spool_applied(conn: Connection) -> None:
    # Writes spooled on a machine while the server was away, once applied (R23): replay
    # records each id in the same transaction as the write, so it applies exactly once.
    # Self-contained DDL (numbered 8 on its branch, 9 after the merge).
    conn.exec_driver_sql(
        """CREATE TABLE IF NOT EXISTS spool_applied (
               id VARCHAR(64) PRIMARY KEY,
               device VARCHAR(64) NOT NULL,
               operation VARCHAR(32) NOT NULL,
               spooled_at VARCHAR(40) NOT NULL,
               applied_at VARCHAR(40) NOT NULL,
               outcome VARCHAR(64) NOT NULL)"""
    )
    if conn.dialect.name == "postgresql":
        # Every revision bump wakes the store's listeners at commit (LISTEN/NOTIFY), from
        # inside the server: no extra round trip per write.
        for ddl in POSTGRES_NOTIFY:
            conn.exec_driver_sql(ddl)


def _v10_revision_speaker(conn: Connection) -> None:
    # Stores created with this code already have the column (create() uses the current
    # table); older ones get it by ALTER. Nullable: no speaker, or purged.
    have = {c["name"] for c in inspect(conn).get_columns("memory_revisions")}
    if "speaker" not in have:
        blob = "BYTEA" if conn.dialect.name == "postgresql" else "BLOB"
        conn.exec_driver_sql(f"ALTER TABLE memory_revisions ADD COLUMN speaker {blob}")


def _v11_team_records(conn: Connection) -> None:
    s.team_records.create(conn, checkfirst=True)


def _v12_team_logins(conn: Connection) -> None:
    # PostgreSQL only: a login of one's own per device and row-level security (#41).
    logins.install(conn)


def _v13_transition_journal(conn: Connection) -> None:
    s.transitions.create(conn, checkfirst=True)
    # On PostgreSQL, its rows are a member's like the decisions of the memory they are
    # about; they are only ever added (numbered 12 on its branch, 13 after the merge).
    logins.install_journal(conn)


def _v14_cheaper_policies(conn: Connection) -> None:
    # PostgreSQL only: policies ask for group membership instead of a table look-up, and a
    # member's private rows are protected from the invitation on (#41).
    logins.refresh(conn)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "event log, sessions, revision counter and change feed", _v1_event_log),
    Migration(
        2, "curated memory, decisions, settings, snapshots, tombstones, fences", _v2_curated_memory
    ),
    Migration(3, "indexes for scope and effective-status filters", _v3_scope_index),
    Migration(4, "keyed binding of memory metadata", _v4_record_binding),
    Migration(
        5, "capture cursors: resume positions of live transcript capture", _v5_capture_cursors
    ),
    Migration(6, "members and devices of a store shared through a server", _v6_members_and_devices),
    Migration(7, "deletion fence features: keyed terms and a sealed embedding", _v7_fence_features),
    Migration(
        8, "personal keys of team members, sealed to each of their devices", _v8_personal_keys
    ),
    Migration(9, "ids of spooled writes applied after the server returned", _v9_spool_applied),
    Migration(10, "who said a memory, sealed beside its content", _v10_revision_speaker),
    Migration(11, "signed membership records of team stores", _v11_team_records),
    Migration(
        12, "a database login per device and row-level security on team stores", _v12_team_logins
    ),
    Migration(
        13, "the transition journal: each change's before and after", _v13_transition_journal
    ),
    Migration(
        14,
        "team stores: cheaper row-level security checks, private rows guarded from invitation",
        _v14_cheaper_policies,
    ),
)
CURRENT_VERSION = MIGRATIONS[-1].version


def current_version(conn: Connection) -> int:
    """The schema version recorded in the store (0 for an empty database)."""
    if not inspect(conn).has_table("schema_migrations"):
        return 0
    versions: list[int] = list(conn.execute(select(s.schema_migrations.c.version)).scalars())
    return max(versions, default=0)


def migrate(
    engine: Engine, *, now: str, db_path: Path | None, target: int = CURRENT_VERSION
) -> Path | None:
    """Bring the store up to `target`, backing up an existing store first.

    Args:
        engine: the write engine.
        now: the timestamp recorded with each applied migration.
        db_path: the SQLite file to copy before migrating (None: no file backup possible).
        target: the version to reach (tests use lower targets to build old stores).

    Returns:
        The backup file written, if any.

    Raises:
        StoreVersionError: the store is newer than this code, or (PostgreSQL) older and
            this login does not own its tables, so cannot migrate it.
    """
    with engine.connect() as conn:
        found = current_version(conn)
    if found > CURRENT_VERSION:
        raise StoreVersionError(
            f"this store has schema version {found}, but this Memory Center only knows up to "
            f"{CURRENT_VERSION}: upgrade Memory Center to open it"
        )
    if found >= target:
        return None
    if found > 0 and engine.dialect.name == "postgresql":
        with engine.connect() as conn:
            if not logins.owns_tables(conn):
                raise StoreVersionError(
                    f"this store has schema version {found} and this Memory Center needs "
                    f"{target}: only the store's owner device can upgrade it (its database "
                    "login owns the tables). Open the store once on the owner's device with "
                    "this version, or keep the earlier version on this device until then"
                )
    backup = _backup(db_path, found, now) if found > 0 and db_path is not None else None
    for step in MIGRATIONS:
        if found < step.version <= target:
            with engine.begin() as conn:
                # Another process (another machine, on PostgreSQL) may have applied this
                # step while we waited for the write lock that BEGIN takes.
                if current_version(conn) >= step.version:
                    continue
                step.apply(conn)
                conn.execute(
                    s.schema_migrations.insert().values(
                        version=step.version, description=step.description, applied_at=now
                    )
                )
    return backup


def _backup(db_path: Path, version: int, now: str) -> Path:
    stamp = now.replace(":", "").replace("-", "").split(".")[0]
    target = db_path.with_name(f"{db_path.stem}.v{version}-backup-{stamp}{db_path.suffix}")
    src = sqlite3.connect(db_path)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()
    return target
