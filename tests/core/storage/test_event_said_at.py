"""Events recorded after the fact carry their own time and speaker as fields (#17)."""

from __future__ import annotations

import datetime as dt

import pytest

from core import MemoryService, NewEvent
from core.errors import InvalidInputError

SCOPE = {"user": "mei"}
MAY_7 = dt.datetime(2023, 5, 7, 13, 56, tzinfo=dt.UTC)


def _event(text: str, **extra: object) -> NewEvent:
    return NewEvent("chat-1", "user", "user", SCOPE, text, **extra)  # type: ignore[arg-type]


def test_said_at_and_speaker_are_kept_out_of_the_text(service: MemoryService) -> None:
    """Both travel in the event's data; the text is exactly what was said."""
    event = service.events.append_event(
        _event("I joined the choir last week.", said_at="2023-05-07T13:56:00", speaker="Mei")
    ).value
    assert event.text == "I joined the choir last week."
    assert event.data["said_at"] == MAY_7.isoformat()
    assert event.data["speaker"] == "Mei"
    (stored,) = service.events.list_events(session="chat-1")
    assert stored.data["speaker"] == "Mei" and stored.data["said_at"] == MAY_7.isoformat()


def test_extraction_gives_the_memory_the_events_time(service: MemoryService) -> None:
    """A memory extracted from a dated event is valid from when it was said, not from now."""
    service.events.append_event(
        _event("Remember that I prefer green tea.", said_at=MAY_7, speaker="Mei")
    )
    outcomes = service.memories.extract("chat-1").value
    records = [o.record for o in outcomes if o.record is not None]
    assert records, "extraction proposed nothing"
    assert all(r.valid_from == MAY_7 for r in records)
    assert all("2023" not in r.content for r in records)


@pytest.mark.parametrize(
    ("extra", "field", "problem"),
    [
        ({"said_at": "last tuesday"}, "event.said_at", "ISO-8601"),
        ({"said_at": "2999-01-01T00:00:00+00:00"}, "event.said_at", "future"),
        ({"speaker": "Mei\nsays"}, "event.speaker", "one line"),
        ({"speaker": "x" * 101}, "event.speaker", "100"),
        ({"speaker": "  "}, "event.speaker", "blank"),
    ],
)
def test_bad_said_at_or_speaker_names_the_field_and_writes_nothing(
    service: MemoryService, extra: dict[str, object], field: str, problem: str
) -> None:
    """A bad value is one clear error naming the field; the log is unchanged."""
    before = service.events.revision()
    with pytest.raises(InvalidInputError, match=problem) as info:
        service.events.append_event(_event("hello", **extra))
    assert info.value.field == field
    with pytest.raises(InvalidInputError) as batch:
        service.events.append_events([_event("first"), _event("second", **extra)])
    assert batch.value.field == field.replace("event", "events[1]")
    assert service.events.revision() == before
    assert service.events.list_events(session="chat-1") == []
