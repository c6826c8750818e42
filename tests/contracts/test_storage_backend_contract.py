"""Contract of the storage backend: what the store needs from a database engine.

`BACKENDS` maps a name to a function that creates an empty database and returns its write
and read engines (and the file, for file databases): a SQLite file, and a scratch database
on the run's throwaway PostgreSQL server. Every test below runs against each.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select, text

from core.crypto.codec import Codec
from core.crypto.keys import KeySet
from core.errors import IntegrityError
from core.model import ChangeKind, ManualClock, NewEvent
from core.model.validate import ValidEvent, new_event
from core.storage import event_log
from core.storage import schema as s
from core.storage.engine import postgres_engines, sqlite_engines
from core.storage.meta import set_meta
from core.storage.migrations import CURRENT_VERSION, current_version, migrate
from core.storage.store import DB_FILE_NAME, Store

Engines = tuple[Engine, Engine, Path | None]
START = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)


def _sqlite(directory: Path) -> Engines:
    path = directory / DB_FILE_NAME
    write, read = sqlite_engines(str(path))
    return write, read, path


def _postgresql(request: pytest.FixtureRequest) -> Engines:
    # A fresh database on the run's throwaway server (skips, or fails in CI, without one).
    url = request.getfixturevalue("pg_url")
    write, read = postgres_engines(url)
    return write, read, None


BACKENDS: dict[str, Callable[[pytest.FixtureRequest], Engines]] = {
    "sqlite": lambda request: _sqlite(request.getfixturevalue("tmp_path")),
    "postgresql": _postgresql,
}


@pytest.fixture(params=list(BACKENDS), ids=list(BACKENDS))
def engines(request: pytest.FixtureRequest) -> Iterator[Engines]:
    write, read, path = BACKENDS[request.param](request)
    yield write, read, path
    write.dispose()
    read.dispose()


@pytest.fixture
def store(engines: Engines) -> Store:
    write, read, path = engines
    migrate(write, now=START.isoformat(), db_path=path)
    return Store(write, read, Codec(KeySet.generate()), ManualClock(START), path)


def _events(*texts: str, session: str = "s1") -> list[ValidEvent]:
    return [
        new_event(
            NewEvent(session=session, actor="user", trust="user", scope={"user": "u"}, text=t)
        )
        for t in texts
    ]


def _append(store: Store, *texts: str, session: str = "s1") -> list[str]:
    with store.write("append") as tx:
        return [e.id for e in event_log.append(tx, _events(*texts, session=session))]


def _texts(store: Store, **kwargs: object) -> list[str]:
    with store.read("list") as conn:
        return [e.text for e in event_log.list_events(conn, store.codec, **kwargs)]  # type: ignore[arg-type]


def test_a_new_database_migrates_to_the_current_schema_once(store: Store, engines: Engines) -> None:
    write, _read, path = engines
    with write.connect() as conn:
        assert current_version(conn) == CURRENT_VERSION
    assert migrate(write, now=START.isoformat(), db_path=path) is None
    with write.connect() as conn:
        versions = list(conn.execute(select(s.schema_migrations.c.version)).scalars())
    assert sorted(versions) == list(range(1, CURRENT_VERSION + 1))


def test_events_come_back_in_order_and_decrypted(store: Store) -> None:
    _append(store, "first", "第二", "third")
    _append(store, "in another session", session="s2")
    assert _texts(store) == ["first", "第二", "third", "in another session"]
    assert _texts(store, session="s1", newest_first=True) == ["third", "第二", "first"]
    assert _texts(store, after_position=1, limit=2) == ["第二", "third"]
    with store.read("sessions") as conn:
        counts = {i.id: i.event_count for i in event_log.list_sessions(conn)}
    assert counts == {"s1": 3, "s2": 1}


def test_payloads_are_stored_as_ciphertext(store: Store) -> None:
    _append(store, "the spare key is under the blue pot")
    with store.read("raw") as conn:
        blobs = list(conn.execute(select(s.event_payloads.c.ciphertext)).scalars())
    assert blobs and all(b"blue pot" not in bytes(b) for b in blobs)


def test_a_write_that_changed_something_bumps_the_revision_once(store: Store) -> None:
    before = store.revision()
    ids = _append(store, "one", "two")
    assert store.revision() == before + 1
    [change] = store.changes_since(before)
    assert change.revision == before + 1
    assert {ChangeKind.EVENTS, ChangeKind.SESSIONS} <= change.kinds
    assert list(change.event_ids) == ids
    with store.write("nothing") as tx:
        assert tx.conn.execute(select(s.events.c.id)).first() is not None
    assert store.revision() == before + 1


def test_a_failed_write_leaves_no_trace(store: Store) -> None:
    _append(store, "kept")
    before = store.revision()
    with pytest.raises(RuntimeError, match="boom"), store.write("append then fail") as tx:
        event_log.append(tx, _events("lost"))
        raise RuntimeError("boom")
    assert store.revision() == before
    assert _texts(store) == ["kept"]
    assert _append(store, "next")  # the chain continues from the kept head


@pytest.mark.parametrize(
    "statement",
    ["UPDATE events SET actor = 'tool'", "DELETE FROM events", "DELETE FROM event_payloads"],
    ids=["update-event", "delete-event", "delete-payload"],
)
def test_the_log_is_append_only_in_the_database(store: Store, statement: str) -> None:
    _append(store, "written once")
    with pytest.raises(IntegrityError, match=r"append-only|never deleted"):  # noqa: SIM117
        with store.write("tamper") as tx:
            tx.conn.execute(text(statement))
    assert _texts(store) == ["written once"]


def test_a_read_sees_one_snapshot_while_others_write(store: Store) -> None:
    _append(store, "before")
    with store.read("long read") as conn:
        first = event_log.count_events(conn)
        _append(store, "during")
        assert event_log.count_events(conn) == first
    assert _texts(store) == ["before", "during"]


def test_concurrent_writers_never_fork_the_chain(store: Store) -> None:
    errors: list[BaseException] = []

    def writer(name: str) -> None:
        try:
            for i in range(15):
                _append(store, f"{name} {i}", session=name)
        except BaseException as exc:  # reported below, not swallowed
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with store.read("verify") as conn:
        report = event_log.verify(conn, store.codec)
        positions = list(conn.execute(select(s.events.c.position).order_by("position")).scalars())
    assert report.ok and report.events_checked == 30
    assert positions == list(range(1, 31))


def test_store_metadata_round_trips(store: Store) -> None:
    with store.write("meta") as tx:
        set_meta(tx.conn, "contract", "値 value")
    assert store.meta("contract") == "値 value"
    assert store.meta("absent") is None


# --- queued writes (`WriteTx.later`, #12) ----------------------------------------------
# On PostgreSQL the queue goes to the server in one pipeline together with the COMMIT; what
# must hold on both backends: a read inside the transaction sees every queued write, a
# failure rolls all of it back, a queued write the database refuses is reported as that and
# leaves nothing behind, and the next transaction works.


def _meta_rows(store: Store, key: str) -> int:
    with store.read("count") as conn:
        return int(
            conn.execute(
                select(func.count()).select_from(s.store_meta).where(s.store_meta.c.key == key)
            ).scalar_one()
        )


def test_a_read_in_the_transaction_sees_the_queued_writes(store: Store) -> None:
    with store.write("queue then read") as tx:
        tx.later(s.store_meta.insert(), [{"key": "queued-1", "value": "a"}])
        tx.later(s.store_meta.insert(), [{"key": "queued-2", "value": "b"}])
        seen = tx.conn.execute(
            select(s.store_meta.c.value)
            .where(s.store_meta.c.key.in_(["queued-1", "queued-2"]))
            .order_by(s.store_meta.c.key)
        ).scalars()
        assert list(seen) == ["a", "b"]
    assert _meta_rows(store, "queued-1") == 1 and _meta_rows(store, "queued-2") == 1


def test_queued_writes_roll_back_with_the_transaction(store: Store) -> None:
    _append(store, "kept")
    before = store.revision()
    with pytest.raises(RuntimeError, match="boom"), store.write("queue then fail") as tx:
        event_log.append(tx, _events("lost"))  # its rows are queued, not sent
        tx.later(s.store_meta.insert(), [{"key": "never", "value": "x"}])
        raise RuntimeError("boom")
    assert store.revision() == before
    assert _texts(store) == ["kept"] and _meta_rows(store, "never") == 0


def test_a_refused_queued_write_rolls_back_everything_and_says_so(store: Store) -> None:
    _append(store, "kept")
    with store.write("seed") as tx:
        tx.later(s.store_meta.insert(), [{"key": "taken", "value": "first"}])
    before = store.revision()
    with pytest.raises(IntegrityError, match="refused"), store.write("duplicate key") as tx:
        event_log.append(tx, _events("lost"))
        tx.later(s.store_meta.insert(), [{"key": "taken", "value": "second"}])
    assert store.revision() == before
    assert _texts(store) == ["kept"]
    assert store.meta("taken") == "first"
    assert _append(store, "next")  # the connection and the chain are fine afterwards
    assert _texts(store) == ["kept", "next"]
    with store.read("verify") as conn:
        report = event_log.verify(conn, store.codec)
    assert report.ok and report.events_checked == 2  # the sealed head moved with the chain


def test_many_rows_queued_at_once_land_with_their_values(store: Store) -> None:
    # `later_rows`: on PostgreSQL one `unnest` statement for all rows, elsewhere executemany;
    # a batch of events goes this way (#12).
    texts = [f"batch {i} 値" for i in range(150)]
    with store.write("batch") as tx:
        event_log.append(tx, _events(*texts))
        tx.later_rows(
            s.store_meta,
            [{"key": f"row-{i}", "value": f"v{i} 値"} for i in range(3)],
        )
    assert _texts(store, limit=len(texts)) == texts
    assert [store.meta(f"row-{i}") for i in range(3)] == ["v0 値", "v1 値", "v2 値"]
    with store.read("verify") as conn:
        assert event_log.verify(conn, store.codec).ok


def test_rows_queued_at_once_must_share_their_keys(store: Store) -> None:
    before = store.revision()
    with (
        pytest.raises(ValueError, match="store_meta must all have the same keys"),
        store.write("ragged") as tx,
    ):
        tx.later_rows(s.store_meta, [{"key": "a", "value": "1"}, {"key": "b"}])
    assert store.revision() == before and store.meta("a") is None


def test_sessions_named_at_begin_count_their_events(store: Store) -> None:
    # `Store.write(session=...)` reads the session's count with the first statement; a new
    # session is created, an existing one continues, both in one chain.
    for n in range(3):
        with store.write("append", session="hinted") as tx:
            (event,) = event_log.append(tx, _events(f"h{n}", session="hinted"))
        assert event.seq == n + 1
    with store.write("append", session="hinted") as tx:
        events = event_log.append(tx, [*_events("h3", session="hinted"), *_events("o1")])
    assert [e.seq for e in events] == [4, 1]
    with store.read("sessions") as conn:
        counts = dict(conn.execute(select(s.sessions.c.id, s.sessions.c.event_count)).all())
    assert counts == {"hinted": 4, "s1": 1}
