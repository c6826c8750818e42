"""`service.spool`: writes while the server of a shared store is away (R23): the spool
gate, the waiting writes, flushing them; and, for a store that cannot be opened now, the
spool read from its file and written with this machine's copy of the key set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.model.clock import Clock, SystemClock
from core.model.commands import Command
from core.model.spool import FlushReport, SpoolEntry, SpoolStatus
from core.services.context import Engine
from core.storage.opener import device_id, offline_codec
from core.workflows.spool import (
    SIGNATURES,
    OfflineWriter,
    Spooler,
    spool_entries,
    spool_summary,
)


class SpoolService:
    """The offline spool of one service over a store on a server.

    Args:
        engine: the shared engine (its store).
        service: the service whose namespaces' undecorated `@spoolable` methods replay
            spooled entries (`memories.remember`, `review.approve`, ...).
    """

    def __init__(self, engine: Engine, service: object) -> None:
        self._e = engine
        self._service = service
        self._spooler: Spooler | None = None

    def gate(self) -> Spooler | None:
        """The spool gate of a store on a server (None for a local file)."""
        store = self._e.store
        if not store.is_server or store.index_dir is None:
            return None
        if self._spooler is None:
            data_dir = store.index_dir.parent
            self._spooler = Spooler(self.replay, store, data_dir, device_id(data_dir))
        return self._spooler

    def replay(self, command: Command[Any]) -> object:
        """Run a command the spool kept (`service.commands` runs it through the pipeline)."""
        raise NotImplementedError

    def status(self) -> SpoolStatus:
        """Writes waiting on this machine for the server, the oldest, the last error."""
        gate = self.gate()
        return gate.status() if gate else SpoolStatus(0, None, None, offline=False)

    def entries(self) -> list[SpoolEntry]:
        """The waiting writes, oldest first (what and when, not their content)."""
        gate = self.gate()
        return gate.local.entries() if gate else []

    def flush(self) -> FlushReport:
        """Apply the waiting writes in order, each decided by the policy now."""
        gate = self.gate()
        return gate.flush() if gate else FlushReport((), (), (), 0)

    # --- a store that cannot be opened now (no key, no server) ---------------------------

    @staticmethod
    def offline_status(data_dir: Path) -> SpoolStatus:
        """The spool of `data_dir` read without opening the store (no key, no server):
        what `status` can still say while the server is away."""
        return spool_summary(data_dir)

    @staticmethod
    def offline_entries(data_dir: Path) -> list[SpoolEntry]:
        """The waiting writes of `data_dir` read without opening the store (no key, no
        server): what `spool list` can still say while the server is away."""
        return spool_entries(data_dir)

    @staticmethod
    def offline_writer(
        data_dir: Path,
        *,
        passphrase: str | None = None,
        clock: Clock | None = None,
        reason: str = "the database server is not reachable",
    ) -> OfflineWriter:
        """Writes for a store on a server that cannot be opened now: each `spool(...)` is
        sealed into this machine's spool and applied by the next open (R23).

        Raises:
            ResourceUnavailableError: not a server store, or never opened on this machine
                since it records what offline writes need.
            KeyUnavailableError: this machine's copy of the key set cannot be loaded.
            WrongPassphraseError: the passphrase does not unlock the key file.
        """
        codec = offline_codec(data_dir, passphrase)
        return OfflineWriter(data_dir, codec, clock or SystemClock(), SIGNATURES, reason)
