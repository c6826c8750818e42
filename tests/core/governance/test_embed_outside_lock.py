"""A long text is embedded before its write takes the store's lock (#40, #44).

Embedding grows faster than a text's length: a 4,000-character Chinese message took 6-9 s
with the default model. The judge and the deletion fence embedded it inside the write
transaction, so every other writer, in this process or another (a hook, a second agent's
MCP server), waited that long: one `remember` from another process waited 18 s.

The embedder here is a real implementation of the seam (the hashing embedder's vectors),
registered as the store's embedder, that probes the store file whenever it embeds a long
text: a second SQLite connection tries to begin a write at once. The probe fails exactly
when a write transaction holds the store.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import pytest

from core import InvalidInputError, MemoryService
from core.governance.ledger import PREPARE_FROM
from core.index.embedder import EmbedKind, HashingEmbedder, register_embedder, unregister_embedder
from core.model.limits import MAX_MEMORY_TEXT
from tests.conftest import PASSPHRASE

if TYPE_CHECKING:
    from core.index.embedder import Matrix

NAME = "lock-probing-hashing"
SCOPE = {"user": "kim", "project": "atlas"}
LONG_ZH = "不，" * 600 + "我对青霉素过敏的事情以后再说。"
LONG_EN = (
    "Notes from the planning call: the atlas staging database moves to port 5434 next week, "
    "the nightly export keeps running at two, and Kim wants the runbook updated before then. "
) * 4


class LockProbingEmbedder:
    """Hashing vectors; each long text embedded records whether the store was free."""

    name = NAME
    version = "hashing-lock-probe-v1"
    db: ClassVar[Path | None] = None
    seen: ClassVar[list[tuple[int, bool]]] = []

    def __init__(self) -> None:
        self._inner = HashingEmbedder()
        self.dim = self._inner.dim

    def load(self) -> None:
        """Nothing to load."""

    def embed(self, texts: Sequence[str], *, kind: EmbedKind = "passage") -> Matrix:
        """Embed; for a long text, first try to begin a write on the store file."""
        db = LockProbingEmbedder.db
        for text in texts:
            if db is not None and db.exists() and len(text) >= PREPARE_FROM:
                LockProbingEmbedder.seen.append((len(text), _store_free(db)))
        return self._inner.embed(texts, kind=kind)


def _store_free(db: Path) -> bool:
    conn = sqlite3.connect(db, timeout=0)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.rollback()
        return True
    except sqlite3.OperationalError as exc:
        assert "locked" in str(exc)
        return False
    finally:
        conn.close()


@pytest.fixture
def probing(data_dir: Path) -> Iterator[MemoryService]:
    register_embedder(NAME, LockProbingEmbedder)
    LockProbingEmbedder.seen = []
    svc = MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False, embedder=NAME)
    LockProbingEmbedder.db = data_dir / "memory-center.sqlite3"
    try:
        yield svc
    finally:
        LockProbingEmbedder.db = None
        svc.close()
        unregister_embedder(NAME)


def _judged_long_texts(svc: MemoryService) -> None:
    # Neighbours and a standing fence, so that the judge and the fence both compare by meaning.
    made = svc.memories.remember(SCOPE, "我对青霉素过敏").value
    assert made.record is not None
    svc.review.delete(made.record.id, reason="test", purge=False)
    svc.memories.remember(SCOPE, "The atlas staging database listens on port 5433")
    svc.memories.remember(SCOPE, "Kim wants the runbook updated before the move")


def test_a_long_suggestion_and_remember_are_embedded_while_the_store_is_free(
    probing: MemoryService,
) -> None:
    svc = probing
    _judged_long_texts(svc)
    LockProbingEmbedder.seen = []
    assert svc.memories.suggest(SCOPE, LONG_ZH).value.record is not None
    assert svc.memories.remember(SCOPE, LONG_EN).value.record is not None
    seen = LockProbingEmbedder.seen
    assert {n for n, _ in seen} >= {len(LONG_ZH)}, seen  # the long texts were embedded
    # Before: the judge's and the fence's embedding ran inside the write transaction.
    assert all(free for _, free in seen), seen


def test_a_batch_of_long_items_is_embedded_before_its_transaction(
    probing: MemoryService,
) -> None:
    svc = probing
    _judged_long_texts(svc)
    LockProbingEmbedder.seen = []
    items = [{"scope": SCOPE, "text": LONG_EN}, {"scope": SCOPE, "text": LONG_ZH}]
    out = svc.memories.remember_many(items).value
    assert len(out) == 2
    seen = LockProbingEmbedder.seen
    assert seen and all(free for _, free in seen), seen


def test_a_long_observation_is_read_for_meaning_by_its_first_memory_length_part(
    probing: MemoryService,
) -> None:
    svc = probing
    _judged_long_texts(svc)
    LockProbingEmbedder.seen = []
    log = "2026-12-07 10:00:01 INFO atlas staging database listening on port 5433\n" * 400
    assert len(log) > MAX_MEMORY_TEXT
    svc.memories.observe(SCOPE, log)
    seen = LockProbingEmbedder.seen
    # A tool's output up to 200,000 characters was embedded whole, inside the transaction.
    assert seen and all(free for _, free in seen), seen
    assert max(n for n, _ in seen) == MAX_MEMORY_TEXT


def test_a_refused_long_text_still_names_the_problem_and_writes_nothing(
    probing: MemoryService,
) -> None:
    svc = probing
    before = len(svc.memories.list_memories())
    with pytest.raises(InvalidInputError, match="the limit is 4000"):
        svc.memories.suggest(SCOPE, "长" * 4001)
    assert len(svc.memories.list_memories()) == before
