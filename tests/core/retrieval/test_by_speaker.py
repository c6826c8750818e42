"""The person a request names, matched against who said each hit (#17, `by_speaker`)."""

from __future__ import annotations

import pytest

from core.model.records import MemoryRecord
from core.retrieval.ranking import SPEAKER_WEIGHT, by_speaker, names_person
from tests.support.records import make_record


def _record(mid: str, speaker: str | None) -> MemoryRecord:
    return make_record(mid, speaker=speaker)


@pytest.mark.parametrize(
    ("query", "name", "named"),
    [
        ("What did Melanie paint?", "Melanie", True),
        ("What is Caroline's identity?", "Caroline", True),
        ("Where did MELANIE go?", "Melanie", True),
        ("What did Mei say about the choir?", "Mei Lin", True),
        ("张伟去了哪里？", "张伟", True),
        ("What did she paint?", "Melanie", False),
        ("Is the melody nice?", "Mel", False),  # not a word of the query
        ("When did Jo go?", "Jo", False),  # too short to tell from a word
        ("What about Melanies?", "Melanie", False),
        ("what did melanie paint", "Melanie", True),  # all lower case: any case
        ("Will it rain on Friday?", "Will", False),  # the first word is a verb here
        ("What will Jon do next?", "Will", False),  # not capitalised
        ("What did Will say about May?", "Will", True),
        ("May I ask what Jon said?", "May", False),
    ],
)
def test_names_person(query: str, name: str, named: bool) -> None:
    assert names_person(query, name) is named


def test_only_the_named_speakers_hits_gain() -> None:
    records = {"a": _record("a", "Mei"), "b": _record("b", "Jon"), "c": _record("c", None)}
    relevance = {"a": 0.5, "b": 0.6, "c": 0.4}
    out = by_speaker(relevance, records, "Where did Mei go hiking?")
    assert out == {"a": pytest.approx(0.5 + SPEAKER_WEIGHT), "b": 0.6, "c": 0.4}


def test_no_preference_when_everyone_or_nobody_is_named() -> None:
    records = {"a": _record("a", "Mei"), "b": _record("b", "Jon")}
    relevance = {"a": 0.5, "b": 0.6}
    assert by_speaker(relevance, records, "Did Mei and Jon go hiking?") == relevance
    assert by_speaker(relevance, records, "Who went hiking?") == relevance
    alone = {"a": _record("a", "Mei"), "b": _record("b", "Mei")}
    assert by_speaker(relevance, alone, "Where did Mei go hiking?") == relevance
