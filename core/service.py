"""`MemoryService`: the one public facade of the core (HOUSE_STYLE, like Anki's Collection).

The UI, the CLI, the MCP server and the SDK reach the store only through this class. It is
synchronous and thread-safe. Every mutating call runs in one transaction and returns a
`Result` with the value and the `Changes` it committed, including the new store revision.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import func, select, update

from core.crypto.codec import Codec
from core.crypto.invitation import Invitation, open_invitation, seal_invitation
from core.crypto.invitation import new_code as new_invitation_code
from core.crypto.keys import KeySet, KeyStore, keyring_backend_name
from core.errors import (
    DamagedRowError,
    EmbedderUnavailableError,
    InvalidInputError,
    InvalidStateError,
    MemoryCenterError,
    NotFoundError,
    ResourceUnavailableError,
)
from core.governance import controls, undo
from core.governance.extractor import Extractor, RuleExtractor
from core.governance.ledger import Ledger
from core.governance.policy import MemoryPolicy, Origin, PolicySettings
from core.index.embedder import EMBEDDER_ENV, EMBEDDER_NAMES, make_embedder
from core.index.embedder import resolve as resolve_embedder
from core.model import limits
from core.model.capture import CaptureCursor
from core.model.clock import Clock, SystemClock
from core.model.enums import ChangeKind
from core.model.memory import (
    AdoptionChain,
    InjectResult,
    MemoryFilter,
    MemoryOutcome,
    QuarantineReport,
    Replay,
    ResumeResult,
    SearchHit,
    SecurityEvent,
    Snapshot,
    Tombstone,
)
from core.model.records import (
    ChangeEntry,
    Changes,
    Decision,
    Event,
    KeyInfo,
    MemberInfo,
    MemoryRecord,
    NewEvent,
    Result,
    RotationReport,
    SessionInfo,
    StoreStatus,
    VerifyReport,
)
from core.model.scope import Scope
from core.model.spool import FlushReport, SpoolEntry, SpoolStatus
from core.model.validate import identifier, memory_filter, new_event
from core.model.validate import text as valid_text
from core.retrieval.catalog import Catalog
from core.retrieval.guard import CircuitBreaker, FaultSwitch
from core.retrieval.injector import Retriever
from core.retrieval.vectors import VectorLayer
from core.storage import (
    checkup,
    cursors,
    devices,
    event_log,
    members,
    memories,
    settings,
    snapshots,
)
from core.storage import schema as s
from core.storage.damage import Damage, guarded, split
from core.storage.migrations import current_version
from core.storage.opener import device_id, discard_new_store, join_server_store, open_store
from core.storage.rotation import rotate
from core.storage.store import Store, WriteTx, changes_of
from core.workflows import deletion, integrity, portability, replay, writes
from core.workflows.spool import Spooler, spool_summary, spoolable

T = TypeVar("T")


class MemoryService:
    """The facade over one store.

    Args:
        store: the opened store.
        key_store: where the key set lives (for rotation and status).
        keys: the current key set.
    """

    def __init__(
        self,
        store: Store,
        key_store: KeyStore,
        keys: KeySet,
        *,
        policy: MemoryPolicy | None = None,
        extractor: Extractor | None = None,
    ) -> None:
        self._store = store
        self._key_store = key_store
        self._keys = keys
        store.key_reloader = self._reload_keys
        self._settings_damage: Damage | None = None
        self.policy = policy or MemoryPolicy(self._stored_policy_settings())
        self.extractor: Extractor = extractor or RuleExtractor()
        self._ledger = Ledger(self.policy, keys.fingerprint_key)
        self.embedder_error: str | None = None
        self.catalog = Catalog(store, self._vector_layer(store))
        if self._settings_damage is not None:
            self.catalog.damage.note([self._settings_damage])
        self._ledger.embed = self._fence_embed
        if self.catalog.vectors is not None:
            self.catalog.vectors.warm_up()
        self.faults = FaultSwitch()
        self._retriever = Retriever(store, self.catalog, self.faults, CircuitBreaker(store.clock))

    @classmethod
    def open(
        cls,
        data_dir: Path,
        *,
        passphrase: str | None = None,
        clock: Clock | None = None,
        create: bool = True,
        prefer_keyring: bool = True,
        database_url: str | None = None,
    ) -> MemoryService:
        """Open (or create) the store in `data_dir`. See `core.storage.opener.open_store`."""
        opened = open_store(
            data_dir,
            clock or SystemClock(),
            passphrase=passphrase,
            create=create,
            prefer_keyring=prefer_keyring,
            database_url=database_url,
        )
        try:
            return cls(opened.store, opened.key_store, opened.keys)
        except BaseException:
            # e.g. a misconfigured embedder: a store this call created is not left behind.
            opened.store.dispose()
            if opened.created:
                discard_new_store(
                    data_dir, remove_lock=opened.lock_created, remove_dir=opened.dir_created
                )
            raise

    def close(self) -> None:
        """Save the vector index and release connections. The service is unusable afterwards."""
        if self.catalog.vectors is not None:
            with contextlib.suppress(MemoryCenterError):
                self.catalog.vectors.save()
        self._retriever.close()
        self._store.dispose()

    def __enter__(self) -> MemoryService:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # --- the event log (R1-R3) -------------------------------------------------

    @spoolable
    def append_event(self, item: NewEvent) -> Result[Event]:
        """Append one event to a session's log (the session is created on first use).

        Raises:
            InvalidInputError: a field is missing, unknown or oversized (nothing written).
            ScopeRequiredError: the event has no scope.
        """
        valid = new_event(item)
        with self._store.write("append event") as tx:
            (event,) = event_log.append(tx, [valid])
        return Result(event, changes_of(tx))

    @spoolable
    def append_events(self, items: Sequence[NewEvent]) -> Result[list[Event]]:
        """Append several events in one transaction: all of them or none.

        Raises:
            InvalidInputError: naming the index and field of the first bad event.
        """
        valid = [new_event(item, field=f"events[{i}]") for i, item in enumerate(items)]
        with self._store.write("append events") as tx:
            events = event_log.append(tx, valid) if valid else []
        return Result(events, changes_of(tx))

    def list_events(
        self,
        *,
        session: str | None = None,
        after_position: int = 0,
        before_position: int | None = None,
        limit: int = 100,
        newest_first: bool = False,
    ) -> list[Event]:
        """Events in log order, decrypted; filter by session, page by position."""
        if session is not None:
            session = identifier(session, "session")
        with self._store.read("list events") as conn:
            found = event_log.list_events(
                conn,
                self._store.codec,
                session=session,
                after_position=after_position,
                before_position=before_position,
                limit=max(1, min(limit, 10_000)),
                newest_first=newest_first,
            )
        self._report_damage(getattr(found, "damaged", ()))  # skipped, reported once (#10)
        return list(found)

    def get_events(self, ids: Sequence[str]) -> list[Event]:
        """The events with these ids. Raises NotFoundError for an unknown id."""
        with self._store.read("read events") as conn:
            return event_log.get_events(conn, self._store.codec, ids)

    def list_sessions(self, *, limit: int = 1000, offset: int = 0) -> list[SessionInfo]:
        """Sessions, most recently active first."""
        with self._store.read("list sessions") as conn:
            return event_log.list_sessions(conn, limit=limit, offset=offset)

    def get_session(self, session: str) -> SessionInfo:
        """One session. Raises NotFoundError."""
        with self._store.read("read session") as conn:
            return event_log.get_session(conn, identifier(session, "session"))

    def set_session_opt_out(self, session: str, opted_out: bool) -> Result[SessionInfo]:
        """Switch per-session memory opt-out (R26): nothing injected, nothing extracted.

        A session named before its first event is created, so an agent can opt out first.
        """
        name = identifier(session, "session")
        with self._store.write("set session opt-out") as tx:
            found = tx.conn.execute(
                update(s.sessions).where(s.sessions.c.id == name).values(opted_out=opted_out)
            )
            if found.rowcount == 0:
                tx.conn.execute(
                    s.sessions.insert().values(
                        id=name, created_at=tx.now_iso, opted_out=opted_out, event_count=0
                    )
                )
            tx.touch(ChangeKind.SESSIONS)
            info = event_log.get_session(tx.conn, name)
        return Result(info, changes_of(tx))

    def verify(self) -> VerifyReport:
        """Check everything and report the first failure (R3, #10): SQLite's integrity
        check, the hash chain and every payload, every sealed column and file, and each
        memory's metadata binding (see core/storage/checkup.py)."""
        data_dir = self._store.path.parent if self._store.path else None
        with self._store.read("verify the store") as conn:
            return checkup.verify_store(conn, self._store.codec, data_dir)

    # --- the write path of memory (R4-R12) --------------------------------------

    @spoolable
    def remember(
        self,
        scope: Mapping[str, str] | Scope | None,
        text: str,
        *,
        session: str | None = None,
        kind: str | None = None,
        expires_in_days: float | None = None,
        by: str | None = None,
        said_at: dt.datetime | str | None = None,
    ) -> Result[MemoryOutcome]:
        """The user's explicit request to remember something (R7 row 1).

        `said_at`: when it was said (history being imported); the memory's own time.
        """
        req = Scope.required(_plain(scope))
        with self._store.write("remember") as tx:
            out = writes.remember(
                tx,
                self._ledger,
                req,
                text,
                session=session,
                kind=kind,
                expires_in_days=expires_in_days,
                by=by,
                said_at=said_at,
            )
        return self._committed(out, tx)

    @spoolable
    def suggest(
        self,
        scope: Mapping[str, str] | Scope | None,
        text: str,
        *,
        kind: str | None = None,
        evidence: Sequence[str] = (),
        session: str | None = None,
        by: str | None = None,
        said_at: dt.datetime | str | None = None,
    ) -> Result[MemoryOutcome]:
        """An agent proposes a memory, citing evidence events; the policy decides (R6, R11)."""
        req = Scope.required(_plain(scope))
        with self._store.write("suggest") as tx:
            out = writes.suggest(
                tx,
                self._ledger,
                req,
                text,
                kind=kind,
                evidence=evidence,
                session=session,
                by=by,
                said_at=said_at,
            )
        return self._committed(out, tx)

    @spoolable
    def observe(
        self,
        scope: Mapping[str, str] | Scope | None,
        text: str,
        *,
        session: str | None = None,
        contradicts: str | None = None,
    ) -> Result[Event]:
        """Report a fresh tool-verified observation; contradicted memories turn stale (R10)."""
        req = Scope.required(_plain(scope))
        with self._store.write("observe") as tx:
            event = writes.observe(tx, req, text, session=session, contradicts=contradicts)
        return self._committed(event, tx)

    def extract(
        self, session: str, event_ids: Sequence[str] | None = None
    ) -> Result[list[MemoryOutcome]]:
        """Run extraction over a session's events (or the named ones); only candidates come
        out of it (R6)."""
        ids = list(event_ids) if event_ids is not None else None
        return self._extract(identifier(session, "session"), ids, Origin.EXTRACT)

    def pre_compress(self, session: str, event_ids: Sequence[str]) -> Result[list[MemoryOutcome]]:
        """`on_pre_compress`: candidates from the raw events about to leave the context (R12)."""
        return self._extract(identifier(session, "session"), list(event_ids), Origin.PRE_COMPRESS)

    def _extract(
        self, name: str, event_ids: list[str] | None, origin: Origin
    ) -> Result[list[MemoryOutcome]]:
        # The extractor (possibly an LLM over HTTP) runs outside the write transaction, so a
        # slow extractor never holds the store's write lock.
        with self._store.read("read session events") as conn:
            if writes.opted_out(conn, name):
                return Result([], Changes.none(Store._revision(conn)))
            events = writes.session_events(conn, self._store.codec, name, event_ids)
        proposals = self.extractor.extract(events)
        with self._store.write("extract") as tx:
            if writes.opted_out(tx.conn, name):
                return Result([], changes_of(tx))
            out = writes.submit_proposals(tx, self._ledger, proposals, name, origin=origin)
        return self._committed(out, tx)

    # --- live capture: resume positions (hooks, watchers) --------------------------

    def capture_cursor(self, key: str, agent: str) -> CaptureCursor:
        """Where capture of one source stopped (a fresh cursor if it never started)."""
        with self._store.read("read capture cursor") as conn:
            return cursors.read(conn, identifier(key, "key", 200), identifier(agent, "agent"))

    def append_captured(
        self,
        items: Sequence[NewEvent],
        cursor: CaptureCursor,
        position: int,
        state: dict[str, Any] | None = None,
    ) -> Result[list[Event]]:
        """Append captured events and advance their source's cursor in one transaction.

        Raises:
            ConflictError: the cursor moved since it was read (another capture recorded
                these lines); nothing is written.
            InvalidInputError: naming the index and field of the first bad event.
        """
        valid = [new_event(item, field=f"events[{i}]") for i, item in enumerate(items)]
        with self._store.write("append captured events") as tx:
            events = event_log.append(tx, valid) if valid else []
            cursors.advance(tx, cursor, position, state, len(events))
        return Result(events, changes_of(tx))

    def capture_totals(self) -> dict[str, tuple[int, int]]:
        """Per agent: (sources followed, events captured) by live capture."""
        with self._store.read("capture totals") as conn:
            return cursors.totals(conn)

    # --- user controls (R9, R22, R25, R26) ---------------------------------------

    @spoolable
    def approve(self, memory_id: str, *, by: str | None = None) -> Result[MemoryRecord]:
        """Confirm a suggested (or checked quarantined) memory: it becomes active."""
        return self._act(memory_id, "approve", by, undo.undoable(controls.approve))

    @spoolable
    def reject(
        self, memory_id: str, *, reason: str | None = None, by: str | None = None
    ) -> Result[MemoryRecord]:
        """Reject a suggested memory; it stays in the ledger so it is not suggested again."""
        why = valid_text(reason, "reason", limits.MAX_REASON) if reason is not None else None
        return self._act(
            memory_id,
            "reject",
            by,
            undo.undoable(lambda tx, r, who, st: controls.reject(tx, r, who, why, st)),
        )

    @spoolable
    def edit(self, memory_id: str, new_text: str, *, by: str | None = None) -> Result[MemoryRecord]:
        """Change a memory's content as a new revision; history keeps the old one."""
        key = self._keys.fingerprint_key
        return self._act(
            memory_id, "edit", by, lambda tx, r, who, st: controls.edit(tx, r, new_text, who, key)
        )

    def downgrade(
        self, memory_id: str, scope: Mapping[str, str] | Scope, *, by: str | None = None
    ) -> Result[MemoryRecord]:
        """Narrow a memory's scope (e.g. user-global to one project)."""
        new = Scope.required(_plain(scope))
        return self._act(
            memory_id,
            "downgrade",
            by,
            lambda tx, r, who, st: controls.change_scope(tx, r, new, who, "downgrade"),
        )

    def widen(
        self, memory_id: str, scope: Mapping[str, str] | Scope, *, by: str | None = None
    ) -> Result[MemoryRecord]:
        """Broaden a memory's scope; by the user, this is the cross-scope confirmation (R7)."""
        new = Scope.required(_plain(scope))
        return self._act(
            memory_id,
            "widen",
            by,
            lambda tx, r, who, st: controls.change_scope(tx, r, new, who, "widen"),
        )

    @spoolable
    def disable(
        self, memory_id: str, *, by: str | None = None, reason: str | None = None
    ) -> Result[MemoryRecord]:
        """Keep a memory but never inject or return it."""
        return self._act(
            memory_id, "disable", by, lambda tx, r, who, st: controls.disable(tx, r, who, reason)
        )

    @spoolable
    def enable(self, memory_id: str, *, by: str | None = None) -> Result[MemoryRecord]:
        """Make a disabled memory active again."""
        return self._act(
            memory_id, "enable", by, lambda tx, r, who, st: controls.enable(tx, r, who)
        )

    def exclude(
        self, memory_id: str, session: str, *, by: str | None = None
    ) -> Result[MemoryRecord]:
        """Keep a memory out of one session's injections (R26)."""
        name = identifier(session, "session")
        return self._act(
            memory_id, "exclude", by, lambda tx, r, who, st: controls.exclude(tx, r, name, who)
        )

    def include(
        self, memory_id: str, session: str, *, by: str | None = None
    ) -> Result[MemoryRecord]:
        """Undo `exclude`: the memory may be injected into that session again."""
        name = identifier(session, "session")
        return self._act(
            memory_id, "include", by, lambda tx, r, who, st: controls.include(tx, r, name, who)
        )

    def quarantine(
        self, memory_id: str, reason: str, *, by: str | None = None
    ) -> Result[QuarantineReport]:
        """Incident action: stop a memory's injection everywhere; list the affected sessions."""
        why = valid_text(reason, "reason", limits.MAX_REASON)
        result = self._act(
            memory_id,
            "quarantine",
            by,
            undo.undoable(lambda tx, r, who, st: controls.quarantine(tx, r, why, who)),
        )
        with self._store.read("affected sessions") as conn:
            uses = snapshots.using_memory(conn, result.value.id)
        report = QuarantineReport(
            result.value,
            tuple(dict.fromkeys(sess for _, sess, _ in uses if sess)),
            tuple(sid for sid, _, _ in uses),
        )
        return Result(report, result.changes)

    def undo(self, memory_id: str, action: str, *, by: str | None = None) -> Result[MemoryRecord]:
        """Undo the latest decision of a memory, which must be `action` (approve, reject or
        quarantine), as a compensating decision; the history keeps both (R5)."""
        name = identifier(action, "action")

        def revert(tx: WriteTx, record: MemoryRecord, who: str, _status: str) -> None:
            undo.undo(tx, record, name, who)

        return self._act(memory_id, f"undo {name}", by, revert)

    def resolve_conflict(
        self, keep_id: str, *, reason: str | None = None, by: str | None = None
    ) -> Result[list[MemoryRecord]]:
        """Settle a conflict set: keep one, supersede the others (R9)."""
        mid = self._mid(keep_id, "keep")
        with self._store.write("resolve conflict") as tx:
            keep = memories.get(tx.conn, tx.codec, mid)
            who = by or keep.scope.get("user", "user")
            changed = controls.resolve_conflict(tx, keep, who, reason)
            records = memories.load(tx.conn, tx.codec, changed)
        self.catalog.refresh(changed)
        return Result(records, changes_of(tx))

    def keep_conflicting(
        self,
        scopes: Mapping[str, Mapping[str, str] | Scope | None],
        *,
        reason: str | None = None,
        by: str | None = None,
    ) -> Result[list[MemoryRecord]]:
        """Settle a conflict set by keeping every member, each optionally narrowed to a scope
        of its own ("split by scope"); the conflict notes stop (R9)."""
        if not scopes:
            raise InvalidInputError("scopes", "name the members of the conflict set")
        wanted = {
            self._mid(mid, "scopes"): (None if sc is None else Scope.required(_plain(sc)))
            for mid, sc in scopes.items()
        }
        with self._store.write("keep conflicting memories") as tx:
            first = memories.get(tx.conn, tx.codec, next(iter(wanted)))
            who = identifier(by, "by") if by else first.scope.get("user", "user")
            changed = controls.keep_all(tx, wanted, who, reason)
            records = memories.load(tx.conn, tx.codec, changed)
        self.catalog.refresh(changed)
        return Result(records, changes_of(tx))

    @spoolable
    def delete(
        self,
        memory_id: str,
        *,
        reason: str,
        purge: bool = False,
        requested_by: str | None = None,
        purge_events: bool = False,
    ) -> Result[Tombstone]:
        """Tombstone a memory and remove it from every derived store; `purge` destroys it (R19)."""
        mid = self._mid(memory_id)
        with self._store.write("delete memory") as tx:
            record = memories.get(tx.conn, tx.codec, mid)
            who = (
                identifier(requested_by, "requested_by")
                if requested_by
                else record.scope.get("user", "user")
            )
            stone = deletion.delete(
                tx,
                record,
                reason=reason,
                requested_by=who,
                purge=purge,
                purge_events=purge_events,
                fp_key=self._keys.fingerprint_key,
                derived=self._forget_derived,
                embed=self._fence_embed,
            )
        if purge:
            if self.catalog.vectors is not None:
                self.catalog.vectors.purge([stone.memory_id])
            self._store.checkpoint()
        return Result(stone, changes_of(tx))

    # --- reading memory ------------------------------------------------------------

    def get_memory(self, memory_id: str) -> MemoryRecord:
        """One record in any status.

        Raises:
            NotFoundError: no such memory.
            DamagedRowError: the record is damaged (reported once as a security event).
        """
        mid = self._mid(memory_id)
        with self._store.read("read memory") as conn:
            found = memories.load(conn, self._store.codec, [mid])
        self._report_damage(found.damaged)
        return _one(found, mid)

    def list_memories(self, flt: MemoryFilter | None = None) -> list[MemoryRecord]:
        """Records in every status and scope unless filtered, newest first.

        Damaged records are left out and reported once (security event, `status`).
        """
        chosen = self._at_now(flt or MemoryFilter(limit=1_000_000))
        memory_filter(chosen)
        with self._store.read("list memories") as conn:
            found = memories.query(conn, self._store.codec, chosen)
        self._report_damage(found.damaged)
        return list(found)

    def _report_damage(self, found: Sequence[Damage] = ()) -> None:
        """Report damaged rows met by any read, once each, as security events (#10)."""
        notes = self.catalog.damage
        notes.note(found)
        pending = notes.take()
        if not pending:
            return
        try:
            with self._store.write("report damaged rows") as tx:
                integrity.report(tx, pending)
        except MemoryCenterError:
            for damage in pending:  # try again on the next read
                notes.forget(damage)

    def export_memories(self, flt: MemoryFilter | None = None) -> dict[str, Any]:
        """A portable JSON document of memories (default: active and suggested ones).

        The document holds decrypted content: it is for the user, who is told the file is
        not encrypted.
        """
        chosen = flt or MemoryFilter(statuses=("active", "candidate"), limit=1_000_000)
        return portability.export_document(self.list_memories(chosen), self._store.clock.now())

    def import_memories(
        self, document: Mapping[str, Any], *, by: str | None = None
    ) -> Result[list[MemoryOutcome]]:
        """Import an export document: every memory becomes a suggestion the policy decides.

        Raises:
            InvalidInputError: the document is malformed; nothing is imported.
        """
        who = identifier(by, "by") if by else "import"
        with self._store.write("import memories") as tx:
            session = portability.import_session(tx.now)
            out = portability.import_document(tx, self._ledger, document, session=session, by=who)
        return self._committed(out, tx)

    def count_memories(self, flt: MemoryFilter | None = None) -> int:
        """How many memories match a filter's metadata (status, kind, trust, scope, dates)."""
        chosen = self._at_now(flt or MemoryFilter())
        memory_filter(chosen)
        with self._store.read("count memories") as conn:
            return memories.count(conn, chosen)

    def history(self, memory_id: str) -> list[Decision]:
        """Every decision about a memory, oldest first (R5)."""
        record = self.get_memory(memory_id)
        with self._store.read("read history") as conn:
            return memories.history(conn, self._store.codec, record.id)

    def revisions(self, memory_id: str) -> list[tuple[int, dt.datetime, str, Scope, str]]:
        """Every stored revision: (number, time, actor, scope, content)."""
        record = self.get_memory(memory_id)
        with self._store.read("read revisions") as conn:
            return memories.revisions(conn, self._store.codec, record.id)

    def memory_at(self, revision: int) -> list[MemoryRecord]:
        """Every memory as it stood at a past store revision (evaluation and replay, R21)."""
        if isinstance(revision, bool) or not isinstance(revision, int) or revision < 0:
            raise InvalidInputError("revision", "must be a store revision (a whole number >= 0)")
        with self._store.read("reconstruct memory") as conn:
            return memories.state_at(conn, self._store.codec, revision)

    def lift_fence(self, memory_id: str) -> Result[int]:
        """Let a deleted memory's content be proposed again (the user lifts the fence)."""
        mid = self._mid(memory_id)
        with self._store.write("lift deletion fence") as tx:
            lifted = memories.lift_fence(tx, mid)
        return Result(lifted, changes_of(tx))

    def tombstone(self, memory_id: str) -> Tombstone:
        """The tombstone of a deleted memory. Raises NotFoundError."""
        with self._store.read("read tombstone") as conn:
            return deletion.read_tombstone(conn, self._store.codec, self._mid(memory_id))

    def adoption_chain(self, memory_id: str) -> AdoptionChain:
        """Source events, activation, injections and corrections of a memory (R22)."""
        with self._store.read("adoption chain") as conn:
            return replay.adoption_chain(conn, self._store.codec, self._mid(memory_id))

    def export_regression(self, memory_id: str) -> dict[str, Any]:
        """A regression case (JSON-able) for a memory that caused trouble (R22)."""
        with self._store.read("export regression case") as conn:
            return replay.regression_case(
                conn,
                self._store.codec,
                self._mid(memory_id),
                self._store.clock.now(),
            )

    def security_events(self, *, limit: int = 1000) -> list[SecurityEvent]:
        """Sensitivity findings recorded in the log, oldest first (types only, R8)."""
        with self._store.read("security events") as conn:
            return event_log.security_events(conn, self._store.codec, limit=limit)

    # --- the read path (R13-R18, R21) -----------------------------------------------

    def inject(
        self,
        scope: Mapping[str, str] | Scope | None,
        goal: str,
        budget_tokens: int,
        *,
        session: str | None = None,
    ) -> Result[InjectResult]:
        """The runtime's per-turn injection: a budgeted reference block and its snapshot."""
        req = Scope.required(_plain(scope))
        what = valid_text(goal, "goal", limits.MAX_EVENT_TEXT)
        budget = _budget(budget_tokens)
        name = identifier(session, "session") if session is not None else None
        result = self._retriever.inject(req, what, budget, name)
        self._report_damage()
        return Result(
            result, Changes(frozenset({ChangeKind.SNAPSHOTS}), self._retriever.last_revision)
        )

    def search_memory(
        self,
        scope: Mapping[str, str] | Scope | None,
        query: str,
        *,
        limit: int = 10,
        session: str | None = None,
    ) -> list[SearchHit]:
        """The model's `search_memory`: visible, active memories with provenance (R16)."""
        req = Scope.required(_plain(scope))
        what = valid_text(query, "query", limits.MAX_MEMORY_TEXT)
        name = identifier(session, "session") if session is not None else None
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 100:
            raise InvalidInputError("limit", "must be an integer from 1 to 100")
        hits = self._retriever.search(req, what, limit, name)
        self._report_damage()
        return hits

    def get_snapshot(self, snapshot_id: str) -> Snapshot:
        """One snapshot (R18). Raises NotFoundError."""
        with self._store.read("read snapshot") as conn:
            return snapshots.get(
                conn, self._store.codec, identifier(snapshot_id, "snapshot_id", 64)
            )

    def replay(self, snapshot_id: str) -> Replay:
        """Diagnostic replay of an old model call, marking what changed since (R21)."""
        with self._store.read("replay") as conn:
            return replay.replay(
                conn,
                self._store.codec,
                identifier(snapshot_id, "snapshot_id", 64),
                self._store.clock.now(),
            )

    def resume(self, session: str, snapshot_id: str | None = None) -> ResumeResult:
        """Live resume through the ResumeGate: never re-injects removed memories (R21)."""
        name = identifier(session, "session")
        sid = identifier(snapshot_id, "snapshot_id", 64) if snapshot_id else None
        with self._store.read("resume") as conn:
            return replay.resume(conn, self._store.codec, name, sid, self._store.clock.now())

    # --- test seams (R17) -------------------------------------------------------------

    def set_fault(self, target: str, mode: str) -> None:
        """Make memory reads fail or stall (tests, drills)."""
        self.faults.set(target, mode)

    def clear_fault(self) -> None:
        """Remove an injected fault."""
        self.faults.clear()

    # --- helpers --------------------------------------------------------------------

    def _act(
        self,
        memory_id: str,
        action: str,
        by: str | None,
        fn: Callable[[WriteTx, MemoryRecord, str, str], None],
    ) -> Result[MemoryRecord]:
        mid = self._mid(memory_id)
        with self._store.write(action) as tx:
            record = memories.get(tx.conn, tx.codec, mid)
            who = identifier(by, "by") if by else record.scope.get("user", "user")
            fn(tx, record, who, record.effective_status(tx.now))
            updated = memories.get(tx.conn, tx.codec, mid)
        self.catalog.refresh([updated.id])
        return Result(updated, changes_of(tx))

    def _at_now(self, flt: MemoryFilter) -> MemoryFilter:
        """Effective statuses are judged at the store clock's now unless the filter says."""
        if flt.effective_statuses and flt.now is None:
            return replace(flt, now=self._store.clock.now())
        return flt

    def _mid(self, memory_id: str, field: str = "memory_id") -> str:
        """A memory id, accepting the short `m:xxxxxxxx` references of injected blocks."""
        ref = identifier(memory_id, field, 64)
        if not ref.startswith("m:"):
            return ref
        with self._store.read("resolve memory reference") as conn:
            return memories.resolve_ref(conn, ref)

    def _committed(self, value: T, tx: WriteTx) -> Result[T]:
        """Result of a committed write; this process's catalog (and vectors) catch up now,
        on the write path, so the next injection does not pay for embedding."""
        changes = changes_of(tx)
        with contextlib.suppress(MemoryCenterError):
            self.catalog.refresh(changes.memory_ids)
        return Result(value, changes)

    def _vector_layer(self, store: Store) -> VectorLayer | None:
        """The vector index over active memory, with the configured embedder (R14)."""
        name = os.environ.get(EMBEDDER_ENV)
        if not name:
            stored = self._setting(store, "embedder")
            name = stored if isinstance(stored, str) else None
        if name == "none":
            return None
        # A configured embedder that cannot load is not replaced by another one: the store
        # still opens (so the user can read the error and choose another embedder) with
        # keyword-only retrieval, and `check_embedder` / `index_status` say so.
        try:
            resolved = resolve_embedder(name or None)
        except EmbedderUnavailableError as exc:
            self.embedder_error = str(exc)
            return None
        self.embedder_error = resolved.fallback_reason
        return VectorLayer(resolved.embedder, store.index_dir, lambda: store.codec)

    def check_embedder(self) -> None:
        """Raise when the configured embedder is not the one in use (no silent fallback).

        Raises:
            EmbedderUnavailableError: the configured embedder could not be built, or its
                model failed to load; the message says which one and why.
        """
        layer = self.catalog.vectors
        if layer is None and self.embedder_error is not None:
            raise EmbedderUnavailableError(self.embedder_error)
        if layer is not None and layer.load_error is not None:
            raise EmbedderUnavailableError(layer.load_error)

    def index_status(self) -> dict[str, object]:
        """Which indexes exist, their sizes and the embedder (for `index status`)."""
        self.catalog.sync()
        status: dict[str, object] = {
            "revision": self.catalog.revision,
            "active_memories": len(self.catalog.records),
            "keyword_documents": len(self.catalog.keywords),
        }
        if self.catalog.vectors is not None:
            status["vector"] = self.catalog.vectors.status()
        status["embedder_in_use"] = (
            self.catalog.vectors.name if self.catalog.vectors is not None else "none (keyword only)"
        )
        layer_error = self.catalog.vectors.load_error if self.catalog.vectors else None
        status["embedder_error"] = layer_error or self.embedder_error
        return status

    def rebuild_index(self) -> dict[str, object]:
        """Throw away the derived indexes and rebuild them from the store."""
        layer = self.catalog.vectors
        if layer is not None:
            layer.index = type(layer.index)(layer.embedder.dim)
            layer.mark_loaded()
        self.catalog.invalidate()
        self.catalog.sync()
        if layer is not None:
            layer.save()
        return self.index_status()

    def embedder_choices(self) -> dict[str, str]:
        """Every known embedder by name: "" when it can be used here, else why not (a
        package it needs is not installed). Weights are not loaded."""
        out: dict[str, str] = {}
        for name in EMBEDDER_NAMES:
            try:
                make_embedder(name)
                out[name] = ""
            except MemoryCenterError as exc:
                out[name] = exc.message
        return out

    def set_embedder(self, name: str) -> Result[str]:
        """Choose the embedder (stored in the store); the vector index is rebuilt for it."""
        embedder = resolve_embedder(identifier(name, "embedder")).embedder
        with self._store.write("set embedder") as tx:
            settings.write(tx, "embedder", embedder.name)
            tx.touch(ChangeKind.INDEX)
        self.catalog.vectors = VectorLayer(
            embedder, self._store.index_dir, lambda: self._store.codec
        )
        self.embedder_error = None
        self.rebuild_index()
        return Result(embedder.name, changes_of(tx))

    def _fence_embed(self, text: str) -> tuple[str, list[float]]:
        """Embed a text for deletion-fence matching by meaning (R19), with the index's embedder."""
        layer = self.catalog.vectors
        if layer is None:
            raise ResourceUnavailableError("no embedder configured (vector index is off)")
        return layer.embedder.name, [float(x) for x in layer.embedder.embed([text])[0]]

    def _forget_derived(self, memory_id: str) -> list[str]:
        """Remove a memory from every derived store in this process; name what was cleaned."""
        self.catalog.forget(memory_id)
        return self._retriever.forget(memory_id)

    # --- settings -----------------------------------------------------------------

    def policy_settings(self) -> PolicySettings:
        """The MemoryPolicy settings in force (defaults overridden by the user's choices)."""
        return self.policy.settings

    def update_policy_settings(self, **changes: object) -> Result[PolicySettings]:
        """Change policy settings (e.g. confirm_global=True); stored in the store.

        Raises:
            InvalidInputError: an unknown setting or a bad value, named.
        """
        merged = {**self.policy.settings.to_dict(), **changes}
        new = PolicySettings.from_dict(merged)
        with self._store.write("update policy settings") as tx:
            settings.write(tx, "policy", new.to_dict())
            tx.touch(ChangeKind.POLICY)
        self.policy.settings = new
        return Result(new, changes_of(tx))

    def list_snapshots(self, session: str, *, limit: int = 200) -> list[Snapshot]:
        """A session's snapshots (model calls), oldest first."""
        name = identifier(session, "session")
        with self._store.read("list snapshots") as conn:
            ids = [sid for sid, _, _ in snapshots.list_for_session(conn, name)][-limit:]
            found = split(self._snapshot_or_damage(conn, sid) for sid in ids)
        self._report_damage(found.damaged)  # a damaged snapshot is skipped, reported once
        return list(found)

    def expire_sweep(self) -> Result[list[str]]:
        """Record an `expire` decision for memories whose time ran out (R5, R7).

        Expiry is enforced at read time anyway; the sweep makes it visible in history.
        """
        with self._store.write("expiry sweep") as tx:
            swept = controls.sweep_expired(tx)
        self.catalog.refresh(swept)
        return Result(swept, changes_of(tx))

    def _setting(self, store: Store, key: str) -> Any:
        """A stored setting; settings changed outside Memory Center count as damage: the
        defaults apply and the damage is reported (#10)."""
        try:
            with store.read("read settings") as conn:
                return settings.read(conn, key, store.codec)
        except DamagedRowError as exc:
            self._settings_damage = Damage("settings", "(all)", exc.field, exc.problem)
            return None

    def _snapshot_or_damage(self, conn: Any, snapshot_id: str) -> Snapshot | Damage:
        codec = self._store.codec
        return guarded(
            "snapshots", snapshot_id, "body", lambda: snapshots.get(conn, codec, snapshot_id)
        )

    def _stored_policy_settings(self) -> PolicySettings:
        stored = self._setting(self._store, "policy")
        return PolicySettings.from_dict(stored) if isinstance(stored, dict) else PolicySettings()

    # --- revision and change feed (R21) ----------------------------------------

    def revision(self) -> int:
        """The latest committed store revision (cheap; poll it to notice other processes)."""
        return self._store.revision()

    def changes_since(self, revision: int, limit: int = 1000) -> list[ChangeEntry]:
        """What changed after `revision`, oldest first."""
        return self._store.changes_since(revision, limit)

    # --- keys and status (R24) --------------------------------------------------

    # --- team stores on a server (members, invitations) -----------------------------

    def invite_member(self, name: str, *, by: str | None = None) -> Result[tuple[bytes, str]]:
        """Write an invitation for a member's device: the file's bytes and its one-time code.

        The code opens the file; hand them over by different channels.

        Raises:
            InvalidStateError: the store is a local file, not on a database server.
        """
        who = identifier(name, "name")
        if not self._store.is_server:
            raise InvalidStateError(
                "invitations are for stores on a database server; this store is a local file"
            )
        store_id = self._store.meta("store_id") or ""
        url = self._store.server_url(hide_password=False)
        code = new_invitation_code()
        raw = seal_invitation(Invitation(store_id, url, who, self._keys), code)
        with self._store.write("record an invitation") as tx:
            members.invited(tx, who, by)
            tx.touch(ChangeKind.SETTINGS)
        return Result((raw, code), changes_of(tx))

    def remove_member(
        self,
        name: str,
        *,
        progress: Callable[[int], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> Result[RotationReport]:
        """Remove a member: revoke their devices, then rotate the key (resumable).

        Content written after the rotation is sealed under a key the removed devices never
        receive; rows re-sealed by the rotation are unreadable to them too. What they copied
        before removal cannot be taken back.

        Raises:
            NotFoundError: no such member.
            InvalidStateError: the store is a local file.
        """
        who = identifier(name, "name")
        if not self._store.is_server:
            raise InvalidStateError("members exist only in stores on a database server")
        with self._store.write("remove a member") as tx:
            if not members.removed(tx, who):
                raise NotFoundError("member", who)
            devices.revoke_member(tx.conn, who, tx.now)
            tx.touch(ChangeKind.SETTINGS)
        return self.rotate_key(progress=progress, should_stop=should_stop)

    def members(self) -> list[MemberInfo]:
        """The members of a team store (empty for a local store)."""
        with self._store.read("list members") as conn:
            return members.listed(conn)

    @classmethod
    def join(
        cls,
        data_dir: Path,
        invitation: bytes,
        code: str,
        *,
        passphrase: str | None = None,
        clock: Clock | None = None,
        prefer_keyring: bool = True,
    ) -> MemoryService:
        """Join a team store from this machine with an invitation file and its code.

        Raises:
            WrongPassphraseError: the code does not open the invitation.
            InvalidInputError: the file is not an invitation.
            ResourceUnavailableError: `data_dir` holds a store already, or the server is away.
        """
        opened_invitation = open_invitation(invitation, code)
        opened = join_server_store(
            data_dir,
            opened_invitation,
            clock or SystemClock(),
            passphrase=passphrase,
            prefer_keyring=prefer_keyring,
        )
        service = cls(opened.store, opened.key_store, opened.keys)
        with service._store.write("record a joined device") as tx:
            members.joined(tx, opened_invitation.member)
            tx.touch(ChangeKind.SETTINGS)
        return service

    def key_info(self) -> KeyInfo:
        """Where the key lives and which key id is active."""
        backend = keyring_backend_name() if self._key_store.source == "keyring" else None
        return KeyInfo(
            source=self._key_store.source,
            active_key_id=self._store.codec.active_key_id,
            key_ids=tuple(sorted(self._keys.keys)),
            keyring_backend=backend,
        )

    def rotate_key(
        self,
        *,
        progress: Callable[[int], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> Result[RotationReport]:
        """Re-encrypt everything under a new key; resumable (see core.storage.rotation)."""
        store_id = self._store.meta("store_id") or ""
        self._keys, report = rotate(
            self._store,
            self._key_store,
            self._keys,
            store_id,
            progress=progress,
            should_stop=should_stop,
        )
        revision = self._store.revision()
        self.catalog.invalidate()
        if self.catalog.vectors is not None:
            self.catalog.vectors.reseal()
        return Result(report, Changes(frozenset({ChangeKind.KEYS}), revision))

    def status(self) -> StoreStatus:
        """Path, revision, schema version, key source and counts."""
        with self._store.read("read status") as conn:
            counts: Counter[str] = Counter(
                dict(
                    conn.execute(
                        select(s.memories.c.status, func.count()).group_by(s.memories.c.status)
                    ).all()
                )
            )
            events = event_log.count_events(conn)
            sessions = conn.execute(select(func.count()).select_from(s.sessions)).scalar_one()
            version = current_version(conn)
            revision = Store._revision(conn)
            damaged = len(integrity.reported(conn, self._store.codec))
        return StoreStatus(
            path=self._store.location,
            store_id=self._store.meta("store_id") or "",
            schema_version=version,
            revision=revision,
            key=self.key_info(),
            event_count=events,
            session_count=int(sessions),
            memory_counts=dict(counts),
            damaged_rows=damaged,
        )

    def _reload_keys(self) -> Codec:
        self._keys = self._key_store.load()
        return Codec(self._keys, reload=self._key_store.load)

    # --- writes while the server is away (R23) --------------------------------------

    def write_gate(self) -> Spooler | None:
        """The offline spool of a store on a server (None for a local file)."""
        if not self._store.is_server or self._store.index_dir is None:
            return None
        if getattr(self, "_spooler", None) is None:
            data_dir = self._store.index_dir.parent
            self._spooler = Spooler(self, self._store, data_dir, device_id(data_dir))
        return self._spooler

    def spool_status(self) -> SpoolStatus:
        """Writes waiting on this machine for the server, the oldest, the last error."""
        gate = self.write_gate()
        return gate.status() if gate else SpoolStatus(0, None, None, offline=False)

    def spooled_writes(self) -> list[SpoolEntry]:
        """The waiting writes, oldest first (what and when, not their content)."""
        gate = self.write_gate()
        return gate.local.entries() if gate else []

    def flush_spool(self) -> FlushReport:
        """Apply the waiting writes in order, each decided by the policy now."""
        gate = self.write_gate()
        return gate.flush() if gate else FlushReport((), (), (), 0)

    def wait_for_change(self, revision: int, timeout: float = 5.0) -> int:
        """Block until the store revision passes `revision` (another process or machine
        committed) or `timeout` seconds pass; returns the revision last seen. LISTEN/NOTIFY
        on PostgreSQL, polling on SQLite.

        Raises:
            ServerUnavailableError: the server cannot be reached.
        """
        return self._store.wait_for_change(revision, min(max(timeout, 0.0), 60.0))

    @staticmethod
    def offline_spool_status(data_dir: Path) -> SpoolStatus:
        """The spool of `data_dir` read without opening the store (no key, no server):
        what `status` can still say while the server is away."""
        return spool_summary(data_dir)


def _one(found: Sequence[MemoryRecord], memory_id: str) -> MemoryRecord:
    """The one record `load` found, or the error that says why there is none."""
    damaged = getattr(found, "damaged", ())
    if damaged:
        bad = damaged[0]
        raise DamagedRowError(bad.field, f"memory {memory_id} is damaged: {bad.line()}")
    if not found:
        raise NotFoundError("memory", memory_id)
    return found[0]


def _plain(scope: Mapping[str, str] | Scope | None) -> Mapping[str, str] | None:
    if isinstance(scope, Scope):
        return dict(scope.items_)
    return scope


def _budget(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 100_000:
        raise InvalidInputError(
            "budget_tokens", "must be a whole number of tokens from 1 to 100000"
        )
    return value
