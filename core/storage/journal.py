"""The transition journal (#39): what every change did to each memory, so any change can be
undone by putting its memories back, whoever made it and through whichever entry point.

Every write transaction that changes a memory row (its status, flags, validity, links, scope,
content revision) or a session exclusion writes one journal entry per memory it changed:
the memory's state before and after, and the decision it recorded. The entries of one
transaction share a command id: undoing the command restores every `before` (a decision of
its own, journalled like any other change), and undoing that undo redoes it.

The capture is made here, under the storage functions that change a memory, not by the
callers: a new writer cannot forget it. A state holds no content, only the revision number
(whose sealed text stays in `memory_revisions`) and the clear metadata the memory row holds
anyway, so a purge has nothing to empty here. Each entry carries a keyed MAC over its fields, so an
entry changed by SQL is refused by undo instead of restoring what the writer wanted.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import Connection, func, select

from core.crypto.codec import Codec
from core.errors import DamagedRowError
from core.model.clock import from_iso
from core.model.journal import Command, Entry, State
from core.storage import schema as s
from core.storage.engine import chunks
from core.storage.store import WriteTx, new_id

# The memory columns a change may touch and an undo puts back. Content is restored through
# its revision: the text itself never enters the journal.
STATE_COLUMNS: tuple[str, ...] = (
    "status",
    "flags_json",
    "expires_at",
    "valid_from",
    "confidence",
    "conflict_set",
    "supersedes",
    "superseded_by",
    "revision",
    "scope_json",
)
EXCLUDED = "excluded"


def captured(tx: WriteTx, memory_id: str) -> None:
    """Note a memory's state before this transaction first changes it."""
    if memory_id in tx.journal_before:
        return
    if memory_id in tx.queued_memories:
        tx.journal_before[memory_id] = None  # inserted by this transaction
    else:
        tx.journal_before[memory_id] = _states(tx.conn_for_memory(memory_id), [memory_id]).get(
            memory_id
        )
    if flush not in tx.before_commit:
        tx.before_commit.append(flush)


def captured_many(tx: WriteTx, memory_ids: Sequence[str]) -> None:
    """`captured` for many memories a batch is about to change: one read per chunk instead
    of one per memory."""
    wanted = [m for m in memory_ids if m not in tx.journal_before and m not in tx.queued_memories]
    if not wanted:
        return
    states = _states(tx.conn, wanted)
    for mid in wanted:
        tx.journal_before[mid] = states.get(mid)
    if flush not in tx.before_commit:
        tx.before_commit.append(flush)


def created(tx: WriteTx, memory_id: str) -> None:
    """Note a memory this transaction inserts."""
    tx.journal_before.setdefault(memory_id, None)
    if flush not in tx.before_commit:
        tx.before_commit.append(flush)


def decided(tx: WriteTx, memory_id: str, action: str, actor: str) -> None:
    """Note the decision this transaction recorded for a memory (the last one wins) and who
    made the change (the first decision's actor)."""
    tx.journal_decisions[memory_id] = action
    if tx.journal_actor is None:
        tx.journal_actor = actor


def flush(tx: WriteTx) -> None:
    """Write this transaction's entries (run just before commit)."""
    if not tx.journal_before:
        return
    ids = list(tx.journal_before)
    after = _states(tx.conn, ids)
    command_id = tx.journal_command or new_id("cmd", tx.now)
    tx.journal_command = command_id
    rows = []
    for mid in ids:
        before, now = tx.journal_before[mid], after.get(mid)
        if now is None or before == now:
            continue  # gone (purged) or unchanged: nothing to undo
        row: dict[str, Any] = {
            "id": new_id("trn", tx.now),
            "command_id": command_id,
            "store_revision": tx.pending_revision or 0,
            "ts": tx.now_iso,
            "action": tx.action[:64],
            "actor": (tx.journal_actor or "system")[:200],
            "memory_id": mid,
            "before_json": _dump(before) if before is not None else None,
            "after_json": _dump(now),
            "decision": tx.journal_decisions.get(mid),
            "undoes": tx.journal_undoes,
        }
        row["mac"] = tx.codec.mac(_message(row))
        rows.append(row)
    if rows:
        tx.later_rows(s.transitions, rows)


def state_of(conn: Connection, memory_id: str) -> State | None:
    """A memory's current state as the journal records it; None if there is no such row."""
    return _states(conn, [memory_id]).get(memory_id)


def commands(
    conn: Connection,
    codec: Codec,
    *,
    limit: int = 50,
    memory_id: str | None = None,
    command_id: str | None = None,
) -> list[Command]:
    """Journalled commands, newest first, each with all its entries (checked)."""
    table = s.transitions
    newest = func.max(table.c.store_revision)
    wanted = select(table.c.command_id, newest).group_by(table.c.command_id)
    if memory_id is not None:
        wanted = wanted.where(table.c.memory_id == memory_id)
    if command_id is not None:
        wanted = wanted.where(table.c.command_id == command_id)
    ids = [r[0] for r in conn.execute(wanted.order_by(newest.desc()).limit(limit))]
    if not ids:
        return []
    rows = conn.execute(
        select(table).where(table.c.command_id.in_(ids)).order_by(table.c.id)
    ).mappings()
    grouped: dict[str, list[Entry]] = {cid: [] for cid in ids}
    undone = _undone_by(conn, ids)
    for row in rows:
        entry = _entry(row, codec)
        by = undone.get((entry.command_id, entry.memory_id))
        grouped[entry.command_id].append(replace(entry, undone_by=by) if by else entry)
    out = []
    for cid in ids:
        first = grouped[cid][0]
        out.append(
            Command(
                id=cid,
                ts=first.ts,
                action=first.action,
                actor=first.actor,
                entries=tuple(grouped[cid]),
                undoes=first.undoes,
            )
        )
    return out


def damaged(conn: Connection, codec: Codec) -> Iterator[tuple[str, str]]:
    """(entry id, problem) of every entry whose MAC does not match (changed by SQL)."""
    for row in conn.execute(select(s.transitions).order_by(s.transitions.c.id)).mappings():
        if not codec.mac_ok(_message(row), row["mac"]):
            yield str(row["id"]), "journal entry changed outside the memory center"


def _undone_by(conn: Connection, ids: Sequence[str]) -> dict[tuple[str, str], str]:
    """(command, memory) -> the command that undid that entry."""
    table = s.transitions
    found = conn.execute(
        select(table.c.undoes, table.c.memory_id, table.c.command_id)
        .where(table.c.undoes.in_(list(ids)))
        .order_by(table.c.store_revision)
    )
    out: dict[tuple[str, str], str] = {}
    for undone, memory_id, by in found:
        out.setdefault((str(undone), str(memory_id)), str(by))
    return out


def _states(conn: Connection, ids: Sequence[str]) -> dict[str, State]:
    table, exclusions = s.memories, s.memory_exclusions
    columns = [table.c.id, *(table.c[name] for name in STATE_COLUMNS)]
    found: dict[str, State] = {}
    for part in chunks(list(ids)):
        for row in conn.execute(select(*columns).where(table.c.id.in_(part))).mappings():
            found[row["id"]] = {name: row[name] for name in STATE_COLUMNS} | {EXCLUDED: []}
    for part in chunks(list(found)):
        for mid, session in conn.execute(
            select(exclusions.c.memory_id, exclusions.c.session_id)
            .where(exclusions.c.memory_id.in_(part))
            .order_by(exclusions.c.session_id)
        ):
            found[str(mid)][EXCLUDED].append(session)
    return found


def _dump(state: Mapping[str, Any]) -> str:
    return json.dumps(state, sort_keys=True, separators=(",", ":"))


_MAC_FIELDS = (
    "id",
    "command_id",
    "store_revision",
    "ts",
    "action",
    "actor",
    "memory_id",
    "before_json",
    "after_json",
    "decision",
    "undoes",
)


def _message(row: Mapping[Any, Any]) -> bytes:
    values = "\x1e".join(repr(row[name]) for name in _MAC_FIELDS)
    return b"transitions\x1f" + values.encode("utf-8", "surrogatepass")


def _entry(row: Mapping[Any, Any], codec: Codec) -> Entry:
    if not codec.mac_ok(_message(row), row["mac"]):
        raise DamagedRowError(
            "transitions", f"journal entry {row['id']} was changed outside the memory center"
        )
    before = row["before_json"]
    return Entry(
        id=row["id"],
        command_id=row["command_id"],
        ts=from_iso(row["ts"]),
        action=row["action"],
        actor=row["actor"],
        memory_id=row["memory_id"],
        before=json.loads(before) if before is not None else None,
        after=json.loads(row["after_json"]),
        decision=row["decision"],
        undoes=row["undoes"],
    )
