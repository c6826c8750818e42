"""When a memory was said is a field, not part of its text (#17): remember, suggest, import."""

from __future__ import annotations

import datetime as dt

import pytest

from core import MemoryService
from core.errors import InvalidInputError

SCOPE = {"user": "mei"}
MAY_7 = dt.datetime(2023, 5, 7, 13, 56, tzinfo=dt.UTC)


def test_remember_keeps_said_at_out_of_the_text_and_shows_it(service: MemoryService) -> None:
    """The memory's own time is `said_at`; search and injection show it, the text stays clean."""
    out = service.memories.remember(SCOPE, "Remember: Mei joined the choir.", said_at=MAY_7).value
    assert out.record is not None
    assert out.record.valid_from == MAY_7 and "2023" not in out.record.content
    hit = service.retrieval.search_memory(SCOPE, "choir")[0]
    assert hit.said_at == MAY_7
    block = service.retrieval.inject(SCOPE, "what does Mei do in the choir", 300).value
    assert "said 2023-05-07" in block.text


def test_suggest_and_import_take_said_at(service: MemoryService) -> None:
    """Both agent paths accept ISO text; the imported memory keeps its time through export."""
    out = service.memories.suggest(
        SCOPE, "Mei prefers green tea.", said_at="2024-01-02T08:00:00+00:00"
    )
    assert out.value.record is not None
    assert out.value.record.valid_from == dt.datetime(2024, 1, 2, 8, tzinfo=dt.UTC)
    doc = {
        "format": "memory-center-export-v1",
        "memories": [
            {"content": "Mei's bike is blue.", "scope": SCOPE, "said_at": "2023-05-07T13:56:00"}
        ],
    }
    (imported,) = service.memories.import_memories(doc).value
    assert imported.record is not None and imported.record.valid_from == MAY_7
    exported = service.memories.export_memories()["memories"]
    assert any(m["said_at"] == MAY_7.isoformat() for m in exported)


@pytest.mark.parametrize(
    ("value", "problem"),
    [("next tuesday", "ISO-8601"), ("2999-01-01T00:00:00+00:00", "future"), (12, "date")],
)
def test_bad_said_at_is_a_clear_error_and_writes_nothing(
    service: MemoryService, value: object, problem: str
) -> None:
    """A said_at that is not a past date and time names the field and stores nothing."""
    before = service.events.revision()
    with pytest.raises(InvalidInputError, match=problem) as info:
        service.memories.remember(SCOPE, "Remember: Mei's locker is 14.", said_at=value)  # type: ignore[arg-type]
    assert info.value.field == "said_at"
    doc = {
        "format": "memory-center-export-v1",
        "memories": [{"content": "Mei's locker is 14.", "scope": SCOPE, "said_at": value}],
    }
    with pytest.raises(InvalidInputError, match=problem):
        service.memories.import_memories(doc)
    assert service.events.revision() == before and service.memories.list_memories() == []
