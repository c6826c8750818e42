"""The store: engines, codec, clock, and the write transaction that bumps the revision.

Every mutation runs inside `Store.write()`: one database transaction that, when it changed
anything, also bumps the store revision and appends a row to the change feed, so that
other processes (the GUI, an MCP server, the CLI) can see what changed and catch up (R21).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from sqlalchemy import (
    Connection,
    Engine,
    Executable,
    Table,
    bindparam,
    select,
    update,
)
from sqlalchemy import exc as sa_exc

from core.crypto.codec import Codec
from core.errors import PrivateScopeError
from core.model.clock import Clock, to_iso
from core.model.enums import ChangeKind
from core.model.records import ChangeEntry, Changes
from core.storage import schema as s
from core.storage.change_feed import capped as _capped
from core.storage.change_feed import entries_since
from core.storage.checkpoint import leave_no_old_copies
from core.storage.driver_path import as_unnest as _as_unnest
from core.storage.driver_path import fetch_one as _fetch_one
from core.storage.driver_path import grouped as _grouped
from core.storage.driver_path import insert_into as _insert_into
from core.storage.driver_path import send_in_pipeline as _send_in_pipeline
from core.storage.engine import (
    answer_watch,
    carried_by_begin,
    through_driver,
    translated,
    watchdog_of,
)
from core.storage.listener import ChangeListener
from core.storage.personal import member_has_key
from core.storage.prologue import PROLOGUE, prologue_read

DB_FILE_NAME = "memory-center.sqlite3"
SQLITE_POLL_SECONDS = 0.2


@dataclass
class WriteTx:
    """An open write transaction. Record what you change with `touch`.

    Writes that nothing in the transaction reads back may be queued with `later`: they are
    sent, in order, before the next use of `conn` or at commit, on PostgreSQL in one
    pipeline (one round trip for all of them instead of one each, while every other writer
    waits for the write lock).
    """

    connection: Connection
    now: dt.datetime
    codec: Codec
    kinds: set[ChangeKind] = field(default_factory=set)
    event_ids: list[str] = field(default_factory=list)
    memory_ids: list[str] = field(default_factory=list)
    revision: int = 0
    # Set once the commit returned: a follower may then trust `revision` as this
    # transaction's own.
    committed: bool = False
    _memory_seen: set[str] = field(default_factory=set)
    # Read once per transaction (the write lock keeps them true until commit): the event
    # chain's head, sessions' event counts, and the revision this transaction commits as.
    chain_head: tuple[int, str] | None = None
    session_counts: dict[str, int] = field(default_factory=dict)
    new_sessions: set[str] = field(default_factory=set)
    # The fence tables' summary (`fences.state`) as this transaction last read it; every
    # write to those tables calls `fences_changed`, so a batch of writes reads it once.
    fence_state: tuple[object, ...] | None = None
    pending_revision: int | None = None
    # Governing rows (fences, opt-outs, exclusions, tombstones) this transaction changed,
    # as (table, key): taken into their MAC'd record before commit (`governed.reseal`).
    governed_keys: set[tuple[str, str]] = field(default_factory=set)
    # Source links this transaction wrote, by memory: (whether the memory was created
    # here, the event ids). The memory's next decision event announces them, so the links
    # are bound to the hash chain (#38; `memories.record_decision`).
    source_links: dict[str, tuple[bool, set[str]]] = field(default_factory=dict)
    # Revision rows this transaction wrote, by memory (clear fields), announced the same way.
    revision_rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    _queued: list[tuple[Executable, list[dict[str, Any]] | None]] = field(default_factory=list)
    _final: dict[str, tuple[Executable, list[dict[str, Any]]]] = field(default_factory=dict)
    # New memory rows still in the queue, by id: the only queued writes to the memories
    # table, so a statement on any other memory row need not send the queue first
    # (`conn_for_memory`), and a change to one of them can be made in its row before it is
    # sent (`memories.update_fields`).
    queued_memories: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Source events of records whose links have queued writes (those the transaction
    # inserted, and older ones a merge linked): the links as they will be once the queue is
    # sent, so `memories.add_sources` adds to them without reading.
    queued_sources: dict[str, set[str]] = field(default_factory=dict)
    # Whether a user has a personal key on the store (a member), as `key_for` read it.
    _members: dict[str, bool] = field(default_factory=dict)
    # The transition journal (#39, core/storage/journal.py): what the write is, who made it,
    # each changed memory's state before its first change, the decision recorded for it, and
    # the command an undo undoes. `before_commit` steps run after the write's own work.
    action: str = ""
    journal_actor: str | None = None
    journal_command: str | None = None
    journal_undoes: str | None = None
    journal_before: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    journal_decisions: dict[str, str] = field(default_factory=dict)
    before_commit: list[Callable[[WriteTx], None]] = field(default_factory=list)

    @property
    def conn(self) -> Connection:
        """The transaction's connection, with every queued write sent first."""
        if self._queued:
            self.send_queued()
        return self.connection

    def conn_for_memory(self, memory_id: str) -> Connection:
        """The connection for reading or changing one existing memory row: the queue is
        sent first only when it holds that row (so a batch's queue keeps growing into
        bigger executemanys while the policy updates older records, #13)."""
        return self.conn if memory_id in self.queued_memories else self.connection

    def later(self, statement: Executable, rows: list[dict[str, Any]] | None = None) -> None:
        """Queue a write whose result nobody reads (no RETURNING, no rowcount)."""
        self._queued.append((statement, rows))

    def at_commit(self, key: str, statement: Executable, rows: list[dict[str, Any]]) -> None:
        """Queue a write sent just before COMMIT, replacing the one queued under the same
        `key`: for state whose last value alone matters (the sealed chain head, a session's
        event count), which every append rewrote (#13: 4 of 14 statements per remember).
        Nothing in the transaction may read it back from the table."""
        self._final[key] = (statement, rows)

    def later_rows(self, table: Table, rows: list[dict[str, Any]]) -> None:
        """Queue an insert of many rows with the same keys (on PostgreSQL sent as one
        statement, see `_as_unnest`)."""
        keys = tuple(rows[0]) if rows else ()
        if any(tuple(row) != keys for row in rows):
            raise ValueError(f"rows for {table.name} must all have the same keys")
        if rows:
            self._queued.append((_insert_into(table), rows))

    def send_queued(self, *, commit: bool = False) -> None:
        """Send the queued writes in order; one round trip on PostgreSQL, which with
        `commit` also carries the COMMIT (the transaction's own commit then finds nothing
        left to do; a failed write turns it into a rollback, as a failed COMMIT does)."""
        if commit:
            self._queued.extend(self._final.values())
            self._final = {}
        queued, self._queued = _grouped(self._queued), []
        self.queued_memories.clear()
        self.queued_sources.clear()
        conn = self.connection
        if conn.dialect.name == "postgresql":
            queued = [_as_unnest(statement, rows) for statement, rows in queued]
        if conn.dialect.name == "postgresql" and (len(queued) > 1 or commit):
            driver: Any = conn.connection.driver_connection
            # A refused write can surface when the pipeline syncs, from the driver itself.
            with through_driver(conn.engine, driver), driver.pipeline():
                cursor = driver.cursor()
                for statement, rows in queued:
                    _send_in_pipeline(conn, cursor, statement, rows)
                if commit:
                    driver.execute("COMMIT")
            return
        for statement, rows in queued:
            conn.execute(statement, rows)

    def fences_changed(self) -> None:
        """A fence was stood, lifted or given features: the next `fences.state_in` reads."""
        self.fence_state = None

    def touch(
        self, kind: ChangeKind, *, event_ids: tuple[str, ...] = (), memory_ids: tuple[str, ...] = ()
    ) -> None:
        """Note that this transaction changed `kind` (and which rows)."""
        self.kinds.add(kind)
        self.event_ids.extend(event_ids)
        for mid in memory_ids:
            if mid not in self._memory_seen:
                self._memory_seen.add(mid)
                self.memory_ids.append(mid)

    @property
    def now_iso(self) -> str:
        """The transaction's timestamp as stored."""
        return to_iso(self.now)

    def key_for(self, user: str | None, *, strict: bool = True) -> str | None:
        """The key id to seal content of a scope whose user is `user` (None: the team key).

        On a team store a `user=X` scope is private to member X once X has a personal key
        (X's first device made it): sealed with it. A device without it may not write
        there (`strict`), or, for copies that can only hold what this device could read (a
        snapshot of a `user=X` request), uses the team key. A scope naming someone who has
        no personal key on the store (not a member) is team content.

        Raises:
            PrivateScopeError: strict, and `user` is another member's private scope.
        """
        kid = self.codec.key_for(user)
        if kid is not None or user is None or not self.codec.shared or not strict:
            return kid
        taken = self._members.get(user)
        if taken is None:
            # Asked once per transaction and user: each ask would send the queued writes.
            taken = self._members[user] = member_has_key(self.conn, user)
        if not taken:
            return None
        raise PrivateScopeError(
            f"scope user={user} is private to member {user!r} on this team store, and this "
            "device does not hold their personal key"
        )


class Store:
    """A connected store. Thread-safe; one writer at a time within a process.

    Args:
        write_engine: engine whose transactions take the write lock at BEGIN.
        read_engine: engine for consistent snapshot reads.
        codec: seals and opens every content value.
        clock: the store's source of time.
        path: the database file (None for server databases).
        index_dir: where this machine keeps derived indexes (default: beside the file).
    """

    def __init__(
        self,
        write_engine: Engine,
        read_engine: Engine,
        codec: Codec,
        clock: Clock,
        path: Path | None,
        *,
        index_dir: Path | None = None,
    ) -> None:
        self.write_engine = write_engine
        self.read_engine = read_engine
        self.codec = codec
        self.clock = clock
        self.path = path
        self.index_dir = index_dir or (path.parent / "index" if path else None)
        self._write_lock = threading.RLock()
        self.key_reloader: Callable[[], Codec] | None = None
        self._local = threading.local()
        self.listener: ChangeListener | None = None
        # Run at dispose: local resources tied to this store (the spool file's connection).
        self.on_dispose: list[Callable[[], None]] = []
        self._disposed = False
        # Run before this process's writes and by readers of snapshots (`settle`): writes
        # handed off to be done later (injection snapshots) land first, so nothing this
        # process does next (a purge, a replay) can miss them.
        self.before_access: Callable[[], None] | None = None

    @contextlib.contextmanager
    def write(self, action: str, *, session: str | None = None) -> Iterator[WriteTx]:
        """Run one write transaction; on commit, bump the revision if anything changed.

        Args:
            action: what the caller is doing, for error messages.
            session: the session the write appends events to, if known: its event count
                is read with the transaction's first statement instead of on its own.
        """
        # This write's own steps are taken before the queued snapshots are written, so
        # that their transaction never runs them (the spool's claim belongs to this one).
        first: Callable[[WriteTx], None] | None = getattr(self._local, "first", None)
        last: Callable[[WriteTx], None] | None = getattr(self._local, "last", None)
        self._local.first = self._local.last = None
        self.settle()
        with (
            self._inside_write(),
            self._write_lock,
            answer_watch(self.write_engine, action),
            translated(action),
            carried_by_begin(prologue_read(session)) as first_read,
            self.write_engine.begin() as conn,
        ):
            revision, head, count = self._prologue(conn, session, first_read.row)
            tx = WriteTx(conn, self.clock.now(), self.codec, action=action)
            tx.pending_revision = revision + 1
            tx.chain_head = head
            if session is not None:
                if count is None:
                    tx.new_sessions.add(session)
                else:
                    tx.session_counts[session] = count
            if first is not None:
                first(tx)
            rewound: tuple[int, int] | None = getattr(self._local, "rewound", None)
            if rewound is not None:
                _report_rewound(tx, *rewound)
            yield tx
            if last is not None:
                last(tx)
            for step in tx.before_commit:
                step(tx)
            if tx.governed_keys:
                COMMIT_STEPS.reseal(tx)
            if tx.kinds:
                self._bump(tx)
                tx.revision = revision + 1
            else:
                tx.revision = revision
            tx.send_queued(commit=True)
            tx.committed = True

    def settle(self) -> None:
        """Write what this process handed off (queued injection snapshots) now.

        Run before every write, and by readers of snapshots (get, replay, usage, export,
        verify). Not by other reads: a reader may hold the catalog's lock, which a write
        in progress may be waiting for. Not from inside a write: its lock is held, and the
        hand-off needs it.
        """
        if self.before_access is not None and not getattr(self._local, "writing", 0):
            self.before_access()

    @contextlib.contextmanager
    def _inside_write(self) -> Iterator[None]:
        self._local.writing = getattr(self._local, "writing", 0) + 1
        try:
            yield
        finally:
            self._local.writing -= 1

    @contextlib.contextmanager
    def first_write_also(
        self, step: Callable[[WriteTx], None], *, at_start: bool = True
    ) -> Iterator[None]:
        """Run `step` inside the next write transaction this thread opens, right after BEGIN
        (under the write lock), or after the write's own work (`at_start=False`), so it
        commits or rolls back with that write.

        The spool records a replayed write's id this way: applied and recorded at once.
        """
        name = "first" if at_start else "last"
        setattr(self._local, name, step)
        try:
            yield
        finally:
            setattr(self._local, name, None)

    @contextlib.contextmanager
    def read(self, action: str) -> Iterator[Connection]:
        """A read-only snapshot connection.

        Reads follow another process's key rotation lazily: the codec reloads the key set
        when it meets a key id it does not hold.
        """
        with (
            answer_watch(self.read_engine, action),
            translated(action),
            self.read_engine.connect() as conn,
            conn.begin(),
        ):
            yield conn

    def revision(self) -> int:
        """The latest committed store revision.

        Every retrieval asks this first: one statement outside a transaction (the driver
        runs it in autocommit), instead of BEGIN, SELECT and ROLLBACK of a read transaction:
        one round trip instead of three on a server (#12), 20 instead of 145 us on SQLite.
        On a server it goes through a write connection (no BEGIN is sent outside `write`).
        """
        engine = self.write_engine if self.is_server else self.read_engine
        with answer_watch(engine, "read revision"), translated("read revision"):
            # `connect` (not `raw_connection`) so a refused connection is translated like
            # any other; nothing is executed through it, so no transaction begins.
            with engine.connect() as conn:
                driver: Any = conn.connection.driver_connection
                try:
                    row = driver.execute(_REVISION_SQL).fetchone()
                except driver.Error as exc:
                    conn.invalidate()  # a broken session is not handed out again
                    raise sa_exc.DBAPIError.instance(None, None, exc, driver.Error) from None
            return int(row[0])

    def changes_since(self, revision: int, limit: int = 1000) -> list[ChangeEntry]:
        """Change-feed rows after `revision`, oldest first."""
        with self.read("read change feed") as conn:
            return entries_since(conn, revision, limit)

    def meta(self, key: str) -> str | None:
        """A value from store_meta."""
        with self.read("read store metadata") as conn:
            return conn.execute(
                select(s.store_meta.c.value).where(s.store_meta.c.key == key)
            ).scalar_one_or_none()

    @property
    def location(self) -> str:
        """Where the tables are, for people: the file, or the server URL without password."""
        if self.path is not None:
            return str(self.path)
        return self.server_url(hide_password=True)

    def server_url(self, *, hide_password: bool) -> str:
        """The server's URL as a user writes it (postgresql://...), for status or invitations."""
        rendered = self.write_engine.url.render_as_string(hide_password=hide_password)
        return rendered.replace("postgresql+psycopg://", "postgresql://")

    @property
    def is_server(self) -> bool:
        """True when the tables live on a PostgreSQL server."""
        return self.write_engine.dialect.name == "postgresql"

    def checkpoint(self) -> None:
        """Leave no old copy of purged rows in the database's own files (checkpoint.py)."""
        with self._write_lock:
            leave_no_old_copies(self.write_engine)

    def dispose(self) -> None:
        """Close every pooled connection."""
        self._disposed = True
        for step in self.on_dispose:
            step()
        if self.listener is None and self.is_server:
            # A closed listener: a waiter arriving after dispose gets an error, no connection.
            self.listener = ChangeListener("", "")
        if self.listener is not None:
            self.listener.close()
        for engine in (self.write_engine, self.read_engine):
            dog = watchdog_of(engine)
            if dog is not None:
                dog.close()
            engine.dispose()

    def replace_codec(self, codec: Codec) -> None:
        """Use a new key set from now on (key rotation)."""
        self.codec = codec

    def _prologue(
        self, conn: Connection, session: str | None, row: Any = None
    ) -> tuple[int, tuple[int, str] | None, int | None]:
        """What every write reads first under the write lock, in one statement: the store
        revision, the event chain's head, the active key id, and the event count of
        `session` (None when it does not exist yet). `row` is its answer when BEGIN
        carried it (PostgreSQL), else it is read here.

        The key set is reloaded if another process rotated it, before sealing anything new:
        without this a process holding the old key set could write rows under a key that
        the rotating process is about to retire.
        """
        if row is None:
            row = _fetch_one(conn, PROLOGUE, {"session": session or ""})
        revision, position, digest, active, count, feed = cast(
            "tuple[int, int | None, str | None, str | None, int | None, int | None]", row
        )
        if active and active != self.codec.active_key_id and self.key_reloader is not None:
            self.codec = self.key_reloader()
        head = (int(position), str(digest)) if position is not None else None
        self._local.rewound = None
        if feed is not None and int(feed) > int(revision):
            # Continue after the feed, and say so once (the write's bump repairs it).
            self._local.rewound = (int(revision), int(feed))
            revision = feed
        return int(revision), head, None if count is None else int(count)

    @staticmethod
    def _revision(conn: Connection) -> int:
        value: int = conn.execute(
            select(s.store_revision.c.revision).where(s.store_revision.c.id == 1)
        ).scalar_one()
        return int(value)

    @staticmethod
    def _bump(tx: WriteTx) -> None:
        # The revision was read under the write lock at BEGIN, so it is set, not read back;
        # both writes join the queue (changes.revision is the primary key: a second writer
        # with the same revision could not commit).
        assert tx.pending_revision is not None
        tx.later(_SET_REVISION, [{"new_revision": tx.pending_revision}])
        tx.later_rows(
            s.changes,
            [
                {
                    "revision": tx.pending_revision,
                    "ts": tx.now_iso,
                    "kinds": json.dumps(sorted(k.value for k in tx.kinds)),
                    "event_ids": json.dumps(_capped(tx.event_ids)),
                    "memory_ids": json.dumps(_capped(tx.memory_ids)),
                }
            ],
        )
        # On PostgreSQL a trigger on store_revision NOTIFYs the store's channel (migration 9).

    def wait_for_change(self, revision: int, timeout: float) -> int:
        """Block until the store revision passes `revision` or `timeout` seconds pass.

        On PostgreSQL this sleeps on LISTEN (a commit anywhere wakes it at once); on SQLite
        it polls the revision. Returns the revision last seen.
        """
        if self.is_server:
            if self.listener is None:
                self.listener = ChangeListener(
                    self.server_url(hide_password=False), self.meta("store_id") or ""
                )
            return self.listener.wait(self.revision, revision, timeout)
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            current = self.revision()
            if current > revision or time.monotonic() >= deadline or self._disposed:
                return current
            time.sleep(min(SQLITE_POLL_SECONDS, max(0.0, deadline - time.monotonic())))


REWOUND = (
    "the store revision {0} is behind the change feed's last revision {1}: changed outside "
    "Memory Center; writes continue after the feed"
)


def _not_installed(*_args: object) -> None:
    raise RuntimeError(
        "core.storage.governed is not loaded: it installs the steps a write takes on the "
        "governed rows (import it before writing)"
    )


@dataclass
class CommitSteps:
    """The steps of a write that belong to modules built on this one (they take a `WriteTx`,
    so this module cannot import them): resealing the governed rows a write changed, and
    logging a store revision found behind the change feed. core/storage/governed.py installs
    both when it is imported; the opener imports it."""

    reseal: Callable[[WriteTx], None] = _not_installed
    report_rewound: Callable[[WriteTx, int, int], None] = _not_installed


COMMIT_STEPS = CommitSteps()


def _report_rewound(tx: WriteTx, revision: int, feed: int) -> None:
    COMMIT_STEPS.report_rewound(tx, revision, feed)


def revision_of(conn: Connection) -> int:
    """The committed store revision as this connection sees it (inside a read or write)."""
    return Store._revision(conn)


# Statements of every write, built once: building one costs more than sending it.
_SET_REVISION = (
    update(s.store_revision)
    .where(s.store_revision.c.id == 1)
    .values(revision=bindparam("new_revision"))
)


_REVISION_SQL = "SELECT revision FROM store_revision WHERE id = 1"


def new_id(prefix: str, now: dt.datetime) -> str:
    """A sortable id: prefix, milliseconds since the epoch in hex, and 48 random bits."""
    millis = int(now.timestamp() * 1000)
    return f"{prefix}_{millis:012x}{secrets.token_hex(6)}"


def changes_of(tx: WriteTx) -> Changes:
    """The `Changes` value a committed transaction produced."""
    return Changes(
        kinds=frozenset(tx.kinds),
        revision=tx.revision,
        event_ids=tuple(tx.event_ids),
        memory_ids=tuple(tx.memory_ids),
        command_id=tx.journal_command,
        undoes=tx.journal_undoes,
    )
