"""The event log, sessions, live capture and the change feed (R1-R3, R21, R26)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.model.capture import CaptureCursor
from core.model.memory import Snapshot
from core.model.records import (
    ChangeEntry,
    Event,
    NewEvent,
    Result,
    SessionInfo,
    VerifyReport,
)
from core.model.validate import identifier, new_event, whole_number
from core.services.context import Engine
from core.storage import checkup, cursors, event_log, governed, snapshots, status
from core.storage.damage import Damage, guarded, split
from core.storage.store import changes_of


class EventService:
    """Append and read the hash-chained event log; sessions and capture cursors."""

    def __init__(self, engine: Engine) -> None:
        self._e = engine

    def append_event(self, item: NewEvent) -> Result[Event]:
        """Append one event to a session's log (the session is created on first use).

        Raises:
            InvalidInputError: a field is missing, unknown or oversized (nothing written).
            ScopeRequiredError: the event has no scope."""
        valid = new_event(item)
        with self._e.store.write("append event", session=valid.session) as tx:
            (event,) = event_log.append(tx, [valid])
        return Result(event, changes_of(tx))

    def append_events(self, items: Sequence[NewEvent]) -> Result[list[Event]]:
        """Append several events in one transaction: all of them or none.

        Raises:
            InvalidInputError: naming the index and field of the first bad event."""
        valid = [new_event(item, field=f"events[{i}]") for i, item in enumerate(items)]
        with self._e.store.write("append events") as tx:
            events = event_log.append(tx, valid) if valid else []
        return Result(events, changes_of(tx))

    def list_events(
        self,
        *,
        session: str | None,
        after_position: int,
        before_position: int | None,
        limit: int,
        newest_first: bool,
    ) -> list[Event]:
        if session is not None:
            session = identifier(session, "session")
        whole_number(after_position, "after_position")
        if before_position is not None:
            whole_number(before_position, "before_position")
        whole_number(limit, "limit")
        store = self._e.store
        store.settle()  # events written with this process's queued snapshots (`record_with`)
        with store.read("list events") as conn:
            found = event_log.list_events(
                conn,
                store.codec,
                session=session,
                after_position=after_position,
                before_position=before_position,
                limit=max(1, min(limit, 10_000)),
                newest_first=newest_first,
            )
        self._e.report_damage(getattr(found, "damaged", ()))  # skipped, reported once (#10)
        return list(found)

    def get_events(self, ids: Sequence[str]) -> list[Event]:
        self._e.store.settle()
        with self._e.store.read("read events") as conn:
            return event_log.get_events(conn, self._e.store.codec, ids)

    def list_sessions(self, *, limit: int, offset: int) -> list[SessionInfo]:
        whole_number(limit, "limit", 1)
        whole_number(offset, "offset")
        self._e.store.settle()  # event counts include those of queued snapshots' events
        with self._e.store.read("list sessions") as conn:
            found = event_log.list_sessions(conn, limit=limit, offset=offset)
            codec = self._e.store.codec
            return [governed.session_as_recorded(conn, codec, info) for info in found]

    def get_session(self, session: str) -> SessionInfo:
        self._e.store.settle()
        with self._e.store.read("read session") as conn:
            info = event_log.get_session(conn, identifier(session, "session"))
            return governed.session_as_recorded(conn, self._e.store.codec, info)

    def set_session_opt_out(self, session: str, opted_out: bool) -> Result[SessionInfo]:
        """Switch per-session memory opt-out (R26): nothing injected, nothing extracted.

        A session named before its first event is created, so an agent can opt out first."""
        name = identifier(session, "session")
        with self._e.store.write("set session opt-out") as tx:
            status.set_opt_out(tx, name, opted_out)
            info = event_log.get_session(tx.conn, name)
        return Result(info, changes_of(tx))

    def verify(self) -> VerifyReport:
        store = self._e.store
        data_dir = store.path.parent if store.path else None
        store.settle()
        with store.read("verify the store") as conn:
            return checkup.verify_store(conn, store.codec, data_dir)

    # --- live capture --------------------------------------------------------------------

    def capture_cursor(self, key: str, agent: str) -> CaptureCursor:
        with self._e.store.read("read capture cursor") as conn:
            return cursors.read(conn, identifier(key, "key", 200), identifier(agent, "agent"))

    def append_captured(
        self,
        items: Sequence[NewEvent],
        cursor: CaptureCursor,
        position: int,
        state: dict[str, Any] | None,
    ) -> Result[list[Event]]:
        """Append captured events and advance their source's cursor in one transaction.

        Raises:
            ConflictError: the cursor moved since it was read (another capture recorded
                these lines); nothing is written.
            InvalidInputError: naming the index and field of the first bad event."""
        valid = [new_event(item, field=f"events[{i}]") for i, item in enumerate(items)]
        with self._e.store.write("append captured events") as tx:
            events = event_log.append(tx, valid) if valid else []
            cursors.advance(tx, cursor, position, state, len(events))
        return Result(events, changes_of(tx))

    def capture_totals(self) -> dict[str, tuple[int, int]]:
        with self._e.store.read("capture totals") as conn:
            return cursors.totals(conn)

    # --- snapshots of a session and the change feed ------------------------------------------

    def list_snapshots(self, session: str, *, limit: int) -> list[Snapshot]:
        name = identifier(session, "session")
        whole_number(limit, "limit", 1)
        self._e.store.settle()
        with self._e.store.read("list snapshots") as conn:
            ids = [sid for sid, _, _ in snapshots.list_for_session(conn, name)][-limit:]
            found = split(self._snapshot_or_damage(conn, sid) for sid in ids)
        self._e.report_damage(found.damaged)  # a damaged snapshot is skipped, reported once
        return list(found)

    def _snapshot_or_damage(self, conn: Any, snapshot_id: str) -> Snapshot | Damage:
        codec = self._e.store.codec
        return guarded(
            "snapshots", snapshot_id, "body", lambda: snapshots.get(conn, codec, snapshot_id)
        )

    def revision(self) -> int:
        self._e.store.settle()  # counts this process's recorded injections
        return self._e.store.revision()

    def changes_since(self, revision: int, limit: int) -> list[ChangeEntry]:
        whole_number(revision, "revision")
        whole_number(limit, "limit", 1)
        return self._e.store.changes_since(revision, limit)
