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
_LAST_WEEKDAY = lazy(r"\blast\s+(" + "|".join(WEEKDAYS) + r")\b", re.IGNORECASE)
_ZH_LAST_WEEKDAY = lazy(r"上(?:个)?(?:周|星期|礼拜)([一二三四五六日天])")
_RELATIVE = {
    "yesterday": (1, 1),
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
    for finder in (_iso, _day_month, _zh_date, _last_weekday, _relative, _month, _year):
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
        target = WEEKDAYS.index(m[1].lower())
    else:
        z = _ZH_LAST_WEEKDAY.search(query)
        if not z:
            return None
        target = 6 if z[1] in "日天" else ZH_WEEKDAYS.index(z[1])
    back = (now.weekday() - target) % 7 or 7
    day = (now - dt.timedelta(days=back)).date()
    return _day(day.year, day.month, day.day)


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
