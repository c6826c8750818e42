"""The store_meta table's values: written now (`set_meta`) or at a write's commit
(`queue_meta`, the transaction's last value for a key wins)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Executable

from core.storage import schema as s

if TYPE_CHECKING:
    from core.storage.store import WriteTx


def set_meta(conn: Connection, key: str, value: str) -> None:
    """Insert or replace one store_meta value."""
    conn.execute(_upsert_meta_for(conn.dialect.name), {"key": key, "value": value})


def queue_meta(tx: WriteTx, key: str, value: str) -> None:
    """Insert or replace one store_meta value at commit (`WriteTx.at_commit`): the
    transaction's last value for `key` is written."""
    rows = [{"key": key, "value": value}]
    tx.at_commit(f"store_meta:{key}", _upsert_meta_for(tx.connection.dialect.name), rows)


def _upsert_meta(insert: Any) -> Executable:
    statement = insert(s.store_meta)
    done: Executable = statement.on_conflict_do_update(
        index_elements=[s.store_meta.c.key], set_={"value": statement.excluded.value}
    )
    return done


_UPSERT_META: dict[str, Executable] = {}


def _upsert_meta_for(dialect: str) -> Executable:
    """The meta upsert of this dialect, built on first use: importing PostgreSQL's dialect
    package (it loads every driver's module) cost a SQLite CLI call ~30 ms of start-up."""
    found = _UPSERT_META.get(dialect)
    if found is None:
        if dialect == "postgresql":
            from sqlalchemy.dialects import postgresql as module
        else:
            from sqlalchemy.dialects import sqlite as module  # type: ignore[no-redef]
        found = _UPSERT_META[dialect] = _upsert_meta(module.insert)
    return found
