"""Database engines and the one place where driver exceptions become our errors.

SQLite runs in WAL mode with a busy timeout and foreign keys. Python's sqlite3 driver would
begin transactions lazily at the first write, which loses updates between processes; so
the write engine runs in driver autocommit and issues `BEGIN IMMEDIATE` itself, taking the
write lock before the first read of a read-modify-write.
"""

from __future__ import annotations

import contextlib
import select
import sqlite3
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from sqlalchemy import Engine, create_engine, event
from sqlalchemy import exc as sa_exc

from core.errors import (
    AuthenticationFailedError,
    IntegrityError,
    InvalidInputError,
    MemoryCenterError,
    NotPermittedError,
    ResourceUnavailableError,
    ServerUnavailableError,
)
from core.storage.watchdog import AnswerWatchdog

BUSY_TIMEOUT_MS = 15_000
# One advisory lock id for "the store's writer": every write transaction on PostgreSQL takes
# it at BEGIN, the server-side equivalent of SQLite's BEGIN IMMEDIATE, so the hash chain stays
# one linear chain and read-modify-writes never interleave, across processes and machines.
PG_WRITE_LOCK = 0x4D43_5354  # "MCST"
# How long a write waits for the store's write lock before it counts the server as away:
# another device holding the lock that long (a crashed client whose connection the server has
# not dropped yet, an overloaded server) must not hang this device's agent; the write goes to
# the spool and is applied, in order, when the lock is free again (R23). Long enough that an
# ordinary batch of another device (1,000 memories take ~9 s) rarely sends writes there.
PG_WRITE_LOCK_WAIT_S = 10.0
# SQLSTATE of a lock wait that ran past lock_timeout.
PG_LOCK_NOT_AVAILABLE = "55P03"
# Short: an unreachable server must send writes to the spool and reads to "no memory"
# quickly (R23). libpq counts whole seconds and treats less than 2 as 2.
PG_CONNECT_TIMEOUT_S = 2
# How long a store transaction may wait with no answer at all from the server before its
# connections are cut (core/storage/watchdog.py): longer than the write-lock wait, so a lock
# held elsewhere is reported as that, and than any single statement of a healthy server.
PG_ANSWER_LIMIT_S = 30.0
# Ids bound in one `IN (...)` list: SQLite caps the number of bound parameters of a statement.
MAX_BOUND_IDS = 900
_WATCHDOGS: weakref.WeakKeyDictionary[Engine, AnswerWatchdog] = weakref.WeakKeyDictionary()


T = TypeVar("T")


def chunks(values: Sequence[T], size: int = MAX_BOUND_IDS) -> Iterator[list[T]]:
    """`values` in lists of at most `size`, for statements that bind one parameter each."""
    for at in range(0, len(values), size):
        yield list(values[at : at + size])


def sqlite_engines(path: str) -> tuple[Engine, Engine]:
    """Return (write engine, read engine) for a SQLite file.

    The write engine takes the write lock at BEGIN; the read engine uses deferred
    transactions, which in WAL mode read a consistent snapshot without blocking writers.
    """
    url = f"sqlite+pysqlite:///{path}"
    write = create_engine(url, pool_size=1, max_overflow=2)
    read = create_engine(url, pool_size=4, max_overflow=4, pool_pre_ping=False)
    _configure_sqlite(write, begin="BEGIN IMMEDIATE")
    _configure_sqlite(read, begin="BEGIN")
    return write, read


def _check_port(driver_url: str) -> None:
    """Refuse a URL whose port is not a number from 1 to 65535, naming it (#41)."""
    from sqlalchemy.engine import make_url

    try:
        port = make_url(driver_url).port
    except (ValueError, sa_exc.ArgumentError) as exc:
        raise InvalidInputError("database URL", f"cannot be read: {exc}") from None
    if port is not None and not 0 < port < 65536:
        raise InvalidInputError("database URL", f"port {port} is not between 1 and 65535")


def is_postgres_url(url: str) -> bool:
    """True for a PostgreSQL database URL (postgresql://, postgres://, postgresql+psycopg://)."""
    scheme = url.split("://", 1)[0].lower()
    return scheme in {"postgresql", "postgres", "postgresql+psycopg"}


def postgres_engines(url: str) -> tuple[Engine, Engine]:
    """Return (write engine, read engine) for a PostgreSQL database via psycopg 3.

    The write engine takes the store's advisory write lock at BEGIN; the read engine runs
    repeatable-read transactions, a consistent snapshot like SQLite's WAL readers.

    Raises:
        ResourceUnavailableError: psycopg is not installed or the URL is not PostgreSQL.
    """
    if not is_postgres_url(url):
        raise ResourceUnavailableError("the database URL must start with postgresql://")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise ResourceUnavailableError(
            "PostgreSQL support needs the psycopg package (pip install 'psycopg[binary]')"
        ) from None
    driver_url = "postgresql+psycopg://" + url.split("://", 1)[1]
    _check_port(driver_url)
    args = {"connect_timeout": PG_CONNECT_TIMEOUT_S, "application_name": "memory-center"}
    # lock_timeout as a session setting of the write connections: it bounds every lock wait
    # of a write (the advisory write lock first) at no cost per transaction.
    write_args = {**args, "options": f"-c lock_timeout={int(PG_WRITE_LOCK_WAIT_S * 1000)}"}
    write = create_engine(driver_url, pool_size=2, max_overflow=4, connect_args=write_args)
    read = create_engine(
        driver_url,
        pool_size=4,
        max_overflow=4,
        connect_args=args,
        isolation_level="REPEATABLE READ",
    )

    # The driver runs the write connections in autocommit and the transaction is begun here,
    # BEGIN and the lock in one round trip (psycopg would send its own BEGIN first): every
    # round trip under the store's write lock is one all other writers wait for.
    @event.listens_for(write, "connect")
    def _driver_autocommit(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.autocommit = True

    @event.listens_for(write, "begin")
    def _take_write_lock(conn: Any) -> None:
        sql = f"BEGIN; SELECT pg_advisory_xact_lock({PG_WRITE_LOCK})"
        carried: FirstRead | None = getattr(_CARRIED, "read", None)
        _CARRIED.read = None
        if conn.dispatch.before_cursor_execute:
            conn.exec_driver_sql(sql)  # someone watches the statements: let them see it
            return
        # Straight to the driver: SQLAlchemy's statement machinery is Python time under the
        # lock that every other writer waits out (#12).
        driver = conn.connection.driver_connection
        form = carried.compile(conn) if carried is not None else None
        with through_driver(write, driver, sql):
            if form is None or carried is None:
                driver.execute(sql)
                return
            # The write's first read rides with BEGIN and the lock: the server answers it
            # as soon as the lock is granted, one round trip less under the lock (#41).
            with driver.pipeline():
                driver.execute("BEGIN")
                driver.execute(f"SELECT pg_advisory_xact_lock({PG_WRITE_LOCK})")
                cursor = driver.execute(*form)
            carried.row = cursor.fetchone()

    for engine in (write, read):
        _watch_answers(engine)
        event.listen(engine, "checkout", _drop_if_closed_by_server)
    return write, read


class FirstRead:
    """A read that a write transaction's BEGIN carries to the server (PostgreSQL): `compile`
    gives its SQL and parameters for the driver, or None to send it later on its own;
    `row` is its answer once it went with BEGIN, else None."""

    def __init__(self, compile: Callable[[Any], tuple[str, dict[str, Any]] | None]) -> None:
        self.compile = compile
        self.row: Any = None


_CARRIED = threading.local()


@contextlib.contextmanager
def carried_by_begin(read: FirstRead) -> Iterator[FirstRead]:
    """Around `write_engine.begin()`: the BEGIN this thread sends next carries `read`."""
    _CARRIED.read = read
    try:
        yield read
    finally:
        _CARRIED.read = None


def _drop_if_closed_by_server(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    """At checkout: hand out no connection the server has closed (restarted, or it ended the
    session), without a round trip.

    A pooled connection between transactions has nothing to read; if its socket is
    readable the server has sent the end of the session (or closed it), so the pool opens a
    new one. This replaces a `SELECT 1` ping per checkout (a round trip before every read
    and write). A server that is unreachable without closing the socket is found by the
    first statement (`server_away`) and by the answer watchdog, as before.
    """
    if dbapi_connection.closed or dbapi_connection.broken:
        raise sa_exc.DisconnectionError("the connection was closed")
    try:
        readable, _, _ = select.select([dbapi_connection.fileno()], [], [], 0)
    except (OSError, ValueError):
        raise sa_exc.DisconnectionError("the connection's socket is gone") from None
    if readable:
        raise sa_exc.DisconnectionError("the server closed the connection")


def _watch_answers(engine: Engine) -> None:
    dog = AnswerWatchdog(PG_ANSWER_LIMIT_S, lambda connection: connection.fileno())
    _WATCHDOGS[engine] = dog

    @event.listens_for(engine, "connect")
    def _track(dbapi_connection: Any, _record: Any) -> None:
        dog.track(dbapi_connection)

    @event.listens_for(engine, "after_cursor_execute")
    def _answered(*_args: Any) -> None:
        dog.answered()


@contextlib.contextmanager
def through_driver(engine: Engine, driver: Any, statement: str | None = None) -> Iterator[None]:
    """Around statements sent straight to psycopg, past SQLAlchemy (#12): the driver's
    errors take SQLAlchemy's shape, so `translated` treats them as any other, and the answer
    watchdog hears that the server answered."""
    try:
        yield
    except driver.Error as exc:
        raise sa_exc.DBAPIError.instance(statement, None, exc, driver.Error) from None
    dog = _WATCHDOGS.get(engine)
    if dog is not None:
        dog.answered()


def watchdog_of(engine: Engine) -> AnswerWatchdog | None:
    """The answer watchdog of a PostgreSQL engine (None for SQLite)."""
    return _WATCHDOGS.get(engine)


@contextlib.contextmanager
def answer_watch(engine: Engine, action: str) -> Iterator[None]:
    """Around one store transaction on `engine`: a server that stops answering is cut off
    after `PG_ANSWER_LIMIT_S` and the caller gets `ServerUnavailableError` naming that."""
    dog = _WATCHDOGS.get(engine)
    if dog is None:
        yield
        return
    try:
        with dog.waiting():
            yield
    except ServerUnavailableError:
        if not dog.recently_cut():
            raise
        raise ServerUnavailableError(
            f"{action}: the database server did not answer for {dog.limit:g} s "
            "(stopped or overloaded)"
        ) from None


def _configure_sqlite(engine: Engine, *, begin: str) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA synchronous=NORMAL")
        # Overwrite freed pages with zeros so deleted ciphertext does not linger (R19).
        cur.execute("PRAGMA secure_delete=ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql(begin)


@contextlib.contextmanager
def translated(action: str) -> Iterator[None]:
    """Translate SQLAlchemy / sqlite3 exceptions raised while doing `action`.

    Our own errors pass through untouched.
    """
    try:
        yield
    except MemoryCenterError:
        raise
    except sa_exc.DBAPIError as exc:
        if lock_wait_ran_out(exc):
            raise ServerUnavailableError(
                f"{action}: the store's write lock was not granted within "
                f"{PG_WRITE_LOCK_WAIT_S:g} s (another device holds it, or the server is overloaded)"
            ) from None
        if login_refused(exc):
            raise _login_refused(action, exc) from None
        if server_away(exc):
            raise ServerUnavailableError(
                f"{action}: the database server is not reachable: {_msg(exc)}"
            ) from None
        if isinstance(exc, sa_exc.OperationalError):
            raise _operational(action, exc) from None
        if isinstance(exc, sa_exc.IntegrityError):
            raise IntegrityError(
                f"{action}: the database refused the change: {_msg(exc)}"
            ) from None
        raise _not_permitted_or_error(action, exc) from None
    except sqlite3.DatabaseError as exc:
        raise _database_error(action, exc) from None


# What libpq says when the server answered and refused the login (connection errors carry
# no SQLSTATE in psycopg, so the server's message is all there is to go by).
_LOGIN_REFUSED = (
    "password authentication failed",
    "authentication failed for user",
    "no pg_hba.conf entry",
    "does not exist",  # FATAL: role "x" / database "x" does not exist
    "password is missing",
    "no password supplied",
    "permission denied for database",
    "is not permitted to log in",  # a team login disabled at removal (#41)
)


def _login_refused(action: str, exc: sa_exc.DBAPIError) -> AuthenticationFailedError:
    if "is not permitted to log in" in str(exc):
        return AuthenticationFailedError(
            f"{action}: the database server refused this device's login: it was disabled "
            "because its member was removed from the store (or its invitation was "
            "cancelled); ask a member for a new invitation"
        )
    return AuthenticationFailedError(
        f"{action}: the database server refused the login (check the user and password in "
        f"the database URL): {_msg(exc)}"
    )


def _not_permitted_or_error(action: str, exc: sa_exc.DBAPIError) -> MemoryCenterError:
    if str(getattr(exc.orig, "sqlstate", "") or "") == "42501":
        # Row-level security or a privilege of the store's own rules (#41): this device's
        # login may not write that row; retrying does not help.
        return NotPermittedError(
            f"{action}: the database server refused the change for this device's login: {_msg(exc)}"
        )
    return _database_error(action, exc)


def login_refused(exc: BaseException) -> bool:
    """True when the PostgreSQL server refused the login (SQLSTATE class 28, or libpq's
    message for it): waiting and retrying does not help, unlike an unreachable server."""
    orig = getattr(exc, "orig", None)
    if orig is None or not type(orig).__module__.startswith("psycopg"):
        return False
    state = getattr(orig, "sqlstate", None)
    if isinstance(state, str):
        return state.startswith("28") or state == "3D000"
    text = str(orig)
    # "fe_sendauth": libpq's own line when the server asks for a password the URL lacks.
    asked = "FATAL" in text or "fe_sendauth" in text
    return asked and any(phrase in text for phrase in _LOGIN_REFUSED)


def server_away(exc: BaseException) -> bool:
    """True when a driver error means the PostgreSQL server cannot be reached now.

    Connection failures carry no SQLSTATE (refused, timed out) or one of class 08
    (connection exception) or 57P (the server shutting down or crashing); a dropped
    connection is also marked invalidated by SQLAlchemy.
    """
    if getattr(exc, "connection_invalidated", False):
        return True
    orig = getattr(exc, "orig", None)
    if orig is None or not type(orig).__module__.startswith("psycopg"):
        return False
    import psycopg

    if isinstance(orig, psycopg.InterfaceError):
        return True
    state = getattr(orig, "sqlstate", None)
    if isinstance(orig, psycopg.OperationalError) and state is None:
        return True
    return isinstance(state, str) and (state.startswith("08") or state.startswith("57P"))


def lock_wait_ran_out(exc: BaseException) -> bool:
    """True when a PostgreSQL lock wait (the store's write lock) ran past its limit."""
    orig = getattr(exc, "orig", None)
    return getattr(orig, "sqlstate", None) == PG_LOCK_NOT_AVAILABLE


def _database_error(action: str, exc: BaseException) -> MemoryCenterError:
    text = _msg(exc)
    if "append-only" in text or "never deleted" in text:
        # PostgreSQL's trigger functions raise plain exceptions, not constraint errors.
        return IntegrityError(f"{action}: {text.splitlines()[0]}")
    return ResourceUnavailableError(f"{action}: database error: {text}")


def _operational(action: str, exc: sa_exc.OperationalError) -> MemoryCenterError:
    text = _msg(exc)
    if "connection" in text and ("refused" in text or "timeout" in text or "closed" in text):
        return ResourceUnavailableError(f"{action}: the database server is not reachable: {text}")
    if "locked" in text or "busy" in text:
        return ResourceUnavailableError(f"{action}: the store is busy (locked by another process)")
    if "disk" in text or "full" in text or "readonly" in text or "unable to open" in text:
        return ResourceUnavailableError(f"{action}: the store file is not writable: {text}")
    if "append-only" in text or "never deleted" in text:
        return IntegrityError(f"{action}: {text}")
    return ResourceUnavailableError(f"{action}: database error: {text}")


def _msg(exc: BaseException) -> str:
    # The driver's first line: PostgreSQL adds hint lines ("Is the server running ...?")
    # that would break the one-line error every command promises.
    orig = getattr(exc, "orig", None)
    text = str(orig if orig is not None else exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
