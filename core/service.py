"""`MemoryService`: the one public facade of the core (HOUSE_STYLE, like Anki's Collection).

The UI, the CLI, the MCP server and the SDK reach the store only through this class. It is
synchronous and thread-safe. Every mutating call runs in one transaction and returns a
`Result` with the value and the `Changes` it committed, including the new store revision.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from sqlalchemy import func, select, update

from core.crypto.codec import Codec
from core.crypto.keys import KeySet, KeyStore, keyring_backend_name
from core.errors import NotFoundError
from core.model.clock import Clock, SystemClock
from core.model.enums import ChangeKind
from core.model.records import (
    ChangeEntry,
    Event,
    KeyInfo,
    NewEvent,
    Result,
    RotationReport,
    SessionInfo,
    StoreStatus,
    VerifyReport,
)
from core.model.validate import identifier, new_event
from core.storage import event_log
from core.storage import schema as s
from core.storage.migrations import current_version
from core.storage.opener import open_store
from core.storage.rotation import rotate
from core.storage.store import Store, changes_of


class MemoryService:
    """The facade over one store.

    Args:
        store: the opened store.
        key_store: where the key set lives (for rotation and status).
        keys: the current key set.
    """

    def __init__(self, store: Store, key_store: KeyStore, keys: KeySet) -> None:
        self._store = store
        self._key_store = key_store
        self._keys = keys
        store.key_reloader = self._reload_keys

    @classmethod
    def open(
        cls,
        data_dir: Path,
        *,
        passphrase: str | None = None,
        clock: Clock | None = None,
        create: bool = True,
        prefer_keyring: bool = True,
    ) -> MemoryService:
        """Open (or create) the store in `data_dir`. See `core.storage.opener.open_store`."""
        opened = open_store(
            data_dir,
            clock or SystemClock(),
            passphrase=passphrase,
            create=create,
            prefer_keyring=prefer_keyring,
        )
        return cls(opened.store, opened.key_store, opened.keys)

    def close(self) -> None:
        """Release database connections. The service is unusable afterwards."""
        self._store.dispose()

    def __enter__(self) -> MemoryService:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # --- the event log (R1-R3) -------------------------------------------------

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
            return event_log.list_events(
                conn,
                self._store.codec,
                session=session,
                after_position=after_position,
                before_position=before_position,
                limit=max(1, min(limit, 10_000)),
                newest_first=newest_first,
            )

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

        Raises:
            NotFoundError: no such session.
        """
        name = identifier(session, "session")
        with self._store.write("set session opt-out") as tx:
            found = tx.conn.execute(
                update(s.sessions).where(s.sessions.c.id == name).values(opted_out=opted_out)
            )
            if found.rowcount == 0:
                raise NotFoundError("session", name)
            tx.touch(ChangeKind.SESSIONS)
            info = event_log.get_session(tx.conn, name)
        return Result(info, changes_of(tx))

    def verify(self) -> VerifyReport:
        """Walk the hash chain and decrypt every payload; report the first failure (R3)."""
        with self._store.read("verify the event log") as conn:
            return event_log.verify(conn, self._store.codec)

    # --- revision and change feed (R21) ----------------------------------------

    def revision(self) -> int:
        """The latest committed store revision (cheap; poll it to notice other processes)."""
        return self._store.revision()

    def changes_since(self, revision: int, limit: int = 1000) -> list[ChangeEntry]:
        """What changed after `revision`, oldest first."""
        return self._store.changes_since(revision, limit)

    # --- keys and status (R24) --------------------------------------------------

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
        from core.model.records import Changes

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
        return StoreStatus(
            path=str(self._store.path),
            store_id=self._store.meta("store_id") or "",
            schema_version=version,
            revision=revision,
            key=self.key_info(),
            event_count=events,
            session_count=int(sessions),
            memory_counts=dict(counts),
        )

    def _reload_keys(self) -> Codec:
        self._keys = self._key_store.load()
        return Codec(self._keys)
