"""Conversations in tests (#17): turns imported as history, and the vector side of one request
read the way the retriever reads it."""

from __future__ import annotations

from typing import Any

import numpy as np

from core import MemoryService, Scope
from core.retrieval import context


def own_and_mixed(
    service: MemoryService, scope: dict[str, str], question: str, *, settled: bool = False
) -> tuple[dict[str, float], dict[str, float], np.ndarray[Any, Any]]:
    """The request's vector hits before and after `widen_vectors` (the conversation around
    each turn mixed in), and the query's vector; `settled`: once the conversation windows
    the request asks for are embedded."""
    catalog = service.index.catalog
    layer = catalog.vectors
    assert layer is not None
    catalog.sync()
    allowed = catalog.visible_ids(Scope.of(scope))
    own = layer.scores(question, allowed, patient=True)
    query = layer.query_vector(question)
    finder = context.Neighbours(service._store)
    mixed = context.widen_vectors(own, query, layer, catalog.records, allowed, finder)
    if settled:
        assert layer.wait_idle(30)
        mixed = context.widen_vectors(own, query, layer, catalog.records, allowed, finder)
    return own, mixed, query


def import_turns(
    service: MemoryService, turns: list[tuple[dict[str, str], str]], said_at: str | None = None
) -> list[str]:
    """Import turns as one conversation (approved); with `said_at`, as history recorded
    later. Returns their ids in order."""
    extra = {"said_at": said_at} if said_at else {}
    doc = {
        "format": "memory-center-export-v1",
        "memories": [{"content": text, "scope": scope, **extra} for scope, text in turns],
    }
    ids = []
    for outcome in service.memories.import_memories(doc).value:
        assert outcome.record is not None
        if outcome.outcome == "candidate":
            service.review.approve(outcome.record.id)
        ids.append(outcome.record.id)
    return ids
