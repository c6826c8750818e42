"""Writes while the PostgreSQL server is away (R23, #12): the spool, its replay, LISTEN/NOTIFY.

The server is really stopped (`pg_ctl stop -m immediate`, a crash) and restarted; the
writers are real separate processes with their own data directories (devices).
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from core import (
    InvalidInputError,
    MemoryService,
    NewEvent,
    ServerUnavailableError,
    WriteSpooledError,
)
from core.model.validate import event_said_at
from core.storage.engine import (
    PG_ANSWER_LIMIT_S,
    PG_WRITE_LOCK,
    PG_WRITE_LOCK_WAIT_S,
    watchdog_of,
)
from tests.support.pg_fixtures import PG_PASSPHRASE
from tests.support.postgres import PostgresServer

ROOT = Path(__file__).resolve().parents[3]
SECRET = "AKIAIOSFODNN7EXAMPLQ"


@pytest.fixture
def server(pg_crash_server: PostgresServer) -> PostgresServer:
    return pg_crash_server


@pytest.fixture
def url(pg_crash_url: str) -> str:
    return pg_crash_url


def _open(data_dir: Path, url: str | None) -> MemoryService:
    return MemoryService.open(
        data_dir, passphrase=PG_PASSPHRASE, prefer_keyring=False, database_url=url
    )


def _join(owner: MemoryService, data_dir: Path, name: str) -> None:
    raw, code = owner.team.invite_member(name).value
    MemoryService.join(data_dir, raw, code, passphrase=PG_PASSPHRASE, prefer_keyring=False).close()


def _texts(service: MemoryService, session: str) -> list[str]:
    return [e.text for e in service.events.list_events(session=session, limit=10_000)]


class Writer:
    """A writer process and the lines it printed so far."""

    def __init__(self, data_dir: Path, count: int, name: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.support.spool_writer", str(data_dir), str(count), name],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "MEMORY_CENTER_EMBEDDER": "none"},
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.strip())

    def wait_for_lines(self, count: int) -> None:
        deadline = time.monotonic() + 120
        while len(self.lines) < count and time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            time.sleep(0.05)

    def finish(self) -> tuple[int, list[str], str]:
        self.process.wait(timeout=180)
        self._reader.join(timeout=10)
        assert self.process.stdout is not None and self.process.stderr is not None
        with self.process.stderr as err, self.process.stdout:
            return self.process.returncode, self.lines, err.read()


def test_two_writer_processes_survive_a_crash_of_the_server(
    server: PostgresServer, url: str, tmp_path: Path
) -> None:
    owner = _open(tmp_path / "a", url)
    _join(owner, tmp_path / "b", "bob")
    owner.close()
    count = 120
    writers = [Writer(tmp_path / "a", count, "a"), Writer(tmp_path / "b", count, "b")]
    for writer in writers:
        writer.wait_for_lines(15)  # both are writing
    server.stop("immediate")
    time.sleep(1.5)  # writes meanwhile go to each machine's spool
    server.restart()
    for writer in writers:
        code, lines, err = writer.finish()
        assert code == 0, err
        assert lines[-1] == "flushed 0"
        assert any(line.startswith("spooled") for line in lines), "the outage was not met"
        assert any(line.startswith("ok") for line in lines)
    with _open(tmp_path / "a", url) as service:
        for name in ("a", "b"):
            texts = _texts(service, f"writer-{name}")
            # Every write is there exactly once, and each machine's writes in order.
            assert texts == [f"{name}-{i}" for i in range(count)]
        assert service.verify().ok


def test_spooled_purge_and_a_spooled_secret_are_decided_at_apply_time(
    server: PostgresServer, url: str, tmp_path: Path
) -> None:
    service = _open(tmp_path / "a", url)
    kept = service.memories.remember(
        {"user": "ann"}, "My locker code at the gym is number 4711"
    ).value
    assert kept.record is not None
    server.stop("immediate")
    with pytest.raises(WriteSpooledError) as spooled:
        service.review.delete(kept.record.id, reason="no longer true", purge=True)
    assert spooled.value.operation == "review.delete" and spooled.value.waiting == 1
    with pytest.raises(WriteSpooledError):
        service.memories.remember({"user": "ann"}, f"my AWS access key is {SECRET}")
    status = service.commands.status()
    assert status.waiting == 2 and status.offline and status.oldest is not None
    assert [e.operation for e in service.commands.entries()] == ["delete", "remember"]
    spool_bytes = (tmp_path / "a" / "spool.sqlite3").read_bytes()
    assert SECRET.encode() not in spool_bytes  # sealed with the store's key
    server.restart()
    report = service.commands.flush()
    assert len(report.applied) == 2 and report.waiting == 0 and report.error is None
    assert service.memories.get_memory(kept.record.id).status.value == "deleted"
    contents = [m.content for m in service.memories.list_memories()]
    assert not any(SECRET in text for text in contents)  # the policy rejected it on apply
    assert service.events.security_events()
    assert service.verify().ok
    assert not service.commands.status().offline
    service.close()


def test_a_flush_cut_off_after_the_commit_never_applies_twice(
    server: PostgresServer, url: str, tmp_path: Path
) -> None:
    service = _open(tmp_path / "a", url)
    server.stop("immediate")
    for i in range(3):
        with pytest.raises(WriteSpooledError):
            service.events.append_event(_event(f"offline-{i}"))
    server.restart()
    service.close()  # the spool file is complete on disk
    spool = tmp_path / "a" / "spool.sqlite3"
    before = tmp_path / "spool-before-flush.sqlite3"
    shutil.copyfile(spool, before)
    service = _open(tmp_path / "a", url)
    assert len(service.commands.flush().applied) == 3
    # As if the process died after the store committed but before the spool forgot them.
    service.close()
    spool.unlink()
    for extra in ("-wal", "-shm"):
        Path(str(spool) + extra).unlink(missing_ok=True)
    shutil.copyfile(before, spool)
    service = _open(tmp_path / "a", url)
    again = service.commands.flush()
    assert again.applied == () and len(again.already) == 3 and again.waiting == 0
    assert _texts(service, "s") == ["offline-0", "offline-1", "offline-2"]
    service.close()


def test_a_spooled_approval_of_a_memory_deleted_meanwhile_is_refused_and_reported(
    server: PostgresServer, url: str, tmp_path: Path
) -> None:
    service = _open(tmp_path / "a", url)
    suggested = service.memories.suggest({"user": "ann"}, "Ann likes hiking in the Alps").value
    assert suggested.record is not None
    server.stop("immediate")
    with pytest.raises(WriteSpooledError):
        service.review.approve(suggested.record.id)
    with pytest.raises(WriteSpooledError):
        service.review.approve("mem_doesnotexist")
    server.restart()
    report = service.commands.flush()
    assert len(report.applied) == 1
    assert [r.operation for r in report.refused] == ["approve"]
    assert "not found" in report.refused[0].message
    assert service.memories.get_memory(suggested.record.id).status.value == "active"
    assert service.commands.status().last_error is not None
    service.close()


def test_bad_input_is_refused_at_once_even_while_offline(
    server: PostgresServer, url: str, tmp_path: Path
) -> None:
    service = _open(tmp_path / "a", url)
    server.stop("immediate")
    with pytest.raises(WriteSpooledError):
        service.events.append_event(_event("first"))
    with pytest.raises(Exception) as bad:
        service.events.append_event(_event("x", scope={}))
    assert bad.value.__class__.__name__ == "ScopeRequiredError"
    # A remember's speaker and time are checked before it waits in the spool (#17).
    with pytest.raises(InvalidInputError, match="speaker"):
        service.memories.remember({"user": "ann"}, "Remember: tea.", speaker="a\nb")
    with pytest.raises(InvalidInputError, match="said_at"):
        service.memories.remember({"user": "ann"}, "Remember: tea.", said_at="next tuesday")
    assert service.commands.status().waiting == 1
    reads = service.retrieval.inject({"user": "ann"}, "anything", 300).value
    assert reads.degraded and reads.snapshot_id == "" and not reads.items
    server.restart()
    assert service.commands.flush().waiting == 0
    service.close()


def test_a_commit_on_one_machine_wakes_the_other_machines_waiter(url: str, tmp_path: Path) -> None:
    first = _open(tmp_path / "a", url)
    _join(first, tmp_path / "b", "bob")
    # A joined device logs in with its own login, remembered in its directory (#41).
    second = _open(tmp_path / "b", None)
    start = second.events.revision()
    woke = threading.Event()
    seen: list[int] = []

    def wait() -> None:
        seen.append(second.events.wait_for_change(start, timeout=30))
        woke.set()

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.3)  # the waiter is asleep on LISTEN
    assert not woke.is_set()
    first.memories.remember({"user": "ann"}, "The team meets on Tuesdays at ten")
    assert woke.wait(timeout=10)  # a guard only: it wakes at the commit
    waiter.join()
    assert seen[0] > start
    first.close()
    second.close()


def test_waiting_for_changes_while_the_server_is_away_says_so(
    server: PostgresServer, url: str, tmp_path: Path
) -> None:
    service = _open(tmp_path / "a", url)
    server.stop("immediate")
    with pytest.raises(ServerUnavailableError):
        service.events.wait_for_change(service_revision_unknown(), timeout=0.5)
    server.restart()
    assert service.events.wait_for_change(-1, timeout=1) >= 0
    service.close()


def test_wait_for_change_polls_on_sqlite(tmp_path: Path) -> None:
    first = MemoryService.open(tmp_path / "s", passphrase=PG_PASSPHRASE, prefer_keyring=False)
    second = MemoryService.open(tmp_path / "s", passphrase=PG_PASSPHRASE, prefer_keyring=False)
    start = second.events.revision()
    assert second.events.wait_for_change(start, timeout=0.2) == start  # nothing happened
    assert second.commands.gate() is None and second.commands.status().waiting == 0
    first.memories.remember({"user": "ann"}, "Ann's flight to Osaka leaves at 9")
    assert second.events.wait_for_change(start, timeout=5) > start
    first.close()
    second.close()


def service_revision_unknown() -> int:
    return 10**9


def _event(text: str, scope: dict[str, str] | None = None) -> NewEvent:
    return NewEvent(
        session="s",
        actor="user",
        trust="user",
        scope={"user": "ann"} if scope is None else scope,
        text=text,
    )


def test_an_altered_spool_entry_is_refused_not_applied(
    server: PostgresServer, url: str, tmp_path: Path
) -> None:
    service = _open(tmp_path / "a", url)
    server.stop("immediate")
    with pytest.raises(WriteSpooledError):
        service.events.append_event(_event("kept"))
    with pytest.raises(WriteSpooledError):
        service.events.append_event(_event("altered"))
    second = service.commands.entries()[1].id
    with sqlite3.connect(tmp_path / "a" / "spool.sqlite3") as raw:
        body = bytearray(
            raw.execute("SELECT body FROM entries WHERE id = ?", (second,)).fetchone()[0]
        )
        body[-1] ^= 1
        raw.execute("UPDATE entries SET body = ? WHERE id = ?", (bytes(body), second))
    server.restart()
    report = service.commands.flush()
    assert len(report.applied) == 1 and [r.id for r in report.refused] == [second]
    assert "integrity" in report.refused[0].message
    assert _texts(service, "s") == ["kept"]
    service.close()


def test_a_write_lock_held_too_long_elsewhere_spools_the_write_instead_of_hanging(
    url: str, tmp_path: Path
) -> None:
    """Another device's transaction holds the store's write lock and does not finish (a
    stuck client): this device's write waits PG_WRITE_LOCK_WAIT_S, then goes to the spool, and
    is applied once the lock is free (R23)."""
    import psycopg

    service = _open(tmp_path / "a", url)
    service.memories.remember({"user": "ann"}, "The team standup is at 9:30 on weekdays")
    stuck = psycopg.connect(url)  # a plain client transaction, as another device's would be
    stuck.execute(f"SELECT pg_advisory_xact_lock({PG_WRITE_LOCK})")
    started = time.monotonic()
    try:
        with pytest.raises(WriteSpooledError) as spooled:
            service.memories.remember({"user": "ann"}, "The retro is every second Friday at 15:00")
        waited = time.monotonic() - started
        assert PG_WRITE_LOCK_WAIT_S - 0.5 <= waited <= PG_WRITE_LOCK_WAIT_S + 15
        assert spooled.value.waiting == 1
        assert "write lock was not granted" in (service.commands.status().last_error or "")
    finally:
        stuck.rollback()  # the other device gives the lock back
        stuck.close()
    report = service.commands.flush()
    assert len(report.applied) == 1 and report.waiting == 0 and report.error is None
    texts = [m.content for m in service.memories.list_memories()]
    assert "The retro is every second Friday at 15:00" in texts
    assert service.verify().ok
    service.close()


def test_a_frozen_server_is_cut_off_writes_spool_and_reads_degrade(
    server: PostgresServer, url: str, tmp_path: Path
) -> None:
    """SIGSTOP on every server process: TCP stays open and the kernel acknowledges, so only
    the client-side answer watchdog can end the wait (core/storage/watchdog.py)."""
    service = _open(tmp_path / "a", url)
    service.memories.remember({"user": "ann"}, "Ann keeps the spare key under the blue pot")
    for engine in (service._store.write_engine, service._store.read_engine):
        dog = watchdog_of(engine)
        assert dog is not None and dog.limit == PG_ANSWER_LIMIT_S
        dog.limit = 2.0  # the product waits 30 s; the test need not
    frozen = server.freeze()
    try:
        started = time.monotonic()
        with pytest.raises(WriteSpooledError) as spooled:
            service.memories.remember({"user": "ann"}, "Ann's bike lock code is 4411")
        took = time.monotonic() - started
        assert took < 2.0 + 10.0, took  # the limit, plus a reconnect attempt's timeout
        assert "did not answer for 2 s" in (service.commands.status().last_error or "")
        assert spooled.value.waiting == 1
        reads = service.retrieval.inject({"user": "ann"}, "where is the spare key", 300).value
        assert reads.degraded and not reads.items
    finally:
        server.thaw(frozen)
    report = service.commands.flush()
    assert report.applied and report.waiting == 0 and report.error is None, report
    contents = [m.content for m in service.memories.list_memories()]
    assert "Ann's bike lock code is 4411" in contents
    assert service.verify().ok
    service.close()


def test_a_long_transaction_that_keeps_getting_answers_is_never_cut(
    url: str, tmp_path: Path
) -> None:
    service = _open(tmp_path / "a", url)
    dog = watchdog_of(service._store.write_engine)
    assert dog is not None
    # The product's limit: a 1 s limit cut a healthy statement on a loaded machine (#38).
    # The rule itself (answers keep a transaction alive however long it runs) is tested
    # with a clock the test moves: tests/core/storage/test_answer_watchdog.py.
    assert dog.limit == PG_ANSWER_LIMIT_S
    items = [
        {"scope": {"user": "ann"}, "text": f"Ann's note number {i} about tides"} for i in range(150)
    ]
    outcomes = service.memories.remember_many(items).value  # one transaction, several seconds
    assert len(outcomes) == 150 and dog.cut_at is None
    service.close()


def test_a_spooled_memory_and_event_keep_the_time_they_were_made(
    server: PostgresServer, url: str, tmp_path: Path
) -> None:
    service = _open(tmp_path / "a", url)
    server.stop("immediate")
    try:
        with pytest.raises(WriteSpooledError):
            service.memories.remember({"user": "ann"}, "Ann moved the meeting to Thursday")
        with pytest.raises(WriteSpooledError):
            service.events.append_event(_event("said while the server was away"))
        made = service.commands.entries()
        time.sleep(1.5)  # applied later than made, by more than the clocks' resolution
    finally:
        server.restart()
    applied_at_least = made[-1].spooled_at + dt.timedelta(seconds=1)
    assert service.commands.flush().waiting == 0
    (memory,) = [m for m in service.memories.list_memories() if "Thursday" in m.content]
    assert abs(memory.valid_from - made[0].spooled_at) < dt.timedelta(seconds=1)
    assert memory.created_at >= applied_at_least  # the row itself is from the flush
    (event,) = [e for e in service.events.list_events(limit=100) if "server was away" in e.text]
    assert event_said_at(event.data) is not None
    assert abs(event_said_at(event.data) - made[1].spooled_at) < dt.timedelta(seconds=1)  # type: ignore[operator]
    assert service.verify().ok
    service.close()


def test_after_a_server_restart_the_next_write_and_read_go_straight_through(
    server: PostgresServer, url: str, tmp_path: Path
) -> None:
    # Pooled connections are not pinged before use (a round trip each); a connection the
    # restarted server closed is recognised at checkout, so nothing is spooled and no read
    # degrades once the server is back.
    service = _open(tmp_path / "a", url)
    service.events.append_event(_note("before"))
    assert [e.text for e in service.events.list_events(session="restart")] == ["before"]
    server.stop("fast")
    server.restart()
    after = service.events.append_event(_note("after"))
    assert after.value.seq == 2
    assert [e.text for e in service.events.list_events(session="restart")] == ["before", "after"]
    assert service.commands.status().waiting == 0
    service.close()


def _note(text: str) -> NewEvent:
    return NewEvent(
        session="restart", actor="tool", trust="tool_verified", scope={"org": "acme"}, text=text
    )
