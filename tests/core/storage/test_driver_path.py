"""Writes sent straight to psycopg on PostgreSQL, past SQLAlchemy's statement machinery (#12).

Statements whose SQL and parameters need nothing from SQLAlchemy at run time go to the
driver; anything else (a bind processor, a Python-side column default, rows with other
keys, someone listening for statements) keeps SQLAlchemy's path. Errors look the same on
both paths.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import (
    Column,
    Integer,
    MetaData,
    Numeric,
    String,
    Table,
    bindparam,
    event,
    select,
    update,
)

from core import ManualClock, MemoryService, NewEvent
from core.errors import IntegrityError
from core.storage import schema as s
from core.storage.driver_path import driver_form, insert_into
from tests.support.pg_fixtures import PG_PASSPHRASE


@pytest.fixture
def pg_service(pg_url: str, data_dir: Path, clock: ManualClock) -> Iterator[MemoryService]:
    service = MemoryService.open(
        data_dir, passphrase=PG_PASSPHRASE, clock=clock, prefer_keyring=False, database_url=pg_url
    )
    yield service
    service.close()


def _event(i: int) -> NewEvent:
    return NewEvent(
        session="s", actor="tool", trust="tool_verified", scope={"org": "acme"}, text=f"ev {i}"
    )


def test_plain_statements_compile_once_for_the_driver_others_keep_sqlalchemy(
    pg_service: MemoryService,
) -> None:
    with pg_service._store.write_engine.connect() as conn:
        change = {"revision": 1, "ts": "t", "kinds": "[]", "event_ids": "[]", "memory_ids": "[]"}
        form = driver_form(conn, insert_into(s.changes), [change])
        assert form is not None
        sql, fixed = form
        assert sql.startswith("INSERT INTO changes (revision, ts, kinds, event_ids, memory_ids)")
        assert fixed == {}
        # A literal in the statement travels with it.
        bump = update(s.store_revision).where(s.store_revision.c.id == 1)
        bump = bump.values(revision=bindparam("new_revision"))
        form = driver_form(conn, bump, [{"new_revision": 7}])
        assert form is not None and 1 in form[1].values()
        # Bytes have a bind processor on this dialect: SQLAlchemy sends them.
        row = {"event_id": "e", "ciphertext": b"\x00", "redacted_at": None}
        assert driver_form(conn, insert_into(s.event_payloads), [row]) is None
        # A column default computed in Python at execution: SQLAlchemy.
        table = Table(
            "t",
            MetaData(),
            Column("id", String, primary_key=True),
            Column("n", Integer, default=lambda: 5),
        )
        assert driver_form(conn, table.insert(), [{"id": "a"}]) is None
        # A scalar column default is computed at execution too (sessions.event_count).
        assert driver_form(conn, insert_into(s.sessions), [{"id": "a", "created_at": "x"}]) is None
        # A result SQLAlchemy converts (here a Numeric column): SQLAlchemy reads it.
        amounts = Table("amounts", MetaData(), Column("id", String), Column("n", Numeric))
        query = select(amounts.c.n).where(amounts.c.id == bindparam("id"))
        assert driver_form(conn, query, [{"id": "a"}]) is None
        plain = select(amounts.c.id).where(amounts.c.id == bindparam("id"))
        assert driver_form(conn, plain, [{"id": "a"}]) is not None
        # Rows with other keys: SQLAlchemy.
        assert driver_form(conn, insert_into(s.changes), [change, {"revision": 2}]) is None


def test_appends_through_the_driver_verify_and_read_back(pg_service: MemoryService) -> None:
    ids = [pg_service.events.append_event(_event(i)).value.id for i in range(30)]
    listed = {e.id: e for e in pg_service.events.list_events(limit=100)}
    assert [listed[i].text for i in ids] == [f"ev {i}" for i in range(30)]
    info = {x.id: x for x in pg_service.events.list_sessions()}["s"]
    assert info.event_count == 30
    assert pg_service.verify().ok


def test_a_listener_for_statements_sees_every_one(pg_service: MemoryService) -> None:
    pg_service.events.append_event(_event(0))
    seen: list[str] = []
    engine = pg_service._store.write_engine

    @event.listens_for(engine, "before_cursor_execute")
    def watch(*args: Any) -> None:
        seen.append(str(args[2]).split()[0].upper())

    try:
        pg_service.events.append_event(_event(1))
    finally:
        event.remove(engine, "before_cursor_execute", watch)
    assert "BEGIN;" in seen  # the lock
    assert seen.count("INSERT") >= 3 and "UPDATE" in seen  # the queued writes


def test_a_refused_write_on_the_driver_path_is_our_error_and_changes_nothing(
    pg_service: MemoryService,
) -> None:
    pg_service.events.append_event(_event(0))
    before = pg_service.status().event_count
    store = pg_service._store
    taken = {"revision": 1, "ts": "t", "kinds": "[]", "event_ids": "[]", "memory_ids": "[]"}
    with (
        pytest.raises(IntegrityError, match="refused"),
        store.write("a write the database refuses") as tx,
    ):
        tx.later_rows(s.changes, [taken])  # revision 1 is recorded already
    assert pg_service.status().event_count == before
    assert pg_service.verify().ok
    pg_service.events.append_event(_event(1))  # the connection is usable again
    assert pg_service.verify().ok
