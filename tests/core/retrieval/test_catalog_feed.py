"""R21, R30: the catalog catches up with big transactions made elsewhere."""

from __future__ import annotations

from pathlib import Path

from core import MemoryKind, MemoryService, MemoryStatus, Scope, TrustLevel
from core.storage import memories
from core.storage.memories import Draft
from tests.conftest import PASSPHRASE


def test_a_transaction_with_more_ids_than_the_feed_lists_reloads_the_catalog(
    service: MemoryService, data_dir: Path
) -> None:
    """A writer that changed 600 memories at once: another process sees all of them."""
    assert service.retrieval.search_memory({"user": "u"}, "anything") == []  # catalog loaded, empty
    other = MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False)
    try:
        scope = Scope.of({"user": "u"})
        with other._store.write("bulk") as tx:  # a bulk importer below the service
            for i in range(600):
                memories.insert(
                    tx,
                    Draft(
                        kind=MemoryKind.FACT,
                        content=f"Bulk fact number {i} about the zephyr cluster.",
                        scope=scope,
                        source_event_ids=(),
                        confidence=0.9,
                        status=MemoryStatus.ACTIVE,
                        owner="u",
                        source_trust=TrustLevel.USER,
                        fingerprint=f"fp{i}",
                        valid_from=tx.now,
                    ),
                )
        feed = service.events.changes_since(service.events.revision() - 1)
        assert feed[-1].memory_ids == ("*",)
    finally:
        other.close()
    service.index.catalog.sync()
    assert len(service.index.catalog.records) == 600
    assert service.retrieval.search_memory({"user": "u"}, "zephyr cluster bulk fact 599", limit=5)
