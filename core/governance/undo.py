"""Undo of any journalled change, as compensating decisions (#39).

The transition journal (core/storage/journal.py) holds, for every change, each memory's state
before and after it. Undoing a command puts every memory it changed back to its `before`
state: status, flags, validity, links, scope, content (as a new revision with the old
text) and session exclusions, and records an `undo` decision for each. An undo never erases
history (each memory gets an `undo_<decision>` decision), and is journalled like any other
change, so undoing an undo redoes the change.

A change is undone only while its memories are still as it left them; anything since (an
edit, another decision) is named in the refusal. A deletion is not undone: the deleted
fact is fenced and its purge is final (the desktop previews both and asks first).
"""

from __future__ import annotations

from collections.abc import Sequence

from core.errors import InvalidStateError, NotFoundError
from core.governance.policy import VERSION
from core.governance.text import fingerprint
from core.model.enums import MemoryStatus
from core.model.journal import Command, Entry, State
from core.model.scope import Scope
from core.storage import controls as rows
from core.storage import journal, memories, memory_history
from core.storage.memories import PURGED_TEXT
from core.storage.store import WriteTx

# The fields an undo puts back with `update_fields` (content and scope go by revision).
_METADATA = (
    "status",
    "flags_json",
    "expires_at",
    "valid_from",
    "confidence",
    "conflict_set",
    "supersedes",
    "superseded_by",
)


def find(tx: WriteTx, command_id: str) -> Command:
    """The journalled command with this id. Raises NotFoundError."""
    found = journal.commands(tx.conn, tx.codec, command_id=command_id, limit=1)
    if not found:
        raise NotFoundError("change", command_id)
    return found[0]


def latest(tx: WriteTx, memory_id: str, action: str) -> Command:
    """The latest change of a memory, which must have recorded decision `action`.

    Raises:
        InvalidStateError: its latest change is another one, or none was journalled.
    """
    found = journal.commands(tx.conn, tx.codec, memory_id=memory_id, limit=1)
    entry = next((e for e in found[0].entries if e.memory_id == memory_id), None) if found else None
    if entry is None:
        raise InvalidStateError(
            f"cannot undo {action} of memory {memory_id}: no change of it was journalled "
            "(changes made before this version are not undoable)"
        )
    if entry.decision != action:
        raise InvalidStateError(
            f"cannot undo {action} of memory {memory_id}: its latest decision is "
            f"{entry.decision or entry.action}"
        )
    return found[0]


def undo(
    tx: WriteTx, command: Command, actor: str, memory_ids: Sequence[str] | None = None
) -> list[str]:
    """Put the memories `command` changed back as they were before it; return their ids.

    Args:
        memory_ids: only these memories' part of the command (all when None).

    Raises:
        InvalidStateError: already undone, a deletion, or a memory changed since.
    """
    entries = [e for e in command.entries if memory_ids is None or e.memory_id in memory_ids]
    if not entries:
        raise InvalidStateError(f"change {command.id} did not change {', '.join(memory_ids or [])}")
    for entry in entries:
        _check(tx, command, entry)
    tx.journal_undoes = command.id
    tx.journal_actor = actor
    tx.action = f"undo {command.action}"[:64]
    when = command.ts.isoformat(timespec="seconds")
    for entry in reversed(entries):
        _restore(tx, entry, actor, f"undone by the user: {_name(entry)} of {when}")
    return [e.memory_id for e in entries]


def _name(entry: Entry) -> str:
    return (entry.decision or entry.action.split(" ")[0]).replace(" ", "_")


def _check(tx: WriteTx, command: Command, entry: Entry) -> None:
    mid = entry.memory_id
    if entry.undone_by is not None:
        raise InvalidStateError(
            f"change {command.id} of memory {mid} was already undone (by {entry.undone_by}); "
            "undo that to redo it"
        )
    if entry.after.get("status") == MemoryStatus.DELETED.value and (
        entry.before is None or entry.before.get("status") != MemoryStatus.DELETED.value
    ):
        raise InvalidStateError(f"cannot undo the deletion of memory {mid}: a deletion is final")
    now = journal.state_of(tx.conn, mid)
    if now is None:
        raise NotFoundError("memory", mid)
    changed = sorted(k for k in entry.after if now.get(k) != entry.after[k])
    if changed:
        raise InvalidStateError(
            f"cannot undo {_name(entry)} of memory {mid}: it changed since "
            f"({', '.join(changed)}); undo the later change first"
        )


def _restore(tx: WriteTx, entry: Entry, actor: str, reason: str) -> None:
    mid = entry.memory_id
    now = journal.state_of(tx.conn, mid)
    assert now is not None  # checked by _check in this transaction
    # A memory the command created is withdrawn (rejected: kept in the ledger, never
    # injected); the redo brings it back as it was.
    target: State = entry.before or {**now, "status": MemoryStatus.REJECTED.value}
    record = memories.get(tx.conn, tx.codec, mid)
    if target["revision"] != now["revision"] or target["scope_json"] != now["scope_json"]:
        _restore_revision(tx, mid, target, actor)
        record = memories.get(tx.conn, tx.codec, mid)
    values = {k: target[k] for k in _METADATA if target.get(k) != now.get(k)}
    if values:
        memories.update_fields(tx, mid, **values)
    wanted, have = set(target.get(journal.EXCLUDED, ())), set(now.get(journal.EXCLUDED, ()))
    for session in sorted(wanted - have):
        rows.add_exclusion(tx, mid, session, actor)
    for session in sorted(have - wanted):
        rows.remove_exclusion(tx, mid, session)
    memories.record_decision(
        tx,
        record,
        action=f"undo_{_name(entry)}"[:32],
        from_status=MemoryStatus(now["status"]),
        to_status=MemoryStatus(target["status"]),
        actor=actor,
        reason=reason,
        policy_version=VERSION,
        user_action=True,
    )


def _restore_revision(tx: WriteTx, mid: str, target: State, actor: str) -> None:
    """A new revision with the content of revision `target["revision"]` and its scope."""
    record = memories.get(tx.conn, tx.codec, mid)
    texts = {
        n: text for n, _ts, _who, _scope, text in memory_history.revisions(tx.conn, tx.codec, mid)
    }
    content = texts.get(int(target["revision"]))
    if content is None or content == PURGED_TEXT:
        raise InvalidStateError(f"cannot undo: revision {target['revision']} of {mid} was purged")
    scope = Scope.from_json(str(target["scope_json"]))
    key = tx.codec.fingerprint_key_for(scope.get("user"))
    memories.add_revision(
        tx,
        record,
        actor=actor,
        content=content,
        scope=scope if scope != record.scope else None,
        fingerprint=fingerprint(key, content),
    )
