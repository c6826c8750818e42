"""Reporting damaged rows: once each, as a security event the user sees (#10, R3, R8).

Readers skip a damaged row and hand it up (`core/storage/damage.py`); the service passes
what it met to `report`, which writes one `security` event per damaged row that no earlier
event (from any process) has reported, in the log session `memory-center:integrity`.
`status` counts the rows reported there.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Connection

from core.crypto.codec import Codec
from core.model.enums import EventKind
from core.model.scope import Scope
from core.storage import event_log
from core.storage.damage import Damage
from core.storage.store import WriteTx

INTEGRITY_SESSION = "memory-center:integrity"
DAMAGE_FINDING = "damaged_row"
# Store-wide events need a scope; this one names Memory Center itself, not any user.
INTEGRITY_SCOPE = Scope.of({"agent": "memory-center"})
REPORTS_READ = 1_000_000


def reported(conn: Connection, codec: Codec) -> set[tuple[str, str]]:
    """(table, row id) of every damaged row a security event has reported so far."""
    events = event_log.list_events(conn, codec, session=INTEGRITY_SESSION, limit=REPORTS_READ)
    out: set[tuple[str, str]] = set()
    for event in events:
        data = event.data
        if event.kind == EventKind.SECURITY and isinstance(data.get("row_id"), str):
            out.add((str(data.get("table")), data["row_id"]))
    return out


def report(tx: WriteTx, found: Iterable[Damage]) -> list[Damage]:
    """Write a security event for each damaged row not reported before; return those."""
    done = reported(tx.conn, tx.codec)
    new: list[Damage] = []
    for damage in found:
        key = (damage.table, damage.row_id)
        if key in done:
            continue
        done.add(key)
        event_log.system_event(
            tx,
            INTEGRITY_SESSION,
            INTEGRITY_SCOPE,
            EventKind.SECURITY,
            f"damaged row excluded from every read: {damage.table} {damage.row_id}",
            {
                "finding_types": [DAMAGE_FINDING],
                "action": "excluded",
                "table": damage.table,
                "row_id": damage.row_id,
                "field": damage.field,
                "problem": damage.problem,
                "memory_id": damage.row_id if damage.table == "memories" else None,
            },
        )
        new.append(damage)
    return new
