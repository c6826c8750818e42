"""Dates named in a request, resolved against the store's clock (#17: time-aware retrieval).

"What did Mei paint on October 13, 2023?", "in May", "last Tuesday", "上周二", "去年 5 月":
the request names a span of time, and memories said or observed in that span (their own
time, `valid_from`) are likelier answers. `resolve` turns the first such expression into a
[start, end) span in UTC; ranking then nudges hits inside the span (see `ranking.in_span`).
Plain regular expressions, no parser: the hot path pays microseconds.
"""

from __future__ import annotations

import datetime as dt
import re

from core.patterns import lazy

MONTHS = {
    name: i
    for i, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Short forms people write in chat ("last Fri", "last Tues"), mapped to the weekday.
_WEEKDAY_FORMS = {
    **{day: i for i, day in enumerate(WEEKDAYS)},
    **{
        form: i
        for i, forms in enumerate(
            (
                ("mon",),
                ("tue", "tues"),
                ("wed",),
                ("thu", "thur", "thurs"),
                ("fri",),
                ("sat",),
                ("sun",),
            )
        )
        for form in forms
    },
}
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "a couple of": 2,
    "a few": 3,
}
_UNIT_DAYS = {"day": 1, "week": 7, "weekend": 7, "month": 30, "year": 365}
ZH_WEEKDAYS = "一二三四五六日"
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_DAY_MONTH_YEAR = lazy(
    rf"\b(?:(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH})\.?|({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?)"
    rf"(?:,?\s+(\d{{4}}))?\b",
    re.IGNORECASE,
)
_MONTH_YEAR = lazy(rf"\b(?:in|during|of|since|by)?\s*({_MONTH})\.?(?:,?\s+(\d{{4}}))?\b", re.I)
_ISO = lazy(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_YEAR = lazy(r"\b(?:in|during)\s+(\d{4})\b", re.IGNORECASE)
_ZH_DATE = lazy(r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月(?:\s*(\d{1,2})\s*[日号])?")
_LAST_WEEKDAY = lazy(
    r"\blast\s+(" + "|".join(sorted(_WEEKDAY_FORMS, key=len, reverse=True)) + r")\b\.?",
    re.IGNORECASE,
)
_AGO = lazy(
    r"\b(\d{1,3}|" + "|".join(sorted(_NUMBERS, key=len, reverse=True)) + r")\s+"
    r"(day|week|weekend|month|year)s?\s+ago\b",
    re.IGNORECASE,
)
_LAST_WEEKEND = lazy(r"\b(?:last|this past)\s+weekend\b", re.IGNORECASE)
_ZH_LAST_WEEKDAY = lazy(r"上(?:个)?(?:周|星期|礼拜)([一二三四五六日天])")
_RELATIVE = {
    "yesterday": (1, 1),
    "last night": (1, 1),
    "昨天": (1, 1),
    "前天": (2, 1),
    "last week": (13, 7),
    "上周": (13, 7),
    "上个星期": (13, 7),
    "last month": (45, 31),
    "上个月": (45, 31),
    "last year": (365, 365),
    "去年": (365, 365),
}

Span = tuple[dt.datetime, dt.datetime]


def resolve(query: str, now: dt.datetime) -> Span | None:
    """The span of time the request names, or None. Dates without a year take the latest
    such date not after `now`."""
    for finder in (
        _iso,
        _day_month,
        _zh_date,
        _last_weekday,
        _last_weekend,
        _ago,
        _relative,
        _month,
        _year,
    ):
        span = finder(query, now)
        if span is not None:
            return span
    return None


def _day(year: int, month: int, day: int) -> Span | None:
    try:
        start = dt.datetime(year, month, day, tzinfo=dt.UTC)
    except ValueError:
        return None
    return start, start + dt.timedelta(days=1)


def _month_span(year: int, month: int) -> Span:
    start = dt.datetime(year, month, 1, tzinfo=dt.UTC)
    end = dt.datetime(year + month // 12, month % 12 + 1, 1, tzinfo=dt.UTC)
    return start, end


def _year_for(month: int, day: int, now: dt.datetime) -> int:
    return now.year if (month, day) <= (now.month, now.day) else now.year - 1


def _iso(query: str, now: dt.datetime) -> Span | None:
    m = _ISO.search(query)
    return _day(int(m[1]), int(m[2]), int(m[3])) if m else None


def _day_month(query: str, now: dt.datetime) -> Span | None:
    m = _DAY_MONTH_YEAR.search(query)
    if not m:
        return None
    day = int(m[1] or m[4])
    month = MONTHS[(m[2] or m[3]).lower()]
    year = int(m[5]) if m[5] else _year_for(month, day, now)
    return _day(year, month, day)


def _zh_date(query: str, now: dt.datetime) -> Span | None:
    m = _ZH_DATE.search(query)
    if not m or not 1 <= int(m[2]) <= 12:
        return None
    month = int(m[2])
    if m[3]:
        day = int(m[3])
        return _day(int(m[1]) if m[1] else _year_for(month, day, now), month, day)
    year = int(m[1]) if m[1] else _year_for(month, 1, now)
    return _month_span(year, month)


def _last_weekday(query: str, now: dt.datetime) -> Span | None:
    m = _LAST_WEEKDAY.search(query)
    if m:
        target = _WEEKDAY_FORMS[m[1].lower()]
    else:
        z = _ZH_LAST_WEEKDAY.search(query)
        if not z:
            return None
        target = 6 if z[1] in "日天" else ZH_WEEKDAYS.index(z[1])
    back = (now.weekday() - target) % 7 or 7
    day = (now - dt.timedelta(days=back)).date()
    return _day(day.year, day.month, day.day)


def _last_weekend(query: str, now: dt.datetime) -> Span | None:
    """The Saturday and Sunday before `now` ("last weekend", said on a Monday)."""
    if not _LAST_WEEKEND.search(query):
        return None
    back = (now.weekday() - 5) % 7 or 7
    day = (now - dt.timedelta(days=back)).date()
    start = dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC)
    return start, start + dt.timedelta(days=2)


def _ago(query: str, now: dt.datetime) -> Span | None:
    """ "two days ago", "3 weeks ago", "a year ago": the unit that far back."""
    m = _AGO.search(query)
    if not m:
        return None
    count = int(m[1]) if m[1].isdigit() else _NUMBERS[m[1].lower()]
    unit = _UNIT_DAYS[m[2].lower()]
    start = dt.datetime(now.year, now.month, now.day, tzinfo=dt.UTC)
    start -= dt.timedelta(days=count * unit)
    return start, start + dt.timedelta(days=unit)


def _relative(query: str, now: dt.datetime) -> Span | None:
    lowered = query.lower()
    for phrase, (back, length) in _RELATIVE.items():
        if phrase in lowered:
            start = dt.datetime(now.year, now.month, now.day, tzinfo=dt.UTC)
            start -= dt.timedelta(days=back)
            return start, start + dt.timedelta(days=length)
    return None


def _month(query: str, now: dt.datetime) -> Span | None:
    for m in _MONTH_YEAR.finditer(query):
        word = m[1].lower()
        # "may" and "march" are also ordinary words: without a year they count only after
        # a preposition ("in May").
        if (
            word in ("may", "mar", "march")
            and not m[2]
            and not m.group(0).strip().lower().startswith(("in", "during", "of", "since", "by"))
        ):
            continue
        month = MONTHS[word]
        year = int(m[2]) if m[2] else _year_for(month, 1, now)
        return _month_span(year, month)
    return None


def _year(query: str, now: dt.datetime) -> Span | None:
    m = _YEAR.search(query)
    if not m or not 1900 <= int(m[1]) <= now.year:
        return None
    year = int(m[1])
    return dt.datetime(year, 1, 1, tzinfo=dt.UTC), dt.datetime(year + 1, 1, 1, tzinfo=dt.UTC)


# A request that asks for a time: its answer is a memory that states one (`states_time`).
_ASKS_WHEN = lazy(
    r"(?:^|[,;:.?!]\s*)(?:when\b|since when\b|what (?:date|day|year|month|time|week)\b|"
    r"which (?:date|day|year|month|week)\b|how long ago\b)"
    r"|什么时候|何时|哪一?(?:天|年|月)|几号|几月",
    re.IGNORECASE,
)
# Words that place something in time without naming a date the resolver reads.
_TIME_WORDS = lazy(
    r"\b(?:ago|yesterday|today|tonight|tomorrow|recently|lately|"
    r"(?:last|next|this|past)\s+(?:week|weekend|month|year|night|summer|winter|spring|fall|"
    r"autumn|" + "|".join(sorted(_WEEKDAY_FORMS, key=len, reverse=True)) + r")|"
    r"(?:19|20)\d\d)\b"
    r"|昨天|前天|今天|明天|上周|下周|上个?月|下个?月|去年|今年|明年|\d+\s*(?:天|周|个月|年)前",
    re.IGNORECASE,
)


def asks_when(query: str) -> bool:
    """True when the request asks for a time ("When did Mei ...", "what year ...",
    "how long ago ...", "什么时候"): its answer must say when."""
    return _ASKS_WHEN.search(query.strip()) is not None


def states_time(text: str, said_at: dt.datetime | None = None) -> bool:
    """True when a memory's text places something in time: a date or a relative
    expression ("yesterday", "last Friday", "two weeks ago", "this month", "in 2022")."""
    if _TIME_WORDS.search(text):
        return True
    return resolve(text, said_at or dt.datetime.now(dt.UTC)) is not None


def event_span(text: str, said_at: dt.datetime) -> Span | None:
    """The span of time a memory's own words name, resolved against when it was said:
    "I went to the museum yesterday", said on 6 July, is about 5 July. The same resolver
    as a request's, with the memory's time as "now"."""
    return resolve(text, said_at)
