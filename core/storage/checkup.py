"""`verify`: everything the store can check about itself, first failure named (R3, #10).

In order: SQLite's own integrity check (a damaged page is found before anything reads
it), the hash chain with every event payload, every other sealed column in the registry
(`sealed.py`), each memory row's metadata binding and scope index rows, and the sealed
files under the data directory. The first failure names table, row and field.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, func, select
from sqlalchemy import exc as sa_exc

from core.crypto.codec import Codec
from core.errors import IntegrityError, KeyUnavailableError
from core.model.enums import MemoryKind, MemoryStatus, Sensitivity, TrustLevel
from core.model.records import VerifyFailure, VerifyReport
from core.model.scope import Scope
from core.storage import binding, event_log, governed, journal, memories, snapshots
from core.storage import schema as s
from core.storage.engine import chunks
from core.storage.sealed import SEALED, SEALED_FILES, SealedColumn
from core.storage.store import REWOUND, revision_of

BATCH = 1000
# Written by the catalog (core/retrieval/catalog.py) before a purge commits, removed once
# the index files are rewritten; named here because storage cannot import retrieval.
PURGE_JOURNAL = "purge-pending.json"


@dataclass
class _Tally:
    sealed: int = 0
    records: int = 0
    unreadable: int = 0


def verify_store(conn: Connection, codec: Codec, data_dir: Path | None) -> VerifyReport:
    """Check everything; return counts and the first failure."""
    sqlite = sqlite_check(conn)
    if sqlite not in ("ok", NOT_SQLITE):
        broken = VerifyFailure(None, None, "sqlite", "(file)", sqlite, "pages")
        return VerifyReport(False, 0, 0, 0, broken, sqlite=sqlite)
    decided: dict[str, str] = {}
    logged: dict[str, dict[str, Any]] = {}
    try:
        chain = event_log.verify(conn, codec, statuses=decided, decisions=logged)
    except (sa_exc.DatabaseError, sqlite3.DatabaseError) as exc:
        unreadable = VerifyFailure(None, None, "events", "(log)", f"unreadable: {exc}", "")
        return VerifyReport(False, 0, 0, 0, unreadable, sqlite=sqlite)
    if not chain.ok:
        return replace(chain, sqlite=sqlite)
    tally = _Tally()
    failure: VerifyFailure | None = _first(_sealed_columns(conn, codec, tally))
    failure = failure or _first(_records(conn, codec, tally, decided))
    failure = failure or _first(_settings(conn, codec))
    failure = failure or _first(_governed(conn, codec))
    failure = failure or _first(_journal(conn, codec))
    failure = failure or _first(_decisions(conn, logged))
    failure = failure or _first(_feed(conn))
    failure = failure or _first(_sources(conn, logged))
    failure = failure or _first(_snapshots(conn, codec))
    failure = failure or _first(_revisions(conn, logged))
    failure = failure or _first(_sealed_files(codec, data_dir, tally))
    return replace(
        chain,
        ok=failure is None,
        first_failure=failure,
        sealed_values=tally.sealed,
        records_checked=tally.records,
        unreadable_values=chain.unreadable_values + tally.unreadable,
        sqlite=sqlite,
    )


NOT_SQLITE = "not a SQLite store"


def sqlite_check(conn: Connection) -> str:
    """SQLite's integrity check on the store file: "ok" or its first finding, one line
    (`NOT_SQLITE` on a server store, which has no such check)."""
    if conn.dialect.name != "sqlite":
        return NOT_SQLITE
    try:
        rows = conn.exec_driver_sql("PRAGMA integrity_check(1)").all()
    except (sa_exc.DatabaseError, sqlite3.DatabaseError) as exc:
        orig = getattr(exc, "orig", None) or exc
        return f"SQLite integrity check failed: {orig}"
    first = str(rows[0][0]) if rows else "ok"
    return "ok" if first == "ok" else f"SQLite integrity check: {first}".replace("\n", " ")


def _first(failures: Iterator[VerifyFailure]) -> VerifyFailure | None:
    return next(failures, None)


def _sealed_columns(conn: Connection, codec: Codec, tally: _Tally) -> Iterator[VerifyFailure]:
    for column in SEALED:
        if column.table is s.event_payloads:
            continue  # opened, and checked against the chain's commitment, by the walk
        for row in column.rows(conn, BATCH):
            if event_log.others_private(codec, row[column.column]):
                tally.unreadable += 1  # another member's private row: theirs to verify
                continue
            problem = _open_problem(codec, column, row)
            if problem:
                yield VerifyFailure(
                    None, None, column.table.name, _row_id(column, row), problem, column.column
                )
                return
            tally.sealed += 1


def _open_problem(codec: Codec, column: SealedColumn, row: dict[str, Any]) -> str | None:
    try:
        codec.open(row[column.column], column.aad(row))
    except (IntegrityError, KeyUnavailableError) as exc:
        return exc.message
    return None


def _row_id(column: SealedColumn, row: dict[str, Any]) -> str:
    return "/".join(str(row[c]) for c in column.pk)


def _records(
    conn: Connection, codec: Codec, tally: _Tally, decided: dict[str, str]
) -> Iterator[VerifyFailure]:
    """Each memory row: binding, readable clear values, scope rows matching scope_json, and
    the status the hash-chained log last decided for it (a rolled-back row fails here)."""
    last = ""
    seen: set[str] = set()
    while True:
        rows = (
            conn.execute(
                select(s.memories)
                .where(s.memories.c.id > last)
                .order_by(s.memories.c.id)
                .limit(BATCH)
            )
            .mappings()
            .all()
        )
        if not rows:
            break
        scopes = _scope_rows(conn, [str(r["id"]) for r in rows])
        current = _current_revisions(conn, [str(r["id"]) for r in rows])
        forged = _provenance(conn, codec, [str(r["id"]) for r in rows])
        for row in rows:
            field, problem = _record_problem(codec, row, scopes.get(str(row["id"]), set()))
            if not problem:
                field, problem = _decided_problem(row, decided)
            if not problem and str(row["id"]) in forged:
                field, problem = forged[str(row["id"])]
            here = (str(row["id"]), int(row["revision"]))
            if not problem and here not in current:
                field, problem = "revision", "the record's current revision row is missing"
            if not problem and not current[here] and row["status"] != MemoryStatus.DELETED.value:
                field, problem = "content", memories.MISSING_CONTENT
            if problem:
                yield VerifyFailure(None, None, "memories", str(row["id"]), problem, field)
                return
            seen.add(str(row["id"]))
            tally.records += 1
        last = str(rows[-1]["id"])
    for memory_id in sorted(decided.keys() - seen):
        yield VerifyFailure(
            None,
            None,
            "memories",
            memory_id,
            "the log records decisions about this memory, but its row is gone "
            "(deleted outside Memory Center)",
            "id",
        )
        return


def _provenance(conn: Connection, codec: Codec, ids: list[str]) -> dict[str, tuple[str, str]]:
    """On a team store, the rows of `ids` whose provenance does not hold, with why: no
    recorded decision, or a private row not sealed with its member's key (#41)."""
    if not codec.shared:
        return {}
    rows = conn.execute(memories.record_query().where(s.memories.c.id.in_(ids))).mappings()
    found = ((str(r["id"]), memories.provenance_problem(r, codec)) for r in rows)
    return {memory_id: problem for memory_id, problem in found if problem is not None}


def _decided_problem(row: Any, decided: dict[str, str]) -> tuple[str, str | None]:
    recorded = decided.get(str(row["id"]))
    if recorded is None:
        return "status", "no decision about this memory is recorded in the log"
    if recorded != row["status"]:
        return "status", (
            f"status {row['status']!r} differs from the last decision in the hash-chained "
            f"log ({recorded!r}): the row was rolled back or changed outside Memory Center"
        )
    return "", None


def _record_problem(
    codec: Codec, row: Any, scope_rows: set[tuple[str, str]]
) -> tuple[str, str | None]:
    wrong = binding.problem(codec, row)
    if wrong:
        return "binding", wrong
    try:
        scope = Scope.from_json(row["scope_json"])
        MemoryKind(row["kind"]), MemoryStatus(row["status"])
        TrustLevel(row["source_trust"]), Sensitivity(row["sensitivity"])
        json.loads(row["flags_json"])
    except (ValueError, TypeError, IntegrityError) as exc:
        return "metadata", f"unreadable clear metadata: {exc}"
    except Exception as exc:  # an invalid scope raises our InvalidInputError
        return "scope_json", f"unreadable scope: {exc}"
    if scope_rows != set(scope.items_):
        return "memory_scopes", (
            f"the scope index rows {sorted(scope_rows)} do not match the record's scope {scope}"
        )
    return "", None


def _current_revisions(conn: Connection, ids: list[str]) -> dict[tuple[str, int], bool]:
    """(memory id, revision) of every revision row -> whether it holds content."""
    r = s.memory_revisions.c
    rows: list[Any] = list(
        conn.execute(
            select(r.memory_id, r.revision, r.content.is_not(None)).where(r.memory_id.in_(ids))
        ).all()
    )
    return {(str(mid), int(rev)): bool(has) for mid, rev, has in rows}


def _scope_rows(conn: Connection, ids: list[str]) -> dict[str, set[tuple[str, str]]]:
    out: dict[str, set[tuple[str, str]]] = {}
    for mid, key, value in conn.execute(
        select(s.memory_scopes.c.memory_id, s.memory_scopes.c.key, s.memory_scopes.c.value).where(
            s.memory_scopes.c.memory_id.in_(ids)
        )
    ).all():
        out.setdefault(str(mid), set()).add((str(key), str(value)))
    return out


def _settings(conn: Connection, codec: Codec) -> Iterator[VerifyFailure]:
    wrong = binding.settings_problem(conn, codec)
    if wrong:
        yield VerifyFailure(None, None, "settings", "(all)", wrong, "value_json")


def _journal(conn: Connection, codec: Codec) -> Iterator[VerifyFailure]:
    """Transition journal entries against their MAC (#39): undo trusts them."""
    for row_id, problem in journal.damaged(conn, codec):
        yield VerifyFailure(None, None, "transitions", row_id, problem, "mac")


def _governed(conn: Connection, codec: Codec) -> Iterator[VerifyFailure]:
    """Fences, opt-outs, exclusions and tombstones against their MAC'd record."""
    for damage in governed.differences(conn, codec):
        yield VerifyFailure(None, None, damage.table, damage.row_id, damage.problem, damage.field)


# A decision row's clear fields and the name its `memory_decision` event gives each.
_DECISION_FIELDS = (
    ("memory_id", "memory_id"),
    ("action", "action"),
    ("from_status", "from"),
    ("to_status", "to"),
    ("actor", "actor"),
    ("policy_version", "policy_version"),
    ("event_id", "event_id"),
)


def _decisions(conn: Connection, logged: dict[str, dict[str, Any]]) -> Iterator[VerifyFailure]:
    """Each decision row against the hash-chained event that announced it (#38): an edited
    field, a row added without an event, and a row deleted after its event are named."""
    seen: set[str] = set()
    columns = [s.decisions.c.id, *(s.decisions.c[name] for name, _ in _DECISION_FIELDS)]
    last = ""
    while True:
        rows = (
            conn.execute(
                select(*columns)
                .where(s.decisions.c.id > last)
                .order_by(s.decisions.c.id)
                .limit(BATCH)
            )
            .mappings()
            .all()
        )
        if not rows:
            break
        for row in rows:
            decision_id = str(row["id"])
            seen.add(decision_id)
            event = logged.get(decision_id)
            if event is None:
                yield VerifyFailure(
                    None,
                    None,
                    "decisions",
                    decision_id,
                    "no memory_decision event in the hash-chained log announces this decision: "
                    "added outside Memory Center",
                    "(row)",
                )
                return
            for column, key in _DECISION_FIELDS:
                if row[column] != event.get(key):
                    yield VerifyFailure(
                        None,
                        None,
                        "decisions",
                        decision_id,
                        f"{column} is {row[column]!r} but the hash-chained log recorded "
                        f"{event.get(key)!r}: changed outside Memory Center",
                        column,
                    )
                    return
        last = str(rows[-1]["id"])
    for decision_id in sorted(logged.keys() - seen):
        yield VerifyFailure(
            None,
            None,
            "decisions",
            decision_id,
            "the hash-chained log records this decision, but its row is gone (deleted outside "
            "Memory Center)",
            "(row)",
        )
        return


def _sources(conn: Connection, logged: dict[str, dict[str, Any]]) -> Iterator[VerifyFailure]:
    """Each memory's source links against those its decision events announced (#38)."""
    announced = memories.announced_links(logged.values())
    if not announced:
        return
    have: dict[str, set[str]] = {}
    for part in chunks(sorted(announced)):
        rows: list[Any] = list(
            conn.execute(
                select(s.memory_sources.c.memory_id, s.memory_sources.c.event_id).where(
                    s.memory_sources.c.memory_id.in_(part)
                )
            ).all()
        )
        for mid, eid in rows:
            have.setdefault(str(mid), set()).add(str(eid))
    for memory_id in sorted(announced):
        stored, said = have.get(memory_id, set()), announced[memory_id]
        for event_id in sorted(stored - said):
            yield VerifyFailure(
                None,
                None,
                "memory_sources",
                f"{memory_id}/{event_id}",
                "no decision in the hash-chained log announces this source link: added "
                "outside Memory Center",
                "(row)",
            )
            return
        for event_id in sorted(said - stored):
            yield VerifyFailure(
                None,
                None,
                "memory_sources",
                f"{memory_id}/{event_id}",
                "the hash-chained log announces this source link, but its row is gone "
                "(deleted outside Memory Center)",
                "(row)",
            )
            return


def _revisions(conn: Connection, logged: dict[str, dict[str, Any]]) -> Iterator[VerifyFailure]:
    """Each announced revision row's scope, time and actor against its decision event
    (#38); an announced revision whose row is gone is named too."""
    announced = memories.announced_revisions(logged.values())
    r = s.memory_revisions.c
    for part in chunks(sorted(announced)):
        rows: list[Any] = list(
            conn.execute(
                select(r.memory_id, r.revision, r.ts, r.actor, r.scope_json).where(
                    r.memory_id.in_(part)
                )
            )
            .mappings()
            .all()
        )
        have = {(str(row["memory_id"]), int(row["revision"])): row for row in rows}
        for memory_id in part:
            for revision, said in sorted(announced[memory_id].items()):
                row = have.get((memory_id, revision))
                where = f"{memory_id}/{revision}"
                if row is None:
                    yield VerifyFailure(
                        None,
                        None,
                        "memory_revisions",
                        where,
                        "the hash-chained log announces this revision, but its row is gone "
                        "(deleted outside Memory Center)",
                        "(row)",
                    )
                    return
                for name in ("ts", "actor", "scope_json"):
                    if row[name] != said.get(name):
                        yield VerifyFailure(
                            None,
                            None,
                            "memory_revisions",
                            where,
                            f"{name} is {row[name]!r} but the hash-chained log recorded "
                            f"{said.get(name)!r}: changed outside Memory Center",
                            name,
                        )
                        return


def _snapshots(conn: Connection, codec: Codec) -> Iterator[VerifyFailure]:
    """Each snapshot's clear columns and lineage rows against its sealed body (#38)."""
    last = ""
    while True:
        rows = (
            conn.execute(
                select(s.snapshots)
                .where(s.snapshots.c.id > last)
                .order_by(s.snapshots.c.id)
                .limit(BATCH)
            )
            .mappings()
            .all()
        )
        if not rows:
            return
        items = snapshots.item_rows(conn, [str(r["id"]) for r in rows])
        for row in rows:
            sid = str(row["id"])
            if event_log.others_private(codec, row["body"]):
                continue
            try:
                body = codec.open_json(row["body"], snapshots.body_aad(sid))
            except (IntegrityError, KeyUnavailableError):
                continue  # named by the sealed-column pass
            if snapshots.CLEAR not in body:
                continue  # written before #38: nothing sealed to compare with
            for field, problem in snapshots.clear_problems(row, body):
                yield VerifyFailure(None, None, "snapshots", sid, problem, field)
                return
            said = {(str(i["id"]), int(i["revision"])) for i in body.get("injected", [])}
            stored = items.get(sid, set())
            for memory_id, _rev in sorted(stored ^ said):
                how = "added" if (memory_id, _rev) in stored else "deleted"
                yield VerifyFailure(
                    None,
                    None,
                    "snapshot_items",
                    f"{sid}/{memory_id}",
                    f"the lineage row was {how} outside Memory Center (the sealed snapshot "
                    "says otherwise)",
                    "(row)",
                )
                return
        last = str(rows[-1]["id"])


def _feed(conn: Connection) -> Iterator[VerifyFailure]:
    """The store revision is never behind the change feed (#38)."""
    revision = revision_of(conn)
    feed = conn.execute(select(func.max(s.changes.c.revision))).scalar_one_or_none()
    if feed is not None and int(feed) > revision:
        yield VerifyFailure(
            None, None, "store_revision", "1", REWOUND.format(revision, feed), "revision"
        )


def _sealed_files(codec: Codec, data_dir: Path | None, tally: _Tally) -> Iterator[VerifyFailure]:
    if data_dir is None:
        return
    journal = data_dir / "index" / PURGE_JOURNAL
    if journal.exists():
        yield VerifyFailure(
            None,
            None,
            "index_files",
            f"index/{PURGE_JOURNAL}",
            "a purge committed but the index files were not yet rewritten without it "
            "(opening the store finishes it)",
            "file",
        )
        return
    for sealed in SEALED_FILES:
        path = data_dir / sealed.relative_path
        if not path.exists():
            continue
        try:
            # In pieces: a 100k vector file is ~200 MB, and verify need not hold it (#13).
            with path.open("rb") as handle:
                codec.check_from(handle, os.fstat(handle.fileno()).st_size, sealed.aad())
        except (IntegrityError, KeyUnavailableError, OSError) as exc:
            problem = getattr(exc, "message", None) or str(exc)
            if sealed.derived:
                problem += " (a derived file: `memory-center index rebuild` recreates it)"
            yield VerifyFailure(
                None, None, sealed.table, sealed.relative_path, problem, sealed.field
            )
            return
        tally.sealed += 1
