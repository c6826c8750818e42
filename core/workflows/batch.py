"""Batches on the write path (#13): remember, suggest and approve many in one transaction.

A batch is all or nothing: the items are checked for shape before the transaction, each one
then goes through exactly the path a single call takes (logged, decided by the policy,
written by the ledger), and the first bad item stops the batch with an error naming it
(`items[3].text: must not be empty or blank`) while the transaction rolls back. Items of one
batch see each other: the ledger's neighbour index is updated as each is written, so a
duplicate inside the batch merges and a contradiction inside it supersedes or conflicts as
it would in two calls.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from core.crypto.codec import Codec
from core.errors import InvalidInputError
from core.governance import controls
from core.governance.ledger import Ledger
from core.model import limits
from core.model.memory import MemoryOutcome
from core.model.records import Event
from core.model.scope import Scope
from core.model.validate import identifier
from core.storage import journal, memories
from core.storage.store import WriteTx
from core.workflows import writes

MAX_BATCH = limits.MAX_BATCH
REMEMBER_FIELDS = (
    "scope",
    "text",
    "session",
    "kind",
    "expires_in_days",
    "by",
    "said_at",
    "speaker",
    "replaces",
    "same_as",
)
SUGGEST_FIELDS = (
    "scope",
    "text",
    "kind",
    "evidence",
    "session",
    "by",
    "said_at",
    "speaker",
    "replaces",
    "same_as",
)
LOAD_CHUNK = 500


@dataclass(frozen=True)
class Request:
    """One checked item of a batch: its position, scope and the other fields as given."""

    index: int
    scope: Scope
    fields: Mapping[str, Any]

    @property
    def where(self) -> str:
        """How errors name the item."""
        return f"items[{self.index}]"


def requests(items: object, known: Sequence[str]) -> list[Request]:
    """Check a batch's shape: a list of objects with a scope and only known fields."""
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Sequence):
        raise InvalidInputError("items", "must be a list of items (objects with scope and text)")
    if len(items) > MAX_BATCH:
        raise InvalidInputError("items", f"holds {len(items)} items; the limit is {MAX_BATCH}")
    out = []
    for i, item in enumerate(items):
        where = f"items[{i}]"
        if not isinstance(item, Mapping):
            raise InvalidInputError(where, "must be an object with scope and text")
        unknown = sorted(str(k) for k in item if k not in known)
        if unknown:
            raise InvalidInputError(
                f"{where}.{unknown[0]}", f"unknown field; known: {', '.join(known)}"
            )
        raw = item.get("scope")
        plain = dict(raw.items_) if isinstance(raw, Scope) else raw
        try:
            scope = Scope.required(plain)
        except InvalidInputError as exc:
            raise named(where, exc) from exc
        out.append(Request(i, scope, {k: v for k, v in item.items() if k != "scope"}))
    return out


def contents(batch: Sequence[Request], *, remember: bool) -> list[str]:
    """What the batch's items will have judged, for `Ledger.prepare`."""
    return [
        c for req in batch for c in writes.content_of(req.fields.get("text"), remember=remember)
    ]


def named(where: str, exc: InvalidInputError) -> InvalidInputError:
    """The same error, its field prefixed with the item it belongs to."""
    field = exc.field if exc.field.startswith(where) else f"{where}.{exc.field}"
    return InvalidInputError(field, exc.problem)


def remember_many(tx: WriteTx, ledger: Ledger, batch: Sequence[Request]) -> list[MemoryOutcome]:
    """The user's requests to remember, each as `remember` would decide it."""

    def one(req: Request) -> MemoryOutcome:
        f = req.fields
        return writes.remember(
            tx,
            ledger,
            req.scope,
            f.get("text"),  # type: ignore[arg-type]  # validated by writes.remember
            session=f.get("session"),
            kind=f.get("kind"),
            expires_in_days=f.get("expires_in_days"),
            by=f.get("by"),
            said_at=f.get("said_at"),
            speaker=f.get("speaker"),
            replaces=f.get("replaces", ()),
            same_as=f.get("same_as"),
        )

    return _each(batch, one)


def suggest_many(tx: WriteTx, ledger: Ledger, batch: Sequence[Request]) -> list[MemoryOutcome]:
    """An agent's proposals, each as `suggest` would decide it."""

    def one(req: Request) -> MemoryOutcome:
        f = req.fields
        evidence = f.get("evidence", ())
        if isinstance(evidence, (str, bytes)) or not isinstance(evidence, Sequence):
            raise InvalidInputError("evidence", "must be a list of event ids")
        return writes.suggest(
            tx,
            ledger,
            req.scope,
            f.get("text"),  # type: ignore[arg-type]  # validated by writes.suggest
            kind=f.get("kind"),
            evidence=evidence,
            session=f.get("session"),
            by=f.get("by"),
            said_at=f.get("said_at"),
            speaker=f.get("speaker"),
            replaces=f.get("replaces", ()),
            same_as=f.get("same_as"),
        )

    return _each(batch, one)


def _each(batch: Sequence[Request], one: Callable[[Request], MemoryOutcome]) -> list[MemoryOutcome]:
    out = []
    for req in batch:
        try:
            out.append(one(req))
        except InvalidInputError as exc:
            raise named(req.where, exc) from exc
    return out


def memory_ids(ids: object) -> list[str]:
    """Checked memory ids (full ids or `m:` references), each once, in the given order."""
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Sequence):
        raise InvalidInputError("memory_ids", "must be a list of memory ids")
    if len(ids) > MAX_BATCH:
        raise InvalidInputError("memory_ids", f"holds {len(ids)} ids; the limit is {MAX_BATCH}")
    return list(dict.fromkeys(identifier(m, f"memory_ids[{i}]", 64) for i, m in enumerate(ids)))


def approve_many(tx: WriteTx, ids: Sequence[str], by: str | None) -> list[str]:
    """Approve every listed suggestion; the first that cannot be approved stops the batch.

    Raises:
        NotFoundError: an id names no memory.
        InvalidStateError: a memory is not a suggestion (or quarantined item) now.
    """
    who = identifier(by, "by") if by else None
    resolved = [memories.resolve_ref(tx.conn, m) if m.startswith("m:") else m for m in ids]
    done: dict[str, None] = {}
    for start in range(0, len(resolved), LOAD_CHUNK):
        chunk = [m for m in dict.fromkeys(resolved[start : start + LOAD_CHUNK]) if m not in done]
        records = {r.id: r for r in memories.load(tx.conn, tx.codec, chunk)}
        journal.captured_many(tx, chunk)
        for memory_id in chunk:
            # Not loaded: `get` raises the error that names it (unknown, or damaged).
            record = records.get(memory_id) or memories.get(tx.conn, tx.codec, memory_id)
            actor = who or record.scope.get("user", "user")
            controls.approve(tx, record, actor, record.effective_status(tx.now))
            done[memory_id] = None
    # Each approval stays undoable on its own: the journal keeps one entry per memory.
    return list(done)


def sessions_to_extract(
    conn: Connection, codec: Codec, names: Sequence[str]
) -> dict[str, list[Event]]:
    """Each named session's events, leaving out sessions that opted out (R26)."""
    return {
        name: writes.session_events(conn, codec, name)
        for name in names
        if not writes.opted_out(conn, codec, name)
    }
