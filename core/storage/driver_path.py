"""Queued writes on their way to the database: inserts grouped into one executemany per
statement, and on PostgreSQL sent straight to the driver in a pipeline when SQLAlchemy has
nothing to add at run time (#12, #13).

The write transaction (`WriteTx` in store.py) queues its statements and sends them through
this module at commit; a write's prologue reads through `fetch_one`.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, cast

from sqlalchemy import Connection, Executable, Insert, Integer, String, Table, text
from sqlalchemy import exc as sa_exc

from core.storage import schema as s
from core.storage.engine import through_driver


def grouped(
    queued: list[tuple[Executable, list[dict[str, Any]] | None]],
) -> list[tuple[Executable, list[dict[str, Any]] | None]]:
    """The queue with each run of plain inserts merged: the rows of one statement go in one
    executemany (a batch of remembers queues the same seven inserts per item, #13), parent
    tables before their children's so foreign keys hold. Other writes keep their place."""
    out: list[tuple[Executable, list[dict[str, Any]] | None]] = []
    run: dict[tuple[Executable, tuple[str, ...]], list[dict[str, Any]]] = {}

    def close() -> None:
        ranked = sorted(run.items(), key=lambda item: _TABLE_RANK[cast(Insert, item[0][0]).table])
        out.extend((statement, rows) for (statement, _keys), rows in ranked)
        run.clear()

    for statement, rows in queued:
        if rows and _plain_insert(statement):
            run.setdefault((statement, tuple(rows[0])), []).extend(rows)
        else:
            close()
            out.append((statement, rows))
    close()
    return out


def send_in_pipeline(
    conn: Connection, cursor: Any, statement: Executable, rows: list[dict[str, Any]] | None
) -> None:
    """One queued write inside a psycopg pipeline: straight to the driver when its SQL and
    parameters need nothing from SQLAlchemy at run time (compiled once, no type processing),
    else through SQLAlchemy. A statement sent through SQLAlchemy in a pipeline cost ~47 us of
    Python against ~15 us through the cursor; a single-event append sends seven (#12).
    Whoever listens for statements (`before_cursor_execute`) gets SQLAlchemy's path, so it
    sees every one."""
    form = driver_form(conn, statement, rows) if rows and _unobserved(conn) else None
    if form is None:
        conn.execute(statement, rows)
        return
    sql, fixed = form
    params = [{**fixed, **row} for row in rows or ()]
    if len(params) == 1:
        cursor.execute(sql, params[0])
    else:
        cursor.executemany(sql, params)


def _unobserved(conn: Connection) -> bool:
    return not conn.dispatch.before_cursor_execute


def fetch_one(conn: Connection, statement: Executable, params: dict[str, Any]) -> Any:
    """The one row `statement` returns; on PostgreSQL straight from the driver when it can
    be (see `send_in_pipeline`): the prologue of every write."""
    form = None
    if conn.dialect.name == "postgresql" and _unobserved(conn):
        form = driver_form(conn, statement, [params])
    if form is None:
        return conn.execute(statement, params).one()
    driver: Any = conn.connection.driver_connection
    with through_driver(conn.engine, driver, form[0]):
        row = driver.execute(form[0], {**form[1], **params}).fetchone()
    if row is None:
        raise sa_exc.NoResultFound("No row was found when one was required")
    return row


# Per statement (held weakly: statements hash and compare by identity) and set of row keys:
# its SQL and literal parameters for the driver, or None when it needs SQLAlchemy.
_DRIVER_FORMS: weakref.WeakKeyDictionary[
    Executable, dict[tuple[str, ...], tuple[str, dict[str, Any]] | None]
] = weakref.WeakKeyDictionary()


_DRIVER_LOCK = threading.Lock()


def driver_form(
    conn: Connection, statement: Executable, rows: list[dict[str, Any]]
) -> tuple[str, dict[str, Any]] | None:
    """The SQL text and the literal parameters of `statement` compiled for `conn`'s dialect
    with `rows`' keys, or None when sending it needs SQLAlchemy (a bind processor, a
    parameter rendered at run time, rows with different keys)."""
    keys = tuple(rows[0])
    if any(tuple(row) != keys for row in rows):
        return None
    with _DRIVER_LOCK:
        forms = _DRIVER_FORMS.setdefault(statement, {})
        if keys not in forms:
            forms[keys] = _compile_for_driver(conn, statement, keys)
        return forms[keys]


def _compile_for_driver(
    conn: Connection, statement: Executable, keys: tuple[str, ...]
) -> tuple[str, dict[str, Any]] | None:
    compiled: Any = cast(Any, statement).compile(dialect=conn.dialect, column_keys=list(keys))
    if (
        conn.dialect.paramstyle != "pyformat"
        or compiled.positional
        or getattr(compiled, "literal_execute_params", None)
        or getattr(compiled, "post_compile_params", None)
        # Column defaults computed in Python at execution, and RETURNING, need SQLAlchemy.
        or getattr(compiled, "insert_prefetch", None)
        or getattr(compiled, "update_prefetch", None)
        or getattr(compiled, "effective_returning", None)
        or getattr(compiled, "escaped_bind_names", None)
    ):
        return None
    params = compiled.construct_params({key: None for key in keys}, _check=False)
    processors = getattr(compiled, "_bind_processors", {})
    if any(name in processors for name in params):
        return None
    names = set(compiled.bind_names.values())
    if not set(keys) <= names:
        return None  # a row key the statement does not take: let SQLAlchemy say so
    # A row read straight from the driver must be what SQLAlchemy would have returned:
    # integers and strings come back as they are; other types may be converted.
    if any(not isinstance(column[3], (Integer, String)) for column in compiled._result_columns):
        return None
    fixed = {name: value for name, value in params.items() if name not in keys}
    return str(compiled.string), fixed


def _plain_insert(statement: Executable) -> bool:
    """An insert of given rows into one of our tables (no upsert, no inline values)."""
    return (
        isinstance(statement, Insert)
        and statement._post_values_clause is None
        and not statement._values
        and not statement._multi_values
        and not statement._prefixes
        and statement.table in _TABLE_RANK
    )


def as_unnest(
    statement: Executable, rows: list[dict[str, Any]] | None
) -> tuple[Executable, list[dict[str, Any]] | None]:
    """Many rows of a plain insert as one PostgreSQL statement (`unnest` of one array per
    column): a driver's executemany sends a statement per row, which for a snapshot's 100
    lineage rows cost 3.5-4.4 ms against 0.8-1.1 ms (#12)."""
    if not rows or len(rows) < 2 or not _plain_insert(statement):
        return statement, rows
    unnest, params = _unnest_insert(cast(Insert, statement).table, rows)  # type: ignore[arg-type]
    return unnest, [params]


_INSERTS: dict[Table, Insert] = {}


def insert_into(table: Table) -> Insert:
    """One insert statement per table, so queued inserts into it can be merged."""
    found = _INSERTS.get(table)
    if found is None:
        found = _INSERTS[table] = table.insert()
    return found


# Parents first (`sorted_tables` orders by foreign-key dependency).
_TABLE_RANK: dict[object, int] = {t: i for i, t in enumerate(s.metadata.sorted_tables)}


_UNNEST: dict[tuple[str, tuple[str, ...]], Executable] = {}


def _unnest_insert(table: Table, rows: list[dict[str, Any]]) -> tuple[Executable, dict[str, Any]]:
    """`INSERT ... SELECT * FROM unnest(:c1::type[], ...)` and its one array per column."""
    keys = tuple(rows[0])
    cached = _UNNEST.get((table.name, keys))
    if cached is None:
        from sqlalchemy.dialects import postgresql  # a server store only

        dialect: Any = postgresql.dialect()  # type: ignore[no-untyped-call]
        arrays = ", ".join(
            f"CAST(:{k} AS {table.c[k].type.compile(dialect=dialect)}[])" for k in keys
        )
        cached = text(
            f"INSERT INTO {table.name} ({', '.join(keys)}) SELECT * FROM unnest({arrays})"
        )
        _UNNEST[(table.name, keys)] = cached
    return cached, {k: [row[k] for row in rows] for k in keys}
