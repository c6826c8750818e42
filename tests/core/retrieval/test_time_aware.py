"""Dates in a request resolve against the store's clock and favour memories said then (#17)."""

from __future__ import annotations

import datetime as dt

import pytest

from core import ManualClock, MemoryService
from core.retrieval.when import asks_when, event_span, resolve, states_time

NOW = dt.datetime(2023, 10, 20, 12, tzinfo=dt.UTC)  # a Friday


def _day(y: int, m: int, d: int) -> tuple[dt.datetime, dt.datetime]:
    start = dt.datetime(y, m, d, tzinfo=dt.UTC)
    return start, start + dt.timedelta(days=1)


@pytest.mark.parametrize(
    ("query", "span"),
    [
        ("What did Mei paint on October 13, 2023?", _day(2023, 10, 13)),
        ("what did Gina find on 1 February, 2023", _day(2023, 2, 1)),
        ("what happened on 2023-05-07", _day(2023, 5, 7)),
        ("What did Maria cook last Tuesday?", _day(2023, 10, 17)),
        ("我上周二吃了什么？", _day(2023, 10, 17)),
        ("2023年5月7日 做了什么", _day(2023, 5, 7)),
        ("昨天的会议说了什么", _day(2023, 10, 19)),
        ("When did Mei go camping in June?", (_day(2023, 6, 1)[0], _day(2023, 7, 1)[0])),
        ("12月 去了哪里", (_day(2022, 12, 1)[0], _day(2023, 1, 1)[0])),
        ("trips in 2022", (_day(2022, 1, 1)[0], _day(2023, 1, 1)[0])),
    ],
)
def test_dates_resolve_against_the_clock(query: str, span: tuple[dt.datetime, dt.datetime]) -> None:
    """Absolute, partial (the latest such date not after now) and relative, English and Chinese."""
    assert resolve(query, NOW) == span


@pytest.mark.parametrize(
    "query", ["What may I bring?", "Mark decided on the march route", "port 5433", "2023 版本"]
)
def test_words_that_are_not_dates_resolve_to_nothing(query: str) -> None:
    """'may', 'march', 'Mark', bare numbers are not dates."""
    assert resolve(query, NOW) is None


def test_memory_said_on_the_named_day_ranks_first(tmp_path: object) -> None:
    """Of two equally worded memories, the one said on the day the question names comes first."""
    from pathlib import Path

    from tests.conftest import PASSPHRASE

    svc = MemoryService.open(
        Path(str(tmp_path)) / "s",
        passphrase=PASSPHRASE,
        clock=ManualClock(NOW),
        prefer_keyring=False,
    )
    try:
        scope = {"user": "mei"}
        day = dt.datetime(2023, 10, 13, 15, tzinfo=dt.UTC)
        other = dt.datetime(2023, 8, 2, 15, tzinfo=dt.UTC)
        earlier = svc.memories.remember(
            scope, "Remember: Mei showed Ana her new painting of horses.", said_at=other
        ).value.record
        target = svc.memories.remember(
            scope, "Remember: Mei showed Ana her new painting of a lighthouse.", said_at=day
        ).value.record
        assert earlier is not None and target is not None
        question = "What painting did Mei show Ana on October 13, 2023?"
        assert svc.retrieval.search_memory(scope, question)[0].memory_id == target.id
        # The same question about August finds the other one.
        assert (
            svc.retrieval.search_memory(scope, question.replace("October 13", "2 August"))[
                0
            ].memory_id
            == earlier.id
        )
    finally:
        svc.close()


MONDAY = dt.datetime(2023, 7, 17, 14, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("I went to an LGBTQ conference two days ago", _day(2023, 7, 15)),
        ("Last Fri I finally took my kids to a pottery workshop", _day(2023, 7, 14)),
        ("I just joined a new activist group last Tues.", _day(2023, 7, 11)),
        ("Last night was amazing", _day(2023, 7, 16)),
        (
            "Last weekend I joined a mentorship program",
            (_day(2023, 7, 15)[0], _day(2023, 7, 17)[0]),
        ),
        ("we went camping two weekends ago", (_day(2023, 7, 3)[0], _day(2023, 7, 10)[0])),
        ("I moved here 3 years ago", (_day(2020, 7, 17)[0], _day(2021, 7, 17)[0])),
    ],
)
def test_relative_words_of_a_memory_resolve_against_when_it_was_said(
    text: str, span: tuple[dt.datetime, dt.datetime]
) -> None:
    """#44: chat phrasing ("last Fri", "two days ago", "last weekend"), said on a Monday."""
    assert event_span(text, MONDAY) == span


@pytest.mark.parametrize(
    ("query", "asks"),
    [
        ("When did Caroline go to the support group?", True),
        ("How long ago was her 18th birthday?", True),
        ("What year did they move?", True),
        ("Mel, when is the race?", True),
        ("她什么时候去的博物馆", True),
        ("What did Mel paint?", False),
        ("Whenever I deploy, which port?", False),
    ],
)
def test_a_request_asks_for_a_time_by_its_form(query: str, asks: bool) -> None:
    assert asks_when(query) is asks


@pytest.mark.parametrize(
    ("text", "states"),
    [
        ("I ran a charity race last Saturday", True),
        ("We had a blast last year at the fest", True),
        ("I've known these friends for 4 years, since I moved in 2019", True),
        ("昨天我去了博物馆", True),
        ("The race was for mental health and it was rewarding", False),
        ("May I bring my kids?", False),
    ],
)
def test_a_memory_states_a_time(text: str, states: bool) -> None:
    assert states_time(text, MONDAY) is states


def test_a_when_question_prefers_the_turn_that_says_when(tmp_path: object) -> None:
    """Of two turns about the same race, the one that says when it was answers "When ...?"
    though the other matches the words better (#44); the nudge is the request's form."""
    from pathlib import Path

    from tests.conftest import PASSPHRASE

    svc = MemoryService.open(
        Path(str(tmp_path)) / "s",
        passphrase=PASSPHRASE,
        clock=ManualClock(NOW),
        prefer_keyring=False,
    )
    try:
        scope = {"user": "mel"}
        day = dt.datetime(2023, 5, 25, 13, tzinfo=dt.UTC)
        ids = {}
        # The first matches the words better (they occur twice); the second says when.
        for text in (
            "The charity race, the charity race was so good",
            "We ran the charity race last Saturday",
        ):
            rec = svc.memories.remember(scope, text, said_at=day, speaker="Melanie").value.record
            assert rec is not None
            ids[text] = rec.id
        says_when = ids["We ran the charity race last Saturday"]
        question = "When was the charity race?"
        assert svc.retrieval.search_memory(scope, question)[0].memory_id == says_when
        assert svc.retrieval.inject(scope, question, 400).value.items[0].memory_id == says_when
        snap_hits = {
            h.memory_id: h.score
            for h in svc.retrieval.get_snapshot(
                svc.retrieval.inject(
                    scope, "What was the charity race like?", 400
                ).value.snapshot_id
            ).hits
        }
        # Not asked "when": no preference from the time the turn states.
        assert set(snap_hits) == set(ids.values())
    finally:
        svc.close()
