"""Writes while the server of a shared store is away (R23): the facade's spool gate, the
waiting writes, flushing them, and waiting for another machine's commit (LISTEN/NOTIFY)."""

from __future__ import annotations

from core.model.spool import FlushReport, SpoolEntry, SpoolStatus
from core.services.context import Engine
from core.storage.opener import device_id
from core.workflows.spool import Spooler

# Longest single wait for a change: a caller that wants longer asks again.
MAX_WAIT_SECONDS = 60.0


class SpoolService:
    """The offline spool of one service over a store on a server.

    Args:
        engine: the shared engine (its store).
        facade: the service whose undecorated `@spoolable` methods replay spooled entries.
    """

    def __init__(self, engine: Engine, facade: object) -> None:
        self._e = engine
        self._facade = facade
        self._spooler: Spooler | None = None

    def gate(self) -> Spooler | None:
        """The spool gate of a store on a server (None for a local file)."""
        store = self._e.store
        if not store.is_server or store.index_dir is None:
            return None
        if self._spooler is None:
            data_dir = store.index_dir.parent
            self._spooler = Spooler(self._facade, store, data_dir, device_id(data_dir))
        return self._spooler

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

    def wait_for_change(self, revision: int, timeout: float) -> int:
        """Block until the store revision passes `revision` or `timeout` seconds pass
        (bounded to 0..MAX_WAIT_SECONDS); returns the revision last seen."""
        bounded = min(max(timeout, 0.0), MAX_WAIT_SECONDS)
        return self._e.store.wait_for_change(revision, bounded)
