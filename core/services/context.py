"""The engine the feature services share: one open store and what is derived from it.

The facade builds one `Engine` and hands it to each feature service, so the services agree
on the catalog, the ledger and the keys (a rotation replaces the keys for all of them).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from core.crypto.codec import Codec
from core.crypto.keys import KeySet, KeyStore
from core.errors import (
    DamagedRowError,
    EmbedderUnavailableError,
    InvalidInputError,
    MemoryCenterError,
    NotFoundError,
    ResourceUnavailableError,
)
from core.governance.extractor import Extractor, RuleExtractor
from core.governance.ledger import Ledger
from core.governance.policy import MemoryPolicy, PolicySettings
from core.index.embedder import SharedPassageCache
from core.index.embedder import resolve as resolve_embedder
from core.model.memory import MemoryFilter
from core.model.records import MemoryRecord, Result
from core.model.scope import Scope
from core.model.validate import identifier
from core.retrieval.catalog import Catalog
from core.retrieval.guard import CircuitBreaker, FaultSwitch
from core.retrieval.injector import HOT_PATH_SECONDS, Retriever
from core.retrieval.vectors import VectorLayer
from core.storage import memories, settings
from core.storage.damage import Damage
from core.storage.store import Store, WriteTx, changes_of
from core.workflows import integrity
from core.workflows.recording import SnapshotRecorder
from core.workflows.spool import Spooler

T = TypeVar("T")
# The store setting that switches conversation windows off (`False`); absent means on (#17).
WINDOWS_SETTING = "conversation_windows"
# A single call's new memories up to this many are embedded at once if the model is loaded.
SMALL_WRITE = 4

Action = Callable[[WriteTx, MemoryRecord, str, str], None]
"""A control applied to one record inside a write: (tx, record, actor, effective status)."""


MAX_HOT_PATH_SECONDS = 10.0
"""Beyond this a "limit" no longer protects the agent's turn."""


@dataclass(frozen=True)
class EngineConfig:
    """Choices made by the composition root (`app/compose.py`), passed in.

    Attributes:
        embedder: the embedder by name; None uses the one stored in the store, else the
            default; "none" switches the vector index off (keyword-only retrieval).
        hot_path_seconds: how long an injection or search may take before it degrades (R17).
            The product's limit is 0.5 s; a test harness on a shared, loaded machine may widen
            it so that scheduling noise is not mistaken for a failing read path.
    """

    embedder: str | None = None
    hot_path_seconds: float | None = None


class Engine:
    """The open store and its derived state, shared by the feature services."""

    def __init__(
        self,
        store: Store,
        key_store: KeyStore,
        keys: KeySet,
        *,
        policy: MemoryPolicy | None = None,
        extractor: Extractor | None = None,
        config: EngineConfig | None = None,
    ) -> None:
        self.store = store
        self.key_store = key_store
        self.keys = keys
        # The offline spool's gate of a server store; the service sets it (spool namespace).
        self.write_gate: Callable[[], Spooler | None] = _no_gate
        self.settings_damage: Damage | None = None
        self.policy = policy or MemoryPolicy(self.stored_policy_settings())
        self.extractor: Extractor = extractor or RuleExtractor(meaning=self.extraction_vectors)
        self.ledger = Ledger(self.policy, keys.fingerprint_key)
        self.embedder_error: str | None = None
        config = config or EngineConfig()
        self.catalog = Catalog(store, self._vector_layer(config.embedder))
        if self.settings_damage is not None:
            self.catalog.damage.note([self.settings_damage])
        # A purge killed after its commit still owes this machine's index rewrite (#38).
        with contextlib.suppress(MemoryCenterError):
            self.catalog.finish_purges()
        self.ledger.embed = self.fence_embed
        self.faults = FaultSwitch()
        self.recorder = SnapshotRecorder(store, self.catalog.advance)
        store.before_access = self.recorder.drain
        self.retriever = Retriever(
            store,
            self.catalog,
            self.faults,
            CircuitBreaker(),
            self.recorder.submit,
            timeout=_hot_path_limit(config.hot_path_seconds),
        )

    # --- configuration ------------------------------------------------------------------

    def _vector_layer(self, configured: str | None) -> VectorLayer | None:
        """The vector index over active memory, with the configured embedder (R14)."""
        name = configured
        if not name:
            stored = self.setting("embedder")
            name = stored if isinstance(stored, str) else None
        if name == "none":
            return None
        # A configured embedder that cannot load is not replaced by another one: the store
        # still opens (so the user can read the error and choose another embedder) with
        # keyword-only retrieval, and `check_embedder` / `index_status` say so.
        try:
            resolved = resolve_embedder(name or None)
        except EmbedderUnavailableError as exc:
            self.embedder_error = str(exc)
            return None
        self.embedder_error = resolved.fallback_reason
        store = self.store
        return VectorLayer(
            # Shared by the index and the judge: a text is embedded once (#40).
            SharedPassageCache(resolved.embedder),
            store.index_dir,
            lambda: store.codec,
            windows_enabled=self.conversation_windows,
        )

    def conversation_windows(self) -> bool:
        """The store's `conversation_windows` setting (on unless switched off, #17)."""
        return self.setting(WINDOWS_SETTING) is not False

    def setting(self, key: str) -> Any:
        """A stored setting; settings changed outside Memory Center count as damage: the
        defaults apply and the damage is reported (#10)."""
        try:
            with self.store.read("read settings") as conn:
                return settings.read(conn, key, self.store.codec)
        except DamagedRowError as exc:
            self.settings_damage = Damage("settings", "(all)", exc.field, exc.problem)
            return None

    def stored_policy_settings(self) -> PolicySettings:
        """The policy settings the user stored, else the defaults."""
        stored = self.setting("policy")
        return PolicySettings.from_dict(stored) if isinstance(stored, dict) else PolicySettings()

    def reload_keys(self) -> Codec:
        """Another process rotated the key: load the new key set and a codec over it."""
        self.keys = self.key_store.load()
        return Codec(self.keys, reload=self.key_store.load)

    # --- shared steps of the feature services ---------------------------------------------

    def mid(self, memory_id: str, field: str = "memory_id") -> str:
        """A memory id, accepting the short `m:xxxxxxxx` references of injected blocks."""
        ref = identifier(memory_id, field, 64)
        if not ref.startswith("m:"):
            return ref
        with self.store.read("resolve memory reference") as conn:
            return memories.resolve_ref(conn, ref)

    def committed(self, value: T, tx: WriteTx, *, batch: bool = False) -> Result[T]:
        """Result of a committed write; this process's catalog catches up now. A small
        write's memories are embedded now when the model is ready (the next injection then
        sees them); a batch's are embedded in the background (#13)."""
        changes = changes_of(tx)
        with contextlib.suppress(MemoryCenterError):
            self.catalog.refresh(changes.memory_ids, embed_now=0 if batch else SMALL_WRITE)
        return Result(value, changes)

    def act(self, memory_id: str, action: str, by: str | None, fn: Action) -> Result[MemoryRecord]:
        """Apply one control to one record in one write transaction."""
        mid = self.mid(memory_id)
        with self.store.write(action) as tx:
            updated = self.apply(tx, mid, by, fn)
        self.catalog.refresh([updated.id])
        return Result(updated, changes_of(tx))

    def apply(self, tx: WriteTx, mid: str, by: str | None, fn: Action) -> MemoryRecord:
        """Apply one control inside an open write; the record as it stands afterwards."""
        record = memories.get(tx.conn, tx.codec, mid)
        who = identifier(by, "by") if by else record.scope.get("user", "user")
        fn(tx, record, who, record.effective_status(tx.now))
        return memories.get(tx.conn, tx.codec, mid)

    def at_now(self, flt: MemoryFilter) -> MemoryFilter:
        """Effective statuses are judged at the store clock's now unless the filter says."""
        if flt.effective_statuses and flt.now is None:
            return replace(flt, now=self.store.clock.now())
        return flt

    def report_damage(self, found: Sequence[Damage] = ()) -> None:
        """Report damaged rows met by any read, once each, as security events (#10)."""
        notes = self.catalog.damage
        notes.note(found)
        pending = notes.take()
        if not pending:
            return
        try:
            with self.store.write("report damaged rows") as tx:
                integrity.report(tx, pending)
        except MemoryCenterError:
            for damage in pending:  # try again on the next read
                notes.forget(damage)

    def fence_embed(self, text: str) -> tuple[str, list[float]]:
        """Embed a text for deletion-fence matching by meaning (R19), with the index's embedder."""
        layer = self.catalog.vectors
        if layer is None:
            raise ResourceUnavailableError("no embedder configured (vector index is off)")
        return layer.embedder.name, [float(x) for x in layer.embedder.embed([text])[0]]

    def extraction_vectors(self, texts: Sequence[str]) -> tuple[str, Any] | None:
        """Passage vectors of messages for the extractor's keep-worthiness model, with the
        index's embedder, and its name (None when the vector index is off)."""
        layer = self.catalog.vectors
        if layer is None:
            return None
        return layer.embedder.name, layer.embedder.embed(list(texts))

    def forget_derived(self, memory_id: str) -> list[str]:
        """Remove a memory from every derived store in this process; name what was cleaned."""
        self.catalog.forget(memory_id)
        return self.retriever.forget(memory_id)


def _no_gate() -> Spooler | None:
    return None


def one(found: Sequence[MemoryRecord], memory_id: str) -> MemoryRecord:
    """The one record `load` found, or the error that says why there is none."""
    damaged = getattr(found, "damaged", ())
    if damaged:
        bad = damaged[0]
        raise DamagedRowError(bad.field, f"memory {memory_id} is damaged: {bad.line()}")
    if not found:
        raise NotFoundError("memory", memory_id)
    return found[0]


def plain(scope: Mapping[str, str] | Scope | None) -> Mapping[str, str] | None:
    """A scope as a plain mapping (what `Scope.required` checks)."""
    if isinstance(scope, Scope):
        return dict(scope.items_)
    return scope


def required_scope(scope: Mapping[str, str] | Scope | None) -> Scope:
    """A request's scope; an empty one is refused (ScopeRequiredError)."""
    return Scope.required(plain(scope))


def budget(value: object) -> int:
    """A token budget from 1 to 100000."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 100_000:
        raise InvalidInputError(
            "budget_tokens", "must be a whole number of tokens from 1 to 100000"
        )
    return value


def _hot_path_limit(seconds: object) -> float:
    if seconds is None:
        return HOT_PATH_SECONDS
    if (
        not isinstance(seconds, int | float)
        or isinstance(seconds, bool)
        or not 0 < seconds <= MAX_HOT_PATH_SECONDS
    ):
        raise InvalidInputError(
            "hot_path_seconds",
            f"must be above 0 and at most {MAX_HOT_PATH_SECONDS:g}, not {seconds!r}",
        )
    return float(seconds)
