"""Canonical values of a statement: what a slot holds, whatever way it was written (#40, R9).

"2pm", "2 pm", "14:00" and "下午两点" are one time; "十五", "fifteen" and "15" one number;
"16GB", "16G" and "16 gigs" one size; "三百块", "300元" and "¥300" one amount; "June 3rd",
"3 June", "6月3号" and "2025-06-03" one date. `slots(text)` returns the typed values a text
states, so two statements are compared on values, not on how they were typed:

- ``("time", "14:00")``, ``("date", "06-03")``, ``("weekday", "mon")``, ``("month", "6")``;
- ``("qty:<unit>", "16")`` for an amount with a unit (gb, kg, km, min, mg, cny, usd ...);
- ``("num:<word>", "25")`` for a bare number, named by the word it follows ("port 8080":
  ``("num:port", "8080")``; versions keep their dots: ``("num:node", "20.11")``).

The parsing is deliberately small and table-driven (no model, no network): it must run on
every candidate and its neighbours within a remember's budget.
"""

from __future__ import annotations

import functools
import re

from core.governance.numerals import canonical_text, zh_to_int
from core.patterns import lazy

_WEEKDAYS = {
    "mon": "mon",
    "monday": "mon",
    "tue": "tue",
    "tues": "tue",
    "tuesday": "tue",
    "wed": "wed",
    "wednesday": "wed",
    "thu": "thu",
    "thur": "thu",
    "thurs": "thu",
    "thursday": "thu",
    "fri": "fri",
    "friday": "fri",
    "sat": "sat",
    "saturday": "sat",
    "sun": "sun",
    "sunday": "sun",
}
_WEEK = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_ZH_WEEKDAY = dict(
    zip(
        "一二三四五六日天1234567",
        [*_WEEK, "sun", *_WEEK],
        strict=True,
    )
)
_MONTHS = {
    m: i + 1
    for i, names in enumerate(
        [
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ]
    )
    for m in names
}
# Unit spellings folded to one name each.
_UNITS = {
    "gb": "gb",
    "g": "gb",
    "gig": "gb",
    "gigs": "gb",
    "gigabyte": "gb",
    "gigabytes": "gb",
    "tb": "tb",
    "terabyte": "tb",
    "mb": "mb",
    "kg": "kg",
    "kgs": "kg",
    "kilo": "kg",
    "kilos": "kg",
    "kilogram": "kg",
    "kilograms": "kg",
    "kilogramme": "kg",
    "kilogrammes": "kg",
    "grams": "gram",
    "gram": "gram",
    "克": "gram",
    "公斤": "kg",
    "千克": "kg",
    "斤": "jin",
    "lb": "lb",
    "lbs": "lb",
    "pound": "lb",
    "pounds": "lb",
    "km": "km",
    "k": "k",
    "公里": "km",
    "kilometers": "km",
    "kilometres": "km",
    "kilometer": "km",
    "kilometre": "km",
    "mi": "mile",
    "mile": "mile",
    "miles": "mile",
    "m": "m",
    "meter": "m",
    "meters": "m",
    "metre": "m",
    "metres": "m",
    "米": "m",
    "cm": "cm",
    "centimeter": "cm",
    "centimeters": "cm",
    "centimetre": "cm",
    "centimetres": "cm",
    "厘米": "cm",
    "mg": "mg",
    "milligram": "mg",
    "milligrams": "mg",
    "mcg": "mcg",
    "µg": "mcg",
    "microgram": "mcg",
    "micrograms": "mcg",
    "微克": "mcg",
    "毫克": "mg",
    "ml": "ml",
    "millilitre": "ml",
    "millilitres": "ml",
    "milliliter": "ml",
    "milliliters": "ml",
    "l": "litre",
    "litre": "litre",
    "litres": "litre",
    "liter": "litre",
    "liters": "litre",
    "升": "litre",
    "公升": "litre",
    "毫升": "ml",
    "min": "min",
    "mins": "min",
    "minute": "min",
    "minutes": "min",
    "分钟": "min",
    "h": "h",
    "hr": "h",
    "hrs": "h",
    "hour": "h",
    "hours": "h",
    "小时": "h",
    "个小时": "h",
    "day": "day",
    "days": "day",
    "天": "day",
    "week": "week",
    "weeks": "week",
    "周": "week",
    "个月": "monthcount",
    "months": "monthcount",
    "month": "monthcount",
    "year": "year",
    "years": "year",
    "yrs": "year",
    "年": "year",
    "岁": "age",
    "yo": "age",
    "%": "pct",
    "percent": "pct",
    "pct": "pct",
    "块": "cny",
    "元": "cny",
    "块钱": "cny",
    "rmb": "cny",
    "yuan": "cny",
    "cny": "cny",
    "usd": "usd",
    "dollars": "usd",
    "dollar": "usd",
    "bucks": "usd",
    "eur": "eur",
    "euros": "eur",
    "euro": "eur",
    "gbp": "gbp",
    "inch": "inch",
    "inches": "inch",
    "in": "inch",
    "寸": "inch",
    "英寸": "inch",
    "°c": "deg",
    "°": "deg",
    "degree": "deg",
    "degrees": "deg",
    "度": "deg",
    "°f": "degf",
    "wk": "week",
    "wks": "week",
    "night": "night",
    "nights": "night",
    "晚": "night",
    "歐": "eur",
    "歐元": "eur",
    "欧": "eur",
    "欧元": "eur",
    "英镑": "gbp",
    "英鎊": "gbp",
    "美元": "usd",
    "美金": "usd",
    "刀": "usd",
    "楼": "floor",
    "层": "floor",
    "号楼": "building",
    "人": "people",
    "people": "people",
    "次": "times",
    "times": "times",
    "x": "times",
    "杯": "cup",
    "cups": "cup",
    "cup": "cup",
    "pm": "pm",
    "am": "am",
}
_CURRENCY_SIGN = {"$": "usd", "¥": "cny", "￥": "cny", "€": "eur", "£": "gbp"}

_TOKEN = lazy(
    r"(?P<cur>[$¥￥€£])?\s?(?P<num>\d+(?:[.:]\d+)*)\s?(?P<mult>k\b|万|千(?!克)|百)?[\s-]?"
    r"(?P<unit>%|°[cf]?|µg|[a-z]+|个小时|个月|分钟|小时|公里|公斤|千克|毫克|微克|毫升|公升|厘米|英寸|号楼|"
    r"块钱|歐元|欧元|英[镑鎊]|美[元金]|[块元斤米岁度楼层人次杯天周年寸晚歐欧刀克升])?",
    re.IGNORECASE,
)
_ISO_DATE = lazy(r"\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b")
_ZH_DATE = lazy(r"(?:(\d{4})年)?(\d{1,2})月(\d{1,2})[日号]")
# Day first with dots, as most of Europe writes it: "30.11.2026"; without a year
# only after a word that introduces a date ("on 24.01", "until 15.05"), since "Node 20.11"
# is a version and "12.50" an amount.
_DOT_DATE = lazy(r"(?<![\d.])(\d{1,2})\.(\d{1,2})\.(\d{4})(?!\d|\.\d)")
_DOT_DAY_MONTH = lazy(
    r"\b(?:on|until|till|til|by|from|before|after|due|in|out|am|bis|ab|vom|to|since|ends?|"
    r"expires?)\s+(\d{2})\.(\d{2})(?!\d|\.\d|\s*(?:[%°€$£¥]|(?:eur|usd|gbp|kg|km|mg|ml|gb|mb)\b))",
    re.IGNORECASE,
)
# A month of a year: "September 2026", "Sept. 2026", "2026年9月".
_MONTH_YEAR = lazy(r"\b([a-z]{3,9})\.?,?\s+(\d{4})\b", re.IGNORECASE)
_ZH_MONTH_YEAR = lazy(r"(\d{4})年(\d{1,2})月")
# The day of every month: "on the 1st of each month", "the 3rd every month", "每月15号".
_DAY_OF_MONTH = lazy(
    r"\bthe\s+(\d{1,2})(?:\s+(?:of\s+)?(?:each|every|the)\s+month|\s+monthly)\b",
    re.IGNORECASE,
)
_ZH_DAY_OF_MONTH = lazy(r"(?:每个?月|每月的?)(\d{1,2})[号日]")
_EN_DATE_MD = lazy(
    r"\b([a-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s*(\d{4}))?", re.IGNORECASE
)
_EN_DATE_DM = lazy(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?([a-z]{3,9})\b", re.IGNORECASE)
# Month first, as written in the US ("3/14", "3/7/25"); day first where the first number
# cannot be a month ("22/03", as written in Britain, India, Singapore ...).
_SLASH_DATE = lazy(r"\b(\d{1,2})/(\d{1,2})(?:/(?:\d{4}|\d{2}))?\b")
_TIME_EN = lazy(
    r"\b(\d{1,2})(?:[:.](\d{2}))?\s*(a\.?m\.?|p\.?m\.?)(?![a-z])|\b(\d{1,2}):(\d{2})\b",
    re.IGNORECASE,
)
_TIME_ZH = lazy(r"(早上|上午|中午|下午|晚上|凌晨|夜里|傍晚)?(\d{1,2})[点:：](半|(\d{1,2})分?)?")
_ZH_WEEK = lazy(r"(?:周|星期|礼拜)([一二三四五六日天1-7])")


Slot = tuple[str, str]


class _Found:
    """Slots found so far, and the characters they took (a later pass skips them)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.slots: set[Slot] = set()
        # One flag per character taken: checking a span against every span taken so far
        # was quadratic (a 200,000-character tool output spent 7 s here, inside a write).
        self._taken = bytearray(len(text) + 1)

    def free(self, span: tuple[int, int]) -> bool:
        """Neither end of the span falls inside a span already taken."""
        start, end = span
        return not (self._taken[start] or (end > 0 and self._taken[end - 1]))

    def take(self, start: int, end: int) -> None:
        self._taken[start:end] = b"\x01" * (end - start)

    def add(self, m: re.Match[str], *found: Slot) -> None:
        self.slots.update(found)
        self.take(*m.span())


@functools.lru_cache(maxsize=8192)
def slots(text: str) -> frozenset[Slot]:
    """The typed canonical values a text states (see the module docstring)."""
    found = _Found(canonical_text(text))
    for take in (_dates, _times_en, _times_zh, _weekdays, _quantities):
        take(found)
    # Identifiers are read from the text as written (canonical text splits their hyphens).
    found.slots.update(("id", m.group().casefold()) for m in _IDENTIFIER.finditer(text))
    return frozenset(found.slots)


# An identifier with letters and digits: a region (us-east-2), a train (G7502), a parking
# spot (B2-117), an instance type (db.r6g.2xlarge). Compared one against one, like numbers.
_IDENTIFIER = lazy(
    r"(?<![A-Za-z0-9_.-])(?=[A-Za-z0-9_.-]*\d)[A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)+"
    r"(?![A-Za-z0-9_-])"
    r"|(?<![A-Za-z0-9_-])[A-Z]{1,3}\d{1,}(?:-\d+)?(?![A-Za-z0-9_-])"
)


def is_calendar_word(word: str) -> bool:
    """A month or weekday name ("March", "Sunday"): a value, never the name of a thing."""
    folded = word.casefold()
    return folded in _MONTHS or folded in _WEEKDAYS


def _year_month(year: int, month: int) -> Slot:
    return ("year_month", f"{year:04d}-{month:02d}")


def _date(month: int, day: int) -> Slot:
    return ("date", f"{month:02d}-{day:02d}")


def _dates(f: _Found) -> None:
    for m in (*_ISO_DATE.finditer(f.text), *_ZH_DATE.finditer(f.text)):
        f.add(m, _date(int(m.group(2)), int(m.group(3))))
        if m.group(1):
            f.slots.add(_year_month(int(m.group(1)), int(m.group(2))))
    _dot_dates(f)
    _en_dates(f)
    _months_and_days(f)


def _dot_dates(f: _Found) -> None:
    for m in _DOT_DATE.finditer(f.text):
        day, month, year = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if f.free(m.span()) and 1 <= month <= 12 and 1 <= day <= 31:
            f.add(m, _date(month, day), _year_month(year, month))
    for m in _DOT_DAY_MONTH.finditer(f.text):
        day, month = int(m.group(1)), int(m.group(2))
        if f.free(m.span(1)) and 1 <= month <= 12 and 1 <= day <= 31:
            f.slots.add(_date(month, day))
            f.take(m.start(1), m.end(2))


def _months_and_days(f: _Found) -> None:
    for m in _MONTH_YEAR.finditer(f.text):
        month = _MONTHS.get(m.group(1).casefold())
        if month:
            f.slots.add(_year_month(int(m.group(2)), month))
            f.take(*m.span(2))
    for m in _ZH_MONTH_YEAR.finditer(f.text):
        if 1 <= int(m.group(2)) <= 12:
            f.slots.add(_year_month(int(m.group(1)), int(m.group(2))))
            f.take(*m.span(1))
    for m in (*_DAY_OF_MONTH.finditer(f.text), *_ZH_DAY_OF_MONTH.finditer(f.text)):
        if f.free(m.span(1)) and 1 <= int(m.group(1)) <= 31:
            f.slots.add(("day_of_month", str(int(m.group(1)))))
            f.take(*m.span(1))


def _en_dates(f: _Found) -> None:
    for m in _EN_DATE_MD.finditer(f.text):
        month = _MONTHS.get(m.group(1).casefold())
        if month and 1 <= int(m.group(2)) <= 31:
            f.add(m, _date(month, int(m.group(2))))
            if m.group(3):
                f.slots.add(_year_month(int(m.group(3)), month))
    for m in _EN_DATE_DM.finditer(f.text):
        month = _MONTHS.get(m.group(2).casefold())
        if month and 1 <= int(m.group(1)) <= 31 and f.free(m.span()):
            f.add(m, _date(month, int(m.group(1))))
    for m in _SLASH_DATE.finditer(f.text):
        month, day = int(m.group(1)), int(m.group(2))
        if month > 12 >= day:
            month, day = day, month
        if f.free(m.span()) and 1 <= month <= 12 and 1 <= day <= 31:
            f.add(m, _date(month, day))


def _times_en(f: _Found) -> None:
    for m in _TIME_EN.finditer(f.text):
        if not f.free(m.span()):
            continue
        half = (m.group(3) or "").casefold()
        if half:
            hour, minute = int(m.group(1)), int(m.group(2) or 0)
            hour = (hour % 12) + (12 if half.startswith("p") else 0)
        else:
            hour, minute = int(m.group(4)), int(m.group(5))
        if hour < 24 and minute < 60:
            f.add(m, *(("time", c) for c in _clock(hour, minute, exact=bool(half))))


def _times_zh(f: _Found) -> None:
    for m in _TIME_ZH.finditer(f.text):
        said_hour = m.group(3) is not None or m.group(1) is not None
        if not f.free(m.span()) or not (said_hour or f.text[m.end() - 1 : m.end()] in "点:："):
            continue
        hour = int(m.group(2))
        minute = 30 if m.group(3) == "半" else int(m.group(4) or 0)
        part = m.group(1)
        # 下午/傍晚 and 晚上 (but 夜里3点 is 凌晨3点) are afternoon and evening; 中午1点 is 13:00.
        late = part in ("下午", "傍晚") or (part in ("晚上", "夜里") and hour > 4)
        if (late or (part == "中午" and hour <= 2)) and hour < 12:
            hour += 12
        if hour < 24 and minute < 60:
            f.add(m, *(("time", c) for c in _clock(hour, minute, exact=part is not None)))


def _weekdays(f: _Found) -> None:
    for m in _ZH_WEEK.finditer(f.text):
        f.add(m, ("weekday", _ZH_WEEKDAY[m.group(1)]))
    for word in re.findall(r"[a-z]+", f.text.casefold()):
        if word.endswith("days") and word[:-1] in _WEEKDAYS:
            word = word[:-1]  # "on Tuesdays": every Tuesday
        if word in _WEEKDAYS and (len(word) > 3 or word in ("mon", "tue", "wed", "thu", "fri")):
            f.slots.add(("weekday", _WEEKDAYS[word]))


_SCALE = {"k": 1000, "万": 10000, "千": 1000, "百": 100}
# Units of one quantity written at another scale, folded to one unit so that "2 weeks" and
# "14 days", "1.5 h" and "90 minutes", "500 g" and "0.5 kg" are one value.
_FOLD = {
    "gram": ("kg", 0.001),
    "km": ("m", 1000.0),
    "cm": ("m", 0.01),
    "litre": ("ml", 1000.0),
    "h": ("min", 60.0),
    "day": ("min", 1440.0),
    "week": ("min", 10080.0),
}


def _quantities(f: _Found) -> None:
    for m in _TOKEN.finditer(f.text):
        num = m.group("num")
        if not f.free(m.span("num")) or ":" in num:
            continue
        unit = _UNITS.get((m.group("unit") or "").casefold())
        value = num.rstrip(".")
        mult = (m.group("mult") or "").casefold()
        if mult == "k" and _RUN.search(f.text):
            mult, unit = "", "km"  # "ran a 5k"
        if mult and _is_float(value):
            value = _fmt(float(value) * _SCALE[mult])
        if unit == "k":
            unit = "km" if _RUN.search(f.text) else None
            value = value if unit or not _is_float(value) else _fmt(float(value) * 1000)
        kind = _CURRENCY_SIGN.get(m.group("cur") or "") or unit
        if unit in ("pm", "am") or (kind == "times" and value == "1"):
            continue  # a time (read above); "一次", "once": how often, not a value
        if kind in _FOLD and _is_float(value):
            kind, scale = _FOLD[kind]
            value = _fmt(float(value) * scale)
        if kind:
            f.slots.add((f"qty:{kind}", _fmt(float(value)) if _is_float(value) else value))
        else:
            # A bare number is a value of what it follows: "port 8080", "Node 20", "数量是2".
            f.slots.add((f"num:{_context(f.text, m.start('num'))}", value))


_WORD_BEFORE = lazy(r"([a-z][a-z-]*|[\u4e00-\u9fff])[^a-z0-9\u4e00-\u9fff]*$", 2)
_FUNCTION = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "be",
        "the",
        "a",
        "an",
        "at",
        "of",
        "to",
        "in",
        "on",
        "for",
        "with",
        "and",
        "or",
        "by",
        "from",
        "about",
        "around",
        "approximately",
        "roughly",
        "~",
        "是",
        "的",
        "了",
        "在",
        "为",
        "到",
        "有",
        "约",
        "大",
        "概",
    ]
)


def _context(text: str, end: int) -> str:
    """The word a number follows, skipping function words (a bare number's slot name)."""
    head = text[max(0, end - 40) : end].casefold()
    for _ in range(3):
        m = _WORD_BEFORE.search(head)
        if m is None:
            return ""
        if m.group(1) not in _FUNCTION:
            return m.group(1)
        head = head[: m.start()]
    return ""


_RUN = lazy(r"\b(?:run|ran|runs|jog|race)|跑", re.IGNORECASE)


def _clock(hour: int, minute: int, *, exact: bool) -> tuple[str, ...]:
    """A time as 24-hour values: "1:30" said without am/pm (or a part of day) may be either
    half of the day, so it holds both, and agrees with "1:30pm" as with "1:30am"."""
    if exact or hour == 0 or hour > 12:
        return (f"{hour:02d}:{minute:02d}",)
    return (f"{hour % 12:02d}:{minute:02d}", f"{hour % 12 + 12:02d}:{minute:02d}")


def _is_float(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return value.count(".") <= 1


def _fmt(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def _refines(x: str, y: str) -> bool:
    return y.startswith(x + ".") or x.startswith(y + ".")


def _single(a: frozenset[Slot], b: frozenset[Slot], kind: str) -> bool:
    return sum(k == kind for k, _ in a) == 1 and sum(k == kind for k, _ in b) == 1


def differing(a: frozenset[Slot], b: frozenset[Slot]) -> list[tuple[str, str, str]]:
    """Slots of one type holding different values in the two texts: (type, old, new)."""
    out = []
    types_a = {k for k, _ in a}
    types_b = {k for k, _ in b}
    # Bare numbers are compared only one against one, under the same word ("port 8080" /
    # "port 8443"): several on a side are a list, a date or an identifier.
    skip = {k for k in types_a | types_b if k.startswith(("num:", "id")) and not _single(a, b, k)}
    for kind in sorted((types_a & types_b) - skip):
        va = {v for k, v in a if k == kind}
        vb = {v for k, v in b if k == kind}
        if len(va) == len(vb) == 1 and _refines(next(iter(va)), next(iter(vb))):
            continue  # "Node 20" / "Node 20.11.1": a more precise value, not another
        if (va != vb and not (va <= vb or vb <= va)) or (va != vb and len(va) == len(vb)):
            out.append((kind, ",".join(sorted(vb)), ",".join(sorted(va))))
    # a bare number on one side against the same number with a unit on the other is the same
    return out


# Imported from here by callers.
__all__ = ["Slot", "canonical_text", "differing", "is_calendar_word", "slots", "zh_to_int"]
