"""Administration (R14, R24): keys and rotation, team members, the derived indexes and the
embedder, policy settings, and the store's status."""

from __future__ import annotations

from collections.abc import Callable

from core.crypto.keys import keyring_backend_name
from core.errors import (
    EmbedderUnavailableError,
    InvalidInputError,
    InvalidStateError,
    MemoryCenterError,
    NotFoundError,
    RotationInterruptedError,
)
from core.governance.policy import PolicySettings
from core.index.embedder import EMBEDDER_NAMES, make_embedder
from core.index.embedder import resolve as resolve_embedder
from core.model.enums import ChangeKind
from core.model.records import (
    Changes,
    KeyInfo,
    MemberInfo,
    Result,
    RotationProgress,
    RotationReport,
    StoreStatus,
)
from core.model.validate import identifier
from core.retrieval.vectors import VectorLayer
from core.services.context import WINDOWS_SETTING, Engine
from core.services.team import TeamAdmin
from core.storage import devices, event_log, members, personal, settings, status
from core.storage.migrations import current_version
from core.storage.rotation import rotate
from core.storage.store import changes_of, revision_of
from core.workflows import integrity

Progress = Callable[[int], None] | None
Stop = Callable[[], bool] | None
Watch = Callable[[RotationProgress], None] | None


class IndexAdmin:
    """The derived indexes and the embedder they use (R14)."""

    def __init__(self, engine: Engine) -> None:
        self._e = engine

    def check_embedder(self) -> None:
        """Raise when the configured embedder is not the one in use (no silent fallback).

        Raises:
            EmbedderUnavailableError: the configured embedder could not be built, or its
                model failed to load; the message says which one and why."""
        layer = self._e.catalog.vectors
        if layer is None and self._e.embedder_error is not None:
            raise EmbedderUnavailableError(self._e.embedder_error)
        if layer is not None and layer.load_error is not None:
            raise EmbedderUnavailableError(layer.load_error)

    def index_status(self) -> dict[str, object]:
        catalog = self._e.catalog
        catalog.sync()
        layer = catalog.vectors
        out: dict[str, object] = {
            "revision": catalog.revision,
            "active_memories": len(catalog.records),
            "keyword_documents": len(catalog.keywords),
        }
        if layer is not None:
            out["vector"] = layer.status()
        out["embedder_in_use"] = layer.name if layer is not None else "none (keyword only)"
        out["embedder_error"] = (layer.load_error if layer else None) or self._e.embedder_error
        return out

    def rebuild_index(self) -> dict[str, object]:
        layer = self._e.catalog.vectors
        if layer is not None:
            layer.reset()
        self._e.catalog.texts.reset()
        self._e.catalog.invalidate()
        self._e.catalog.sync()
        if layer is not None:
            layer.wait_idle(with_windows=False, with_backfill=False)
        self._e.catalog.save()
        return self.index_status()

    def embedder_choices(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for name in EMBEDDER_NAMES:
            try:
                make_embedder(name)
                out[name] = ""
            except MemoryCenterError as exc:
                out[name] = exc.message
        return out

    def set_embedder(self, name: str) -> Result[str]:
        embedder = resolve_embedder(identifier(name, "embedder")).embedder
        store = self._e.store
        with store.write("set embedder") as tx:
            settings.write(tx, "embedder", embedder.name)
            tx.touch(ChangeKind.INDEX)
        self._e.catalog.vectors = VectorLayer(
            embedder,
            store.index_dir,
            lambda: store.codec,
            windows_enabled=self._e.conversation_windows,
        )
        self._e.embedder_error = None
        self.rebuild_index()
        return Result(embedder.name, changes_of(tx))

    def set_conversation_windows(self, enabled: bool) -> Result[bool]:
        if not isinstance(enabled, bool):
            raise InvalidInputError(
                "conversation windows", f"expected true (on) or false (off), got {enabled!r}"
            )
        with self._e.store.write("set conversation windows") as tx:
            settings.write(tx, WINDOWS_SETTING, enabled)
            tx.touch(ChangeKind.INDEX)
        layer = self._e.catalog.vectors
        if layer is not None:
            layer.set_windows(enabled)
        return Result(enabled, changes_of(tx))

    def update_policy_settings(self, changes: dict[str, object]) -> Result[PolicySettings]:
        """Change policy settings (e.g. confirm_global=True); stored in the store.

        Raises:
            InvalidInputError: an unknown setting or a bad value, named."""
        merged = {**self._e.policy.settings.to_dict(), **changes}
        new = PolicySettings.from_dict(merged)
        with self._e.store.write("update policy settings") as tx:
            settings.write(tx, "policy", new.to_dict())
            tx.touch(ChangeKind.POLICY)
        self._e.policy.settings = new
        return Result(new, changes_of(tx))


class KeyAdmin:
    """Keys, rotation, team members and the store's status (R24)."""

    def __init__(self, engine: Engine) -> None:
        self._e = engine
        self.team = TeamAdmin(engine)

    def invite_member(
        self, name: str, by: str | None, role: str | None = None, hours: float | None = None
    ) -> Result[tuple[bytes, str]]:
        """Write an invitation for a member's device (see `TeamAdmin.invite`)."""
        return self.team.invite(name, by, role, hours)

    def remove_member(
        self, name: str, progress: Progress, watch: Watch, should_stop: Stop
    ) -> Result[RotationReport]:
        """Remove a member: a signed removal record, their devices revoked, then the key
        rotated past them (resumable).

        Content written after the rotation is sealed under a key the removed devices never
        receive; rows re-sealed by the rotation are unreadable to them too. What they copied
        before removal cannot be taken back. For a member already removed whose rotation did
        not finish (stopped, crashed), calling it again finishes the rotation.

        Raises:
            NotFoundError: no such member (or removed, with no rotation left to finish).
            NotPermittedError: this device's role may not remove them (nobody removes the
                owner; admins remove members only).
            InvalidStateError: the store is a local file.
            RotationInterruptedError: `should_stop` said stop; call again to resume."""
        who = identifier(name, "name")
        if not self._e.store.is_server:
            raise InvalidStateError("members exist only in stores on a database server")
        if watch:
            watch(RotationProgress("revoking", 0, 0, 0))
        fresh = self.team.authorize_removal(who)
        if not fresh and not self.rotation_pending():
            raise NotFoundError("member", who)
        with self._e.store.write("revoke a removed member's devices") as tx:
            devices.revoke_member(tx.conn, who, tx.now)
            # Nobody needs the removed member's personal key: their private rows stay
            # sealed with it, readable by no device the store still trusts.
            personal.forget_member(tx.conn, who)
            tx.touch(ChangeKind.SETTINGS)
        return self.rotate_key(progress, should_stop, watch)

    def rotation_pending(self) -> bool:
        """True when a key rotation was started and not finished."""
        return self._e.keys.pending_id is not None or len(self._e.keys.keys) > 1

    def members(self) -> list[MemberInfo]:
        return self.team.members()

    def record_joined(self, member: str) -> None:
        with self._e.store.write("record a joined device") as tx:
            members.joined(tx, member)
            tx.touch(ChangeKind.SETTINGS)

    def key_info(self) -> KeyInfo:
        key_store = self._e.key_store
        backend = keyring_backend_name() if key_store.source == "keyring" else None
        return KeyInfo(
            source=key_store.source,
            active_key_id=self._e.store.codec.active_key_id,
            key_ids=tuple(sorted(self._e.keys.keys)),
            keyring_backend=backend,
            private_scopes=tuple(sorted(self._e.keys.personal)),
        )

    def rotate_key(
        self, progress: Progress, should_stop: Stop, watch: Watch = None
    ) -> Result[RotationReport]:
        e = self._e
        self.team.authorize_rotation()
        store_id = e.store.meta("store_id") or ""
        try:
            e.keys, report = rotate(
                e.store,
                e.key_store,
                e.keys,
                store_id,
                progress=progress,
                should_stop=should_stop,
                watch=watch,
            )
        except RotationInterruptedError:
            e.keys = e.key_store.load()  # the pending key set, to resume from
            raise
        revision = e.store.revision()
        e.catalog.invalidate()
        e.catalog.reseal()
        return Result(report, Changes(frozenset({ChangeKind.KEYS}), revision))

    def status(self) -> StoreStatus:
        store = self._e.store
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
            key=self.key_info(),
            event_count=events,
            session_count=sessions,
            memory_counts=counts,
            damaged_rows=damaged,
            membership_problems=self.team.problems(),
        )


__all__ = ["IndexAdmin", "KeyAdmin"]
