"""Batches on the write path (#13): many proposals, approvals or extractions in one
transaction each, all of them or none; logic in `core/workflows/batch.py`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.model.memory import MemoryOutcome
from core.model.records import MemoryRecord, Result
from core.model.validate import identifier
from core.services.context import Engine
from core.storage import memories
from core.workflows import batch


class BatchWrites:
    """`remember_many`, `suggest_many`, `approve_many`, `extract_many`."""

    def __init__(self, engine: Engine) -> None:
        self._e = engine

    def remember_many(self, items: Sequence[Mapping[str, Any]]) -> Result[list[MemoryOutcome]]:
        reqs = batch.requests(items, batch.REMEMBER_FIELDS)
        with self._e.store.write("remember many") as tx:
            out = batch.remember_many(tx, self._e.ledger, reqs)
        return self._e.committed(out, tx, batch=True)

    def suggest_many(self, items: Sequence[Mapping[str, Any]]) -> Result[list[MemoryOutcome]]:
        reqs = batch.requests(items, batch.SUGGEST_FIELDS)
        with self._e.store.write("suggest many") as tx:
            out = batch.suggest_many(tx, self._e.ledger, reqs)
        return self._e.committed(out, tx, batch=True)

    def approve_many(self, memory_ids: Sequence[str], by: str | None) -> Result[list[MemoryRecord]]:
        ids = batch.memory_ids(memory_ids)
        store = self._e.store
        with store.write("approve many") as tx:
            done = batch.approve_many(tx, ids, by)
        result = self._e.committed(done, tx, batch=True)
        with store.read("read approved memories") as conn:
            records = memories.load(conn, store.codec, done)
        return Result(list(records), result.changes)

    def extract_many(self, sessions: Sequence[str]) -> Result[list[MemoryOutcome]]:
        names = list(dict.fromkeys(identifier(s, "sessions") for s in sessions))
        store = self._e.store
        with store.read("read session events") as conn:
            events = batch.sessions_to_extract(conn, store.codec, names)
        proposals = {name: self._e.extractor.extract(evs) for name, evs in events.items()}
        with store.write("extract many") as tx:
            out = batch.submit_all(tx, self._e.ledger, proposals)
        return self._e.committed(out, tx, batch=True)


__all__ = ["BatchWrites"]
