"""`service.events`: the event log, sessions, live capture, security events and the change
feed (R1-R3, R8, R21, R26)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.model.capture import CaptureCursor
from core.model.memory import SecurityEvent
from core.model.records import ChangeEntry, Event, NewEvent, Result, SessionInfo
from core.model.validate import identifier, listed, new_event, whole_number
from core.services.context import Engine
from core.storage import cursors, event_log, governed, status
from core.storage.store import changes_of
from core.workflows.spool import Spooler, spoolable

# Longest single wait for a change: a caller that wants longer asks again.
MAX_WAIT_SECONDS = 60.0


class EventService:
    """Append and read the hash-chained event log; sessions and capture cursors; the
    change feed (`revision`, `changes_since`, `wait_for_change`)."""

    def __init__(self, engine: Engine) -> None:
        self._e = engine

    def _write_gate(self) -> Spooler | None:
        return self._e.write_gate()

    @spoolable("events.append_event")
    def append_event(self, item: NewEvent) -> Result[Event]:
        """Append one event to a session's log (the session is created on first use).

        Raises:
            InvalidInputError: a field is missing, unknown or oversized (nothing written).
            ScopeRequiredError: the event has no scope."""
        valid = new_event(item)
        with self._e.store.write("append event", session=valid.session) as tx:
            (event,) = event_log.append(tx, [valid])
        return Result(event, changes_of(tx))

    @spoolable("events.append_events")
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
        session: str | None = None,
        after_position: int = 0,
        before_position: int | None = None,
        limit: int = 100,
        newest_first: bool = False,
    ) -> list[Event]:
        """Events in log order, decrypted; filter by session, page by position."""
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
        """The events with these ids. Raises NotFoundError for an unknown id."""
        ids = [str(i) for i in listed(ids, "ids")]
        self._e.store.settle()
        with self._e.store.read("read events") as conn:
            return event_log.get_events(conn, self._e.store.codec, ids)

    def list_sessions(self, *, limit: int = 1000, offset: int = 0) -> list[SessionInfo]:
        """Sessions, most recently active first."""
        whole_number(limit, "limit", 1)
        whole_number(offset, "offset")
        self._e.store.settle()  # event counts include those of queued snapshots' events
        with self._e.store.read("list sessions") as conn:
            found = event_log.list_sessions(conn, limit=limit, offset=offset)
            codec = self._e.store.codec
            return [governed.session_as_recorded(conn, codec, info) for info in found]

    def get_session(self, session: str) -> SessionInfo:
        """One session. Raises NotFoundError."""
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

    # --- live capture --------------------------------------------------------------------

    def capture_cursor(self, key: str, agent: str) -> CaptureCursor:
        """Where capture of one source stopped (a fresh cursor if it never started)."""
        with self._e.store.read("read capture cursor") as conn:
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
            InvalidInputError: naming the index and field of the first bad event."""
        valid = [new_event(item, field=f"events[{i}]") for i, item in enumerate(items)]
        with self._e.store.write("append captured events") as tx:
            events = event_log.append(tx, valid) if valid else []
            cursors.advance(tx, cursor, position, state, len(events))
        return Result(events, changes_of(tx))

    def capture_totals(self) -> dict[str, tuple[int, int]]:
        """Per agent: (sources followed, events captured) by live capture."""
        with self._e.store.read("capture totals") as conn:
            return cursors.totals(conn)

    def security_events(self, *, limit: int = 1000) -> list[SecurityEvent]:
        """Sensitivity findings recorded in the log, oldest first (types only, R8)."""
        whole_number(limit, "limit", 1)
        with self._e.store.read("security events") as conn:
            return event_log.security_events(conn, self._e.store.codec, limit=limit)

    # --- the change feed (R21) ---------------------------------------------------------------

    def revision(self) -> int:
        """The latest committed store revision (cheap; poll it to notice other processes)."""
        self._e.store.settle()  # counts this process's recorded injections
        return self._e.store.revision()

    def changes_since(self, revision: int, limit: int = 1000) -> list[ChangeEntry]:
        """What changed after `revision`, oldest first."""
        whole_number(revision, "revision")
        whole_number(limit, "limit", 1)
        return self._e.store.changes_since(revision, limit)

    def wait_for_change(self, revision: int, timeout: float = 5.0) -> int:
        """Block until the store revision passes `revision` (another process or machine
        committed) or `timeout` seconds pass (bounded to 0..MAX_WAIT_SECONDS); returns the
        revision last seen. LISTEN/NOTIFY on PostgreSQL, polling on SQLite.

        Raises:
            ServerUnavailableError: the server cannot be reached.
        """
        bounded = min(max(timeout, 0.0), MAX_WAIT_SECONDS)
        return self._e.store.wait_for_change(revision, bounded)
