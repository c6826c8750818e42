"""`MemoryService`: the one public facade of the core (HOUSE_STYLE, like Anki's Collection).

The UI, the CLI, the MCP server and the SDK reach the store only through this class. It is
synchronous and thread-safe. Every mutating call runs in one transaction and returns a
`Result` with the value and the `Changes` it committed, including the new store revision.

The facade is a handful of names: opening, joining and closing a store, the store's status
and its verification, and one namespace per feature, each a feature service of
`core/services/` over one shared `Engine`:

    service.events     the event log, sessions, live capture, the change feed (R1-R3, R21)
    service.memories   the write path and reading records, history, lineage (R4-R12, R22)
    service.review     the user's controls: approve, edit, rescope, conflicts, delete (R9, R19)
    service.retrieval  inject, search, snapshots, replay and resume (R13-R18, R21)
    service.index      the derived indexes and the embedder, loading them (R14)
    service.policy     the MemoryPolicy in force and its settings (R7)
    service.keys       the key set and its rotation (R24)
    service.team       members and invitations of a team store (R24)
    service.agents     per-agent pause, the agents seen (R26)
    service.commands   the one way in for changes (execute), the spool while the server is
                       away (R23)

Configuration (the embedder choice) is made by the composition root (`app/compose.py`) and
passed in; used directly, the core takes the embedder stored in the store, else the default.
"""

from __future__ import annotations

import contextlib
import dataclasses
from pathlib import Path
from typing import Self

from core.crypto.codec import Codec
from core.crypto.invitation import open_invitation
from core.crypto.keys import KeySet, KeyStore
from core.errors import InvalidInputError, MemoryCenterError
from core.governance.extractor import Extractor
from core.governance.policy import MemoryPolicy
from core.model.clock import Clock, SystemClock
from core.model.records import StoreStatus, VerifyReport
from core.model.validate import identifier
from core.services.admin import IndexAdmin, KeyAdmin, PolicyAdmin
from core.services.agents import AgentControls
from core.services.commands import Commands
from core.services.context import Engine, EngineConfig
from core.services.events import EventService
from core.services.memories import Memories
from core.services.retrieval import RetrievalService
from core.services.review import ReviewService
from core.services.spool import SpoolService
from core.services.team import TeamAdmin
from core.storage import checkup, event_log, status
from core.storage.migrations import current_version
from core.storage.opener import discard_new_store, join_server_store, open_store
from core.storage.store import Store, revision_of
from core.workflows import integrity

# How long `close` waits for queued embeddings before saving the vector index.
CLOSE_EMBED_SECONDS = 60.0
CLOSE_STOP_SECONDS = 30.0

__all__ = ["MemoryService", "SpoolService"]


class MemoryService:
    """The facade over one store: open/join/close, `status`, `verify` and the namespaces.

    Args:
        store: the opened store.
        key_store: where the key set lives (for rotation and status).
        keys: the current key set.
        embedder: the embedder by name, chosen by the composition root; None takes the one
            stored in the store, else the default; "none" switches vectors off.
    """

    events: EventService
    memories: Memories
    review: ReviewService
    retrieval: RetrievalService
    index: IndexAdmin
    policy: PolicyAdmin
    keys: KeyAdmin
    team: TeamAdmin
    agents: AgentControls
    commands: Commands

    def __init__(
        self,
        store: Store,
        key_store: KeyStore,
        keys: KeySet,
        *,
        policy: MemoryPolicy | None = None,
        extractor: Extractor | None = None,
        embedder: str | None = None,
        hot_path_seconds: float | None = None,
    ) -> None:
        self._store = store
        self._key_store = key_store
        engine = Engine(
            store,
            key_store,
            keys,
            policy=policy,
            extractor=extractor,
            config=EngineConfig(embedder=embedder, hot_path_seconds=hot_path_seconds),
        )
        self._engine = engine
        store.key_reloader = self._reload_keys
        self.events = EventService(engine)
        self.memories = Memories(engine)
        self.review = ReviewService(engine)
        self.retrieval = RetrievalService(engine)
        self.index = IndexAdmin(engine)
        self.policy = PolicyAdmin(engine)
        self.keys = KeyAdmin(engine)
        self.team = TeamAdmin(engine, self.keys)
        self.agents = AgentControls(
            engine, lambda: self.events.list_sessions(limit=100_000, offset=0)
        )
        # Every change from outside comes in as a command (#39); spooled writes replay
        # through the namespaces' undecorated methods (R23).
        self.commands = Commands(engine, self)
        engine.write_gate = self.commands.gate

    @classmethod
    def open(
        cls,
        data_dir: Path | str,
        *,
        passphrase: str | None = None,
        clock: Clock | None = None,
        create: bool = True,
        prefer_keyring: bool = True,
        database_url: str | None = None,
        embedder: str | None = None,
        member: str | None = None,
        hot_path_seconds: float | None = None,
    ) -> Self:
        """Open (or create) the store in `data_dir`. See `core.storage.opener.open_store`."""
        if not str(data_dir) or "\x00" in str(data_dir):
            # Path("") is the working directory: a store would silently land there.
            raise InvalidInputError("data_dir", "must be a directory path (empty or with NUL)")
        data_dir = Path(data_dir)
        opened = open_store(
            data_dir,
            clock or SystemClock(),
            passphrase=passphrase,
            create=create,
            prefer_keyring=prefer_keyring,
            database_url=database_url,
            member=identifier(member, "member", 64) if member else None,
        )
        try:
            return cls(
                opened.store,
                opened.key_store,
                opened.keys,
                embedder=embedder,
                hot_path_seconds=hot_path_seconds,
            )
        except BaseException:
            # e.g. a misconfigured embedder: a store this call created is not left behind.
            opened.store.dispose()
            if opened.created:
                discard_new_store(
                    data_dir, remove_lock=opened.lock_created, remove_dir=opened.dir_created
                )
            raise

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
        embedder: str | None = None,
    ) -> Self:
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
        service = cls(opened.store, opened.key_store, opened.keys, embedder=embedder)
        service.team.record_joined(identifier(opened_invitation.member, "name"))
        return service

    def close(self, *, embed_seconds: float = CLOSE_EMBED_SECONDS) -> None:
        """Save the derived index files and release connections; the service is then unusable.

        `embed_seconds`: how long to go on embedding what is still queued. An application
        quitting at the user's request passes 0 (#43: the desktop lingered for seconds after
        its window closed); nothing is lost, the next open embeds what is missing."""
        self._engine.recorder.close()
        catalog = self._engine.catalog
        with contextlib.suppress(MemoryCenterError):
            if catalog.vectors is not None:
                # What is still queued is embedded now, within a bound; the rest is found
                # missing and embedded in the background by the next open.
                with contextlib.suppress(MemoryCenterError):
                    catalog.vectors.wait_idle(
                        embed_seconds, with_windows=False, with_backfill=False
                    )
                # A first build of a big store may still run: it stops after its batch, so
                # nothing reads from the store or writes index files once close returns.
                catalog.vectors.stop(CLOSE_STOP_SECONDS)
            if catalog.loaded:
                # Deletions other processes made since this one last read: their vectors and
                # terms must not be written back to the index files (R19).
                catalog.sync()
            catalog.save()
        self._engine.retriever.close()
        self._store.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # --- the whole store ------------------------------------------------------------------

    def status(self) -> StoreStatus:
        """Path, revision, schema version, key source and counts."""
        store = self._store
        with store.read("read status") as conn:
            counts = status.memory_counts(conn)
            events = event_log.count_events(conn)
            sessions = status.session_count(conn)
            version = current_version(conn)
            revision = revision_of(conn)
            damaged = len(integrity.reported(conn, store.codec))
        return StoreStatus(
            path=store.location,
            store_id=store.meta("store_id") or "",
            schema_version=version,
            revision=revision,
            key=self.keys.info(),
            event_count=events,
            session_count=sessions,
            memory_counts=counts,
            damaged_rows=damaged,
            membership_problems=self.team.membership_problems(),
        )

    def verify(self) -> VerifyReport:
        """Check everything and report the first failure (R3, #10): SQLite's integrity
        check, the hash chain and every payload, every sealed column and file, and each
        memory's metadata binding (see core/storage/checkup.py); on a team store, what the
        signed membership does not back is listed too (ignored, not a failure)."""
        store = self._store
        data_dir = store.path.parent if store.path else None
        store.settle()
        with store.read("verify the store") as conn:
            report = checkup.verify_store(conn, store.codec, data_dir)
        problems = self.team.membership_problems()
        return dataclasses.replace(report, membership_problems=problems) if problems else report

    # --- engine state a few callers need ------------------------------------------------

    @property
    def _keys(self) -> KeySet:
        return self._engine.keys

    @_keys.setter
    def _keys(self, value: KeySet) -> None:
        self._engine.keys = value

    def _reload_keys(self) -> Codec:
        return self._engine.reload_keys()
