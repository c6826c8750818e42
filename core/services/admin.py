"""Administration: `service.index` (the derived indexes, the embedder and loading them, R14),
`service.policy` (the MemoryPolicy and its settings) and `service.keys` (the key set and its
rotation, R24)."""

from __future__ import annotations

import time
from collections.abc import Callable

from core.crypto.keys import keyring_backend_name
from core.errors import (
    EmbedderUnavailableError,
    InvalidInputError,
    MemoryCenterError,
    RotationInterruptedError,
)
from core.governance.policy import MemoryPolicy, PolicySettings
from core.index.embedder import EMBEDDER_NAMES, make_embedder
from core.index.embedder import resolve as resolve_embedder
from core.model.enums import ChangeKind
from core.model.records import Changes, KeyInfo, Result, RotationProgress, RotationReport
from core.model.validate import identifier
from core.retrieval.catalog import Catalog
from core.retrieval.vectors import VectorLayer
from core.services.context import WINDOWS_SETTING, Engine
from core.services.team import TeamAdmin, change_database_password
from core.storage import settings
from core.storage.rotation import rotate
from core.storage.store import changes_of

Progress = Callable[[int], None] | None
Stop = Callable[[], bool] | None
Watch = Callable[[RotationProgress], None] | None


class IndexAdmin:
    """The derived indexes, the embedder they use and loading them (R14)."""

    def __init__(self, engine: Engine) -> None:
        self._e = engine

    @property
    def catalog(self) -> Catalog:
        """This process's mirror of active memory (keyword and vector indexes)."""
        return self._e.catalog

    @property
    def embedder_error(self) -> str | None:
        """Why the configured embedder is not in use, if it is not."""
        return self._e.embedder_error

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

    def status(self) -> dict[str, object]:
        """Which indexes exist, their sizes and the embedder (for `index status`)."""
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

    def rebuild(self) -> dict[str, object]:
        """Throw away the derived indexes and rebuild them from the store."""
        layer = self._e.catalog.vectors
        if layer is not None:
            layer.reset()
        self._e.catalog.texts.reset()
        self._e.catalog.invalidate()
        self._e.catalog.sync()
        if layer is not None:
            layer.wait_idle(with_windows=False, with_backfill=False)
        self._e.catalog.save()
        return self.status()

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
        self.rebuild()
        return Result(embedder.name, changes_of(tx))

    def set_conversation_windows(self, enabled: bool) -> Result[bool]:
        """Embed recorded turns together with the turns around them (on by default, #17),
        or not: off takes the background embedding of an import to about a third and
        drops the stored windows; retrieval then mixes in the mean of the neighbours'
        vectors instead. Stored in the store."""
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

    def prepare_text_search(self) -> int:
        """Bring the index of full-text search up to date now; returns how many records had
        to be decrypted (the desktop calls it in the background after the first paint)."""
        texts, codec = self._e.catalog.texts, self._e.store.codec
        before = texts.decrypted
        with self._e.store.read("prepare text search") as conn:
            damaged = texts.catch_up(conn, codec)
        self._e.report_damage(damaged)
        texts.save_if_due(codec)
        return texts.decrypted - before

    # --- loading the model and the indexes (#13, #14) ------------------------------

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
        catalog = self._e.catalog
        catalog.warm_in_background()
        layer = catalog.vectors
        deadline = time.monotonic() + wait
        ready = True
        if layer is not None:
            layer.warm_up()
            ready = layer.model_ready(wait=wait)
        # A caller that waits (a one-shot CLI `inject`) wants the first read to find the
        # catalog and the vector file loaded too: loading is not what the hot-path limit
        # measures (#44).
        while wait > 0 and not (catalog.loaded and (layer is None or layer.file_loaded)):
            if time.monotonic() >= deadline:
                break
            time.sleep(0.01)
        return ready

    def leave_vector_graph_on_disk(self) -> None:
        """For a process without a hot path (the memory center): the vector index's HNSW
        graph stays in its sealed file, read only when a save must rewrite it; searches
        score the in-scope vectors exactly (~20 ms per 10,000 vectors). At 100k x 384 this
        keeps the graph (176 MiB) and the plaintext it is built from (165 MiB) out of
        memory (#13). Call before `warm_up`."""
        layer = self._e.catalog.vectors
        if layer is not None:
            layer.graph_on_demand = True


class PolicyAdmin:
    """The MemoryPolicy in force and its settings (R7)."""

    def __init__(self, engine: Engine) -> None:
        self._e = engine

    @property
    def current(self) -> MemoryPolicy:
        """The MemoryPolicy in force."""
        return self._e.policy

    def settings(self) -> PolicySettings:
        """The MemoryPolicy settings in force (defaults overridden by the user's choices)."""
        return self._e.policy.settings

    def update_settings(self, **changes: object) -> Result[PolicySettings]:
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
    """The key set: where it lives, which key is active, and its rotation (R24)."""

    def __init__(self, engine: Engine) -> None:
        self._e = engine
        # Only an owner or admin of a team store rotates (the signed membership says who).
        self._team = TeamAdmin(engine, self)

    def change_database_password(self) -> None:
        """Give this device's database login a new password (a team store, #41): sealed in
        the key set like the rest of this device's secrets."""
        change_database_password(self._e)

    def rotation_pending(self) -> bool:
        """True when a key rotation was started and not finished (resume it with
        `keys.rotate` or `team.remove_member_tracked`)."""
        return self._e.keys.pending_id is not None or len(self._e.keys.keys) > 1

    def info(self) -> KeyInfo:
        """Where the key lives and which key id is active."""
        key_store = self._e.key_store
        backend = keyring_backend_name() if key_store.source == "keyring" else None
        return KeyInfo(
            source=key_store.source,
            active_key_id=self._e.store.codec.active_key_id,
            key_ids=tuple(sorted(self._e.keys.keys)),
            keyring_backend=backend,
            private_scopes=tuple(sorted(self._e.keys.personal)),
        )

    def rotate(
        self, *, progress: Progress = None, should_stop: Stop = None, watch: Watch = None
    ) -> Result[RotationReport]:
        """Re-encrypt everything under a new key; resumable (see core.storage.rotation).

        `watch` receives a `RotationProgress` after each batch (for a progress bar)."""
        e = self._e
        self._team.authorize_rotation()
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


__all__ = ["IndexAdmin", "KeyAdmin", "PolicyAdmin"]
