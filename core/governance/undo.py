"""Undo of the review decisions approve, reject and quarantine, as compensating decisions.

An undo never erases history: it writes a new decision (`undo_approve`, `undo_reject`,
`undo_quarantine`) that puts the memory back as it was before, and names what it undoes.
Only the latest decision of a memory can be undone, and only while the memory is still as
that decision left it; anything else is refused with a clear reason.

Besides the status, approval changes flags (confirmed, needs-confirmation, the policy's
review wait) and can end the review wait's expiry. Those fields are kept, per memory, under
the setting `undo:<memory id>` when an undoable decision is made (one small JSON value: no
content, overwritten by the next undoable decision, removed by the undo).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from core.errors import InvalidStateError
from core.governance.policy import VERSION
from core.model.records import Decision, MemoryRecord
from core.storage import memories, memory_history, settings
from core.storage.store import WriteTx

UNDOABLE = ("approve", "reject", "quarantine")
Action = Callable[[WriteTx, MemoryRecord, str, str], None]


def _key(memory_id: str) -> str:
    return f"undo:{memory_id}"


def undoable(action: Action) -> Action:
    """Wrap a control so that the fields it may change are kept for a later undo."""

    def run(tx: WriteTx, record: MemoryRecord, actor: str, status_now: str) -> None:
        action(tx, record, actor, status_now)
        settings.write(tx, *kept(record))

    return run


def kept(record: MemoryRecord) -> tuple[str, dict[str, object]]:
    """The setting that lets the next decision of `record` be undone: its key and value
    (the fields besides the status that a decision may change)."""
    before: dict[str, object] = {
        "flags": sorted(record.flags),
        "expires_at": record.expires_at.isoformat() if record.expires_at else None,
    }
    return _key(record.id), before


def undo(tx: WriteTx, record: MemoryRecord, action: str, actor: str) -> Decision:
    """Put `record` back as it was before its latest decision, which must be `action`.

    Raises:
        InvalidStateError: `action` cannot be undone, is not the latest decision, or the
            memory changed since.
    """
    if action not in UNDOABLE:
        raise InvalidStateError(f"cannot undo {action!r}; only {', '.join(UNDOABLE)} can be")
    history = memory_history.history(tx.conn, tx.codec, record.id)
    last = history[-1] if history else None
    if last is None or last.action != action:
        latest = last.action if last else "nothing"
        raise InvalidStateError(
            f"cannot undo {action} of memory {record.id}: its latest decision is {latest}"
        )
    if last.from_status is None or record.status != last.to_status:
        raise InvalidStateError(
            f"cannot undo {action} of memory {record.id}: it is {record.status.value} now"
        )
    before = settings.read(tx.conn, _key(record.id))
    values: dict[str, object] = {"status": last.from_status}
    if isinstance(before, dict):
        values["flags"] = frozenset(before["flags"])
        expires = before["expires_at"]
        values["expires_at"] = dt.datetime.fromisoformat(expires) if expires else None
    memories.update_fields(tx, record.id, **values)
    settings.remove(tx, _key(record.id))
    when = last.ts.isoformat(timespec="seconds")
    return memories.record_decision(
        tx,
        record,
        action=f"undo_{action}",
        from_status=record.status,
        to_status=last.from_status,
        actor=actor,
        reason=f"undone by the user: {action} of {when}",
        policy_version=VERSION,
        user_action=True,
    )
