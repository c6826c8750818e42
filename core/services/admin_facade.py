"""The administration half of the facade: the derived indexes and the embedder, keys and
team members, writes while the server is away, and agents (warm-up, pause).

`MemoryService` (core/service.py) inherits it, so the public API is one class; the split
only keeps each file small. Like the rest of the facade, every method is a one-line
delegation to a feature service in `core/services/`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path

from core.governance.agents import AgentInfo
from core.model.clock import Clock, SystemClock
from core.model.records import (
    InvitationInfo,
    KeyInfo,
    MemberInfo,
    Result,
    RotationProgress,
    RotationReport,
    StoreStatus,
)
from core.model.spool import FlushReport, SpoolEntry, SpoolStatus
from core.services.facade import FacadeBase
from core.storage.opener import offline_codec
from core.workflows.spool import SPOOLABLE, OfflineWriter, Spooler, spool_entries, spool_summary


class AdminFacade(FacadeBase):
    """Indexes, keys, members, the offline spool and agents (see `MemoryService`)."""

    # --- the derived indexes and the embedder (R14) ----------------------------------

    def check_embedder(self) -> None:
        """Raise when the configured embedder is not the one in use (no silent fallback)."""
        self._index.check_embedder()

    def index_status(self) -> dict[str, object]:
        """Which indexes exist, their sizes and the embedder (for `index status`)."""
        return self._index.index_status()

    def rebuild_index(self) -> dict[str, object]:
        """Throw away the derived indexes and rebuild them from the store."""
        return self._index.rebuild_index()

    def embedder_choices(self) -> dict[str, str]:
        """Every known embedder by name: "" when it can be used here, else why not (a
        package it needs is not installed). Weights are not loaded."""
        return self._index.embedder_choices()

    def set_embedder(self, name: str) -> Result[str]:
        """Choose the embedder (stored in the store); the vector index is rebuilt for it."""
        return self._index.set_embedder(name)

    def set_conversation_windows(self, enabled: bool) -> Result[bool]:
        """Embed recorded turns together with the turns around them (on by default, #17),
        or not: off takes the background embedding of an import to about a third and
        drops the stored windows; retrieval then mixes in the mean of the neighbours'
        vectors instead. Stored in the store."""
        return self._index.set_conversation_windows(enabled)

    # --- team stores on a server (members, invitations) -----------------------------

    def invite_member(
        self,
        name: str,
        *,
        by: str | None = None,
        role: str | None = None,
        expires_hours: float | None = None,
    ) -> Result[tuple[bytes, str]]:
        """Write an invitation for a member's device: the file's bytes and its one-time code.

        Single use, expiring after `expires_hours` (default 72). A new member gets `role`
        (member by default; owners may invite admins); your own name adds a device of yours.

        Raises:
            NotPermittedError: your role does not allow it, or the name is a current
                member's (only their own devices add a device of theirs).
        """
        return self._admin.invite_member(name, by, role, expires_hours)

    def invitations(self) -> list[InvitationInfo]:
        """Invitations of a team store with their state (open, used, expired, cancelled)."""
        return self._admin.team.invitations()

    def membership_problems(self) -> tuple[str, ...]:
        """Rows and records of a team store the signed membership does not back (planted
        devices, unauthorised removals or invitations): ignored, one line each."""
        return self._admin.team.problems()

    def cancel_invitation(self, invitation_id: str) -> Result[InvitationInfo]:
        """Cancel an open invitation (see `TeamAdmin.cancel`)."""
        return self._admin.team.cancel(invitation_id)

    def change_database_password(self) -> None:
        """Give this device's database login a new password (see `TeamAdmin.change_password`)."""
        self._admin.team.change_password()

    def remove_member(
        self,
        name: str,
        *,
        progress: Callable[[int], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> Result[RotationReport]:
        """Remove a member: revoke their devices, then rotate the key (resumable)."""
        return self._admin.remove_member(name, progress, None, should_stop)

    def members(self) -> list[MemberInfo]:
        """The members of a team store (empty for a local store)."""
        return self._admin.members()

    def key_info(self) -> KeyInfo:
        """Where the key lives and which key id is active."""
        return self._admin.key_info()

    def rotate_key(
        self,
        *,
        progress: Callable[[int], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> Result[RotationReport]:
        """Re-encrypt everything under a new key; resumable (see core.storage.rotation)."""
        return self._admin.rotate_key(progress, should_stop)

    def status(self) -> StoreStatus:
        """Path, revision, schema version, key source and counts."""
        return self._admin.status()

    # --- member removal with progress (R24, #12) ------------------------------------------

    def remove_member_tracked(
        self,
        name: str,
        *,
        on_progress: Callable[[RotationProgress], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> Result[RotationReport]:
        """`remove_member`, reporting a `RotationProgress` (phase, values visited of total)
        after each batch, for a progress bar. Resumable: for a member already removed whose
        rotation did not finish (stopped, crashed), calling it again finishes the rotation.

        Raises:
            NotFoundError: no such member (or removed, with no rotation left to finish).
            RotationInterruptedError: `should_stop` said stop; call again to resume.
        """
        return self._admin.remove_member(name, None, on_progress, should_stop)

    def rotation_pending(self) -> bool:
        """True when a key rotation was started and not finished (resume it with
        `rotate_key` or `remove_member_tracked`)."""
        return self._admin.rotation_pending()

    # --- writes while the server is away (R23) --------------------------------------

    def write_gate(self) -> Spooler | None:
        """The offline spool of a store on a server (None for a local file)."""
        return self._spool.gate()

    def spool_status(self) -> SpoolStatus:
        """Writes waiting on this machine for the server, the oldest, the last error."""
        return self._spool.status()

    def spooled_writes(self) -> list[SpoolEntry]:
        """The waiting writes, oldest first (what and when, not their content)."""
        return self._spool.entries()

    def flush_spool(self) -> FlushReport:
        """Apply the waiting writes in order, each decided by the policy now."""
        return self._spool.flush()

    def wait_for_change(self, revision: int, timeout: float = 5.0) -> int:
        """Block until the store revision passes `revision` (another process or machine
        committed) or `timeout` seconds pass; returns the revision last seen. LISTEN/NOTIFY
        on PostgreSQL, polling on SQLite.

        Raises:
            ServerUnavailableError: the server cannot be reached.
        """
        return self._spool.wait_for_change(revision, timeout)

    @staticmethod
    def offline_spool_status(data_dir: Path) -> SpoolStatus:
        """The spool of `data_dir` read without opening the store (no key, no server):
        what `status` can still say while the server is away."""
        return spool_summary(data_dir)

    @staticmethod
    def offline_spooled_writes(data_dir: Path) -> list[SpoolEntry]:
        """The waiting writes of `data_dir` read without opening the store (no key, no
        server): what `spool list` can still say while the server is away."""
        return spool_entries(data_dir)

    @classmethod
    def offline_writer(
        cls,
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
        signatures = {name: inspect.signature(getattr(cls, name).__wrapped__) for name in SPOOLABLE}
        codec = offline_codec(data_dir, passphrase)
        return OfflineWriter(data_dir, codec, clock or SystemClock(), signatures, reason)

    # --- agents: model warm-up and per-agent pause (#13, #14) -----------------------------

    def warm_up(self, wait: float = 0.0) -> bool:
        """Start loading the embedding model, the catalog and the vector file in the
        background (idempotent).

        For a store opened for an agent (MCP server, SDK runtime, hook daemon, the GUI), so
        the first query does not pay for the load; a one-shot CLI command that needs no
        embedding never loads the model. Until it is loaded, `inject` serves from the
        keyword path (R17). `wait`: seconds to wait for the load (the model, then the
        catalog and the vector file: a one-shot CLI `inject` waits, so loading is not
        counted against the hot-path limit, #44); returns whether the model is ready (True
        when there is no model).
        """
        return self._agents.warm_up(wait)

    def leave_vector_graph_on_disk(self) -> None:
        """For a process without a hot path (the memory center): the vector index's HNSW
        graph stays in its sealed file, read only when a save must rewrite it; searches
        score the in-scope vectors exactly (~20 ms per 10,000 vectors). At 100k x 384 this
        keeps the graph (176 MiB) and the plaintext it is built from (165 MiB) out of
        memory (#13). Call before `warm_up`."""
        self._agents.leave_vector_graph_on_disk()

    def paused_agents(self) -> frozenset[str]:
        """The agents whose reads get no memory (R26)."""
        return self._agents.paused_agents()

    def set_agent_paused(self, agent: str, paused: bool) -> Result[frozenset[str]]:
        """Pause (or resume) memory for an agent: every session of it, new ones included.

        `agent` is a client name (`mcp`, `claude-code`, `codex`, `chatgpt`, `sdk`) or the
        value of a request's `agent` scope key. Returns the paused names afterwards.
        """
        return self._agents.set_agent_paused(agent, paused)

    def list_agents(self) -> list[AgentInfo]:
        """The agents seen in the sessions (and any paused ones), with their pause state."""
        return self._agents.list_agents(self._events.list_sessions(limit=100_000, offset=0))
