"""Leaving no old copy of purged rows in the database's own files (R19).

SQLite: fold the WAL into the database and truncate it (secure_delete has zeroed freed
pages). PostgreSQL: rewrite the tables that hold content (VACUUM FULL), so dead row versions
leave the table data; the server's WAL and backups keep only ciphertext (see
ARCHITECTURE.md). The store calls this under its write lock.
"""

from __future__ import annotations

from sqlalchemy import Engine

from core.storage import schema as s
from core.storage.engine import translated

# The tables that hold content, rewritten on a server after a purge.
CONTENT_TABLES = (
    s.memory_revisions,
    s.decisions,
    s.snapshots,
    s.event_payloads,
    s.tombstones,
    s.memories,
)


def leave_no_old_copies(engine: Engine) -> None:
    """Checkpoint a SQLite file, or vacuum the content tables on a server."""
    if engine.dialect.name == "postgresql":
        _vacuum_content_tables(engine)
        return
    with translated("checkpoint"):
        raw = engine.raw_connection()
        try:
            cursor = raw.cursor()
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            cursor.close()
        finally:
            raw.close()


def _vacuum_content_tables(engine: Engine) -> None:
    with translated("vacuum after purge"):
        raw = engine.raw_connection()
        try:
            raw.dbapi_connection.autocommit = True  # type: ignore[union-attr]
            cursor = raw.cursor()
            for table in CONTENT_TABLES:
                cursor.execute(f"VACUUM FULL {table.name}")
            cursor.close()
        finally:
            raw.close()
