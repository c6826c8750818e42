"""The base of the facade: opening a store, building the shared `Engine` and the feature
services over it, and closing. `core/service.py` holds the public operations."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Self

from core.crypto.codec import Codec
from core.crypto.invitation import open_invitation
from core.crypto.keys import KeySet, KeyStore
from core.errors import InvalidInputError, MemoryCenterError
from core.governance.extractor import Extractor
from core.governance.policy import MemoryPolicy
from core.model.clock import Clock, SystemClock
from core.model.validate import identifier
from core.retrieval.catalog import Catalog
from core.retrieval.guard import FaultSwitch
from core.services.admin import IndexAdmin, KeyAdmin
from core.services.agents import AgentControls
from core.services.batches import BatchWrites
from core.services.context import Engine, EngineConfig
from core.services.events import EventService
from core.services.memories import MemoryReads, MemoryWrites
from core.services.retrieval import RetrievalService
from core.services.review import ReviewService
from core.services.spool import SpoolService
from core.storage.opener import discard_new_store, join_server_store, open_store
from core.storage.store import Store

# How long `close` waits for queued embeddings before saving the vector index.
CLOSE_EMBED_SECONDS = 60.0
CLOSE_STOP_SECONDS = 30.0


class FacadeBase:
    """What `MemoryService` is built on: the open store, the shared engine and the feature
    services, opening and closing, and the engine state the facade exposes.

    Args:
        store: the opened store.
        key_store: where the key set lives (for rotation and status).
        keys: the current key set.
        embedder: the embedder by name, chosen by the composition root; None takes the one
            stored in the store, else the default; "none" switches vectors off.
    """

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
        self._events = EventService(engine)
        self._writes = MemoryWrites(engine)
        self._reads = MemoryReads(engine)
        self._review = ReviewService(engine)
        self._retrieval = RetrievalService(engine)
        self._index = IndexAdmin(engine)
        self._admin = KeyAdmin(engine)
        self._agents = AgentControls(engine)
        self._batches = BatchWrites(engine)
        self._spool = SpoolService(engine, self)

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

    def close(self, *, embed_seconds: float = CLOSE_EMBED_SECONDS) -> None:
        """Save the derived index files and release connections; the service is then unusable.

        `embed_seconds`: how long to go on embedding what is still queued. An application
        quitting at the user's request passes 0 (#43: the desktop lingered for seconds after
        its window closed); nothing is lost, the next open embeds what is missing."""
        self._engine.recorder.close()
        with contextlib.suppress(MemoryCenterError):
            if self.catalog.vectors is not None:
                # What is still queued is embedded now, within a bound; the rest is found
                # missing and embedded in the background by the next open.
                with contextlib.suppress(MemoryCenterError):
                    self.catalog.vectors.wait_idle(
                        embed_seconds, with_windows=False, with_backfill=False
                    )
                # A first build of a big store may still run: it stops after its batch, so
                # nothing reads from the store or writes index files once close returns.
                self.catalog.vectors.stop(CLOSE_STOP_SECONDS)
            if self.catalog.loaded:
                # Deletions other processes made since this one last read: their vectors and
                # terms must not be written back to the index files (R19).
                self.catalog.sync()
            self.catalog.save()
        self._engine.retriever.close()
        self._store.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # --- the shared engine's state, as the facade always exposed it ----------------------

    @property
    def catalog(self) -> Catalog:
        """This process's mirror of active memory (keyword and vector indexes)."""
        return self._engine.catalog

    @property
    def policy(self) -> MemoryPolicy:
        """The MemoryPolicy in force."""
        return self._engine.policy

    @property
    def extractor(self) -> Extractor:
        """What proposes candidates from events (rules by default; the app may set an LLM)."""
        return self._engine.extractor

    @extractor.setter
    def extractor(self, value: Extractor) -> None:
        self._engine.extractor = value

    @property
    def faults(self) -> FaultSwitch:
        """The fault switch of the read path (tests, drills)."""
        return self._engine.faults

    @property
    def embedder_error(self) -> str | None:
        """Why the configured embedder is not in use, if it is not."""
        return self._engine.embedder_error

    @property
    def _keys(self) -> KeySet:
        return self._engine.keys

    @_keys.setter
    def _keys(self, value: KeySet) -> None:
        self._engine.keys = value

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
        service._admin.record_joined(identifier(opened_invitation.member, "name"))
        return service

    def _reload_keys(self) -> Codec:
        return self._engine.reload_keys()
