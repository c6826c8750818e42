"""The rows that govern behaviour, bound by one keyed MAC (#38, R19, R24, R26).

Deletion fences and their features, session opt-outs, per-session exclusions and
tombstones decide what may be written again and what an agent is shown. Someone with write
access to the database file could otherwise lift a fence, empty its terms, switch a
session's opt-out or insert an exclusion with one statement, and nothing would notice.

So every write to these rows also updates a *record* of them in `store_meta`
(`governed_rows`): the bound fields of every row, in the clear (they are clear in their
tables too; of a fence's sealed embedding only whether it is there: the ciphertext is
bound to its row by its associated data), under one keyed MAC,
the same `Codec.mac` that binds memory rows (`binding.py`; the key is derived from the
fingerprint key, which rotation keeps). The record is the authority: the fence check, the
opt-out and the exclusions read it, not the tables; `verify` compares each table with it
and names table, row and field; a deleted, inserted or edited row is found.

Only the rows a transaction touched are taken from the tables into the record, so a row
forged meanwhile stays forged-and-found instead of being laundered by the next legitimate
write. The first record of a store is announced by a hash-chained event in
`memory-center:governed`; a record that is missing after that, or whose MAC fails, is
damage: `verify` says so, and readers fall back to the tables (reported, never silent).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Connection, select

from core.crypto.codec import Codec
from core.model.enums import EventKind
from core.model.records import SessionInfo
from core.model.scope import Scope
from core.model.sessions import internal_session
from core.storage import event_log
from core.storage import schema as s
from core.storage.damage import Damage
from core.storage.meta import set_meta
from core.storage.store import COMMIT_STEPS, REWOUND, WriteTx

META_KEY = "governed_rows"
SEALED_SESSION = internal_session("governed")
# The session of damage reports (`core.workflows.integrity` writes the others there).
INTEGRITY_SESSION = internal_session("integrity")
SEALED_SCOPE = Scope.of({"agent": "memory-center"})
FENCES = "deletion_fences"
FEATURES = "fence_features"
SESSIONS = "sessions"
EXCLUSIONS = "memory_exclusions"
TOMBSTONES = "tombstones"
TABLES = (FENCES, FEATURES, SESSIONS, EXCLUSIONS, TOMBSTONES)
FENCE_TABLES = (FENCES, FEATURES)
SEP = "\t"
MISMATCH = "the record of governing rows does not match its MAC: changed outside Memory Center"
MISSING = (
    "the record of governing rows is missing although the log says it was made: "
    "removed outside Memory Center"
)

Rows = dict[str, dict[str, dict[str, Any]]]


def _fence(row: Mapping[Any, Any]) -> tuple[str, dict[str, Any]]:
    return str(row["fingerprint"]), {
        "memory_id": row["memory_id"],
        "created_at": row["created_at"],
        "lifted_at": row["lifted_at"],
    }


def _feature(row: Mapping[Any, Any]) -> tuple[str, dict[str, Any]]:
    return str(row["fingerprint"]), {
        "terms_json": row["terms_json"],
        "marks_json": row["marks_json"],
        "embedder": row["embedder"],
        # Present or not: the ciphertext itself is bound to its row by its AAD, and
        # key rotation re-seals it.
        "vector": row["vector"] is not None,
    }


def _session(row: Mapping[Any, Any]) -> tuple[str, dict[str, Any]]:
    return str(row["id"]), {"opted_out": bool(row["opted_out"])}


def _exclusion(row: Mapping[Any, Any]) -> tuple[str, dict[str, Any]]:
    key = f"{row['memory_id']}{SEP}{row['session_id']}"
    return key, {"created_at": row["created_at"], "actor": row["actor"]}


def _tombstone(row: Mapping[Any, Any]) -> tuple[str, dict[str, Any]]:
    return str(row["memory_id"]), {
        "scope_json": row["scope_json"],
        "deleted_at": row["deleted_at"],
        "requested_by": row["requested_by"],
        "purged": bool(row["purged"]),
        "source_event_ids": row["source_event_ids"],
        "cleaned_json": row["cleaned_json"],
    }


@dataclass(frozen=True)
class _Spec:
    table: Any
    shape: Callable[[Mapping[Any, Any]], tuple[str, dict[str, Any]]]
    # The rows recorded: every row, except sessions (only an opted-out one governs).
    recorded: Callable[[Any], Any] | None = None

    def where_key(self, key: str) -> Any:
        c = self.table.c
        if self.table is s.memory_exclusions:
            memory_id, _, session = key.partition(SEP)
            return (c.memory_id == memory_id) & (c.session_id == session)
        return next(iter(self.table.primary_key.columns)) == key


SPECS: dict[str, _Spec] = {
    FENCES: _Spec(s.deletion_fences, _fence),
    FEATURES: _Spec(s.fence_features, _feature),
    SESSIONS: _Spec(s.sessions, _session, lambda t: t.c.opted_out.is_(True)),
    EXCLUSIONS: _Spec(s.memory_exclusions, _exclusion),
    TOMBSTONES: _Spec(s.tombstones, _tombstone),
}


def _columns(spec: _Spec) -> list[Any]:
    if spec.table is s.sessions:
        return [s.sessions.c.id, s.sessions.c.opted_out]
    return list(spec.table.c)


def table_rows(conn: Connection, name: str) -> dict[str, dict[str, Any]]:
    """The recorded shape of every governing row of one table, as the table holds it."""
    spec = SPECS[name]
    query = select(*_columns(spec))
    if spec.recorded is not None:
        query = query.where(spec.recorded(spec.table))
    return dict(spec.shape(r) for r in conn.execute(query).mappings())


def _one_row(conn: Connection, name: str, key: str) -> dict[str, Any] | None:
    spec = SPECS[name]
    row = conn.execute(select(*_columns(spec)).where(spec.where_key(key))).mappings().first()
    if row is None:
        return None
    _, shaped = spec.shape(row)
    if name == SESSIONS and not shaped["opted_out"]:
        return None
    return shaped


def _message(rows: Rows) -> bytes:
    canonical = json.dumps(rows, sort_keys=True, separators=(",", ":"))
    return b"governed_rows\x1f" + canonical.encode("utf-8", "surrogatepass")


@dataclass(frozen=True)
class Record:
    """The record as read: its rows when it verifies, else None, and what is wrong."""

    rows: Rows | None
    problem: str | None
    stored: str | None = None

    @property
    def trusted(self) -> bool:
        return self.rows is not None


def read(conn: Connection, codec: Codec) -> Record:
    """The record of governing rows, checked against its MAC."""
    stored = conn.execute(
        select(s.store_meta.c.value).where(s.store_meta.c.key == META_KEY)
    ).scalar_one_or_none()
    if stored is None:
        return Record(None, MISSING if was_made(conn) else None)
    return _parse(codec, str(stored))


_CACHE_LOCK = threading.Lock()
_CACHE: dict[tuple[int, str], Record] = {}


def _parse(codec: Codec, stored: str) -> Record:
    key = (id(codec), hashlib.sha256(stored.encode("utf-8", "surrogatepass")).hexdigest())
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
    if hit is not None:
        return hit
    try:
        value = json.loads(stored)
        rows = value["rows"]
        ok = isinstance(rows, dict) and codec.mac_ok(_message(rows), value.get("mac"))
    except (ValueError, TypeError, KeyError, AttributeError):
        ok, rows = False, None
    record = Record(rows if ok else None, None if ok else MISMATCH, stored)
    with _CACHE_LOCK:
        if len(_CACHE) > 16:
            _CACHE.clear()
        _CACHE[key] = record
    return record


def was_made(conn: Connection) -> bool:
    """True when the log announces that a record of governing rows was made."""
    found = conn.execute(
        select(s.events.c.id).where(s.events.c.session_id == SEALED_SESSION).limit(1)
    ).first()
    return found is not None


def note(tx: WriteTx, table: str, key: str) -> None:
    """This transaction changed (or removed) one governing row: record it at commit."""
    tx.governed_keys.add((table, key))


def reseal(tx: WriteTx) -> None:
    """Take the rows this transaction touched into the record and MAC it again.

    Called by `Store.write` before commit when `note` was called. A record that does not
    verify is rebuilt from the tables (its damage was, and stays, visible in the log and
    `verify` until then); a store without one yet records every row it holds now.
    """
    if not tx.governed_keys:
        return
    conn = tx.conn
    current = read(conn, tx.codec)
    if current.rows is None:
        rows: Rows = {name: table_rows(conn, name) for name in TABLES}
    else:
        rows = {name: dict(current.rows.get(name, {})) for name in TABLES}
        for table, key in sorted(tx.governed_keys):
            shaped = _one_row(conn, table, key)
            if shaped is None:
                rows[table].pop(key, None)
            else:
                rows[table][key] = shaped
    tx.governed_keys.clear()
    value = json.dumps({"mac": tx.codec.mac(_message(rows)), "rows": rows}, sort_keys=True)
    set_meta(conn, META_KEY, value)
    if current.problem:
        # Rebuilt from the tables: say so in the log, where `status` counts damage.
        event_log.system_event(
            tx,
            INTEGRITY_SESSION,
            SEALED_SCOPE,
            EventKind.SECURITY,
            f"damaged row excluded from every read: store_meta {META_KEY}",
            {
                "finding_types": ["damaged_row"],
                "action": "rebuilt from the tables",
                "table": "store_meta",
                "row_id": META_KEY,
                "field": "value",
                "problem": current.problem,
                "memory_id": None,
            },
        )
    if not was_made(conn):
        event_log.system_event(
            tx,
            SEALED_SESSION,
            SEALED_SCOPE,
            EventKind.SECURITY,
            "the rows that govern behaviour (fences, opt-outs, exclusions, tombstones) "
            "are bound from now on",
            {"finding_types": [], "action": "bound", "table": META_KEY},
        )


def differences(conn: Connection, codec: Codec, tables: tuple[str, ...] = TABLES) -> list[Damage]:
    """Every governing row whose table differs from the verified record (table, row, field).

    A record that is missing (after the log announced it) or fails its MAC is one damage
    naming `store_meta governed_rows`.
    """
    record = read(conn, codec)
    if record.problem:
        return [Damage("store_meta", META_KEY, "value", record.problem)]
    if record.rows is None:
        return []  # a store that never wrote a governing row since this version
    out: list[Damage] = []
    for name in tables:
        want = record.rows.get(name, {})
        have = table_rows(conn, name)
        for key in sorted(want.keys() | have.keys()):
            out.extend(_row_differences(name, key, want.get(key), have.get(key)))
    return out


def _row_differences(
    table: str, key: str, want: dict[str, Any] | None, have: dict[str, Any] | None
) -> list[Damage]:
    shown = key.replace(SEP, "/")
    if have is None and want is not None:
        if table == SESSIONS:
            return [
                Damage(
                    table,
                    shown,
                    "opted_out",
                    "the session's opt-out was switched off "
                    "outside Memory Center (the record says it is opted out)",
                )
            ]
        return [Damage(table, shown, "(row)", "the row was deleted outside Memory Center")]
    if want is None and have is not None:
        field_name = "opted_out" if table == SESSIONS else "(row)"
        return [Damage(table, shown, field_name, "the row was added outside Memory Center")]
    assert want is not None and have is not None
    return [
        Damage(
            table,
            shown,
            name,
            f"{name} is {have.get(name)!r} but the record says {want.get(name)!r}: "
            "changed outside Memory Center",
        )
        for name in sorted(want.keys() | have.keys())
        if want.get(name) != have.get(name)
    ]


def recorded_or_table(conn: Connection, codec: Codec, name: str) -> dict[str, dict[str, Any]]:
    """The rows that decide behaviour: the verified record's, else the table's."""
    record = read(conn, codec)
    if record.rows is not None:
        return dict(record.rows.get(name, {}))
    return table_rows(conn, name)


def opted_out(conn: Connection, codec: Codec, session: str, table_says: bool) -> bool:
    """Whether a session opted out, as the verified record says (`table_says` when the
    store has no trusted record)."""
    record = read(conn, codec)
    if record.rows is None:
        return table_says
    row = record.rows.get(SESSIONS, {}).get(session)
    return bool(row and row.get("opted_out"))


def excluded(conn: Connection, codec: Codec, session: str) -> frozenset[str] | None:
    """The memories excluded from a session, as the verified record says (None: no
    trusted record, read the table)."""
    record = read(conn, codec)
    if record.rows is None:
        return None
    found = set()
    for key in record.rows.get(EXCLUSIONS, {}):
        memory_id, _, name = key.partition(SEP)
        if name == session:
            found.add(memory_id)
    return frozenset(found)


def session_as_recorded(conn: Connection, codec: Codec, info: SessionInfo) -> SessionInfo:
    """A session as listed, with the opt-out the verified record says."""
    said = opted_out(conn, codec, info.id, info.opted_out)
    return info if said == info.opted_out else replace(info, opted_out=said)


def report(tx: WriteTx, found: list[Damage]) -> None:
    """A security event for each damaged governing row no earlier event reported (the
    same events `core.workflows.integrity.report` writes for damaged memory rows)."""
    if not found:
        return
    done = set()
    for event in event_log.list_events(
        tx.conn, tx.codec, session=INTEGRITY_SESSION, limit=1_000_000
    ):
        if isinstance(event.data.get("row_id"), str):
            done.add((str(event.data.get("table")), event.data["row_id"], event.data.get("field")))
    for damage in found:
        if (damage.table, damage.row_id, damage.field) in done:
            continue
        done.add((damage.table, damage.row_id, damage.field))
        event_log.system_event(
            tx,
            INTEGRITY_SESSION,
            SEALED_SCOPE,
            EventKind.SECURITY,
            f"damaged row excluded from every read: {damage.table} {damage.row_id}",
            {
                "finding_types": ["damaged_row"],
                "action": "excluded",
                "table": damage.table,
                "row_id": damage.row_id,
                "field": damage.field,
                "problem": damage.problem,
                "memory_id": None,
            },
        )


def report_rewound(tx: WriteTx, revision: int, feed: int) -> None:
    """Log that the store revision was behind the change feed's last revision (the file was
    changed outside Memory Center): the write continues after the feed and repairs it."""
    event_log.system_event(
        tx,
        INTEGRITY_SESSION,
        SEALED_SCOPE,
        EventKind.SECURITY,
        "damaged row excluded from every read: store_revision 1",
        {
            "finding_types": ["damaged_row"],
            "action": "repaired",
            "table": "store_revision",
            "row_id": "1",
            "field": "revision",
            "problem": REWOUND.format(revision, feed),
            "memory_id": None,
        },
    )


COMMIT_STEPS.reseal = reseal
COMMIT_STEPS.report_rewound = report_rewound
