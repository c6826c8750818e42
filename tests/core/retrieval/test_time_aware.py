"""Dates in a request resolve against the store's clock and favour memories said then (#17)."""

from __future__ import annotations

import datetime as dt

import pytest

from core import ManualClock, MemoryService
from core.retrieval.when import resolve

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
        earlier = svc.remember(
            scope, "Remember: Mei showed Ana her new painting of horses.", said_at=other
        ).value.record
        target = svc.remember(
            scope, "Remember: Mei showed Ana her new painting of a lighthouse.", said_at=day
        ).value.record
        assert earlier is not None and target is not None
        question = "What painting did Mei show Ana on October 13, 2023?"
        assert svc.search_memory(scope, question)[0].memory_id == target.id
        # The same question about August finds the other one.
        assert (
            svc.search_memory(scope, question.replace("October 13", "2 August"))[0].memory_id
            == earlier.id
        )
    finally:
        svc.close()
