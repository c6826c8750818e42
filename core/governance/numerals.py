"""Numbers as digits, whatever way they were written (#40, R9): Chinese numerals ("十五",
"两千五"), number words ("fifteen", "a dozen", "3k"), thousands separators, and a few
spoken forms ("百分之45", "一米七五", 块), with the extractor's third person read as the
speaker's first. `canonical_text` is the first pass of `canonical.slots`.
"""

from __future__ import annotations

import functools
import re

from core.governance.han import simplified
from core.patterns import lazy

_ZH_DIGIT = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "俩": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}


_ZH_UNIT = {"十": 10, "百": 100, "千": 1000}


# 千 before 克, 米 or 瓦 belongs to the unit (千克 is a kilogram), not to the number.
_ZH_NUMBER = lazy(
    r"(?:[零〇一二两俩三四五六七八九十百万]|千(?![克米瓦]))+(?:点[零〇一二三四五六七八九]+)?"
)


_EN_ONES = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}


_EN_TENS = {
    w: 10 * (i + 2)
    for i, w in enumerate(
        ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    )
}


_EN_NUMBER = lazy(
    r"\b(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](?:one|two|three|"
    r"four|five|six|seven|eight|nine))?|zero|one|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|a dozen|"
    r"half an?|a couple of)(?:\s+(hundred|thousand|million|k))?\b",
    re.IGNORECASE,
)


_THOUSANDS = lazy(r"(?<=\d),(?=\d{3}\b)")


def zh_to_int(run: str) -> int | None:
    """A Chinese numeral ("十五", "三百", "两千五", "一万二") as an integer, else None."""
    if not run:
        return None
    if all(c in _ZH_DIGIT for c in run) and len(run) > 1:
        return int("".join(str(_ZH_DIGIT[c]) for c in run))
    total, section, digit = 0, 0, None
    last_unit = 1
    for ch in run:
        if ch in _ZH_DIGIT:
            digit = _ZH_DIGIT[ch]
        elif ch in _ZH_UNIT:
            section += (digit if digit is not None else 1) * _ZH_UNIT[ch]
            last_unit = _ZH_UNIT[ch]
            digit = None
        elif ch == "万":
            total += (section + (digit or 0)) * 10000
            section, digit, last_unit = 0, None, 10000
        else:
            return None
    if digit is not None:
        # "两千五" is 2500, "三百二" 320: a trailing digit counts in the next lower unit.
        section += digit * (last_unit // 10 if last_unit >= 100 and run[-2] in "千百万" else 1)
    return total + section


def _zh_sub(m: re.Match[str]) -> str:
    run = m.group()
    whole, _, frac = run.partition("点")
    value = zh_to_int(whole)
    if value is None:
        return run
    if frac:
        digits = "".join(str(_ZH_DIGIT.get(c, c)) for c in frac)
        # "三点八五" is 3.85; "三点十分" / "三点05分" a time.
        if m.string[m.end() : m.end() + 1] == "分":
            return f"{value}点{digits}"
        return f"{value}.{digits}"
    return str(value)


# Chinese numeral runs that are words, not numbers.
_ZH_WORDS = lazy(
    r"一直|一起|一下|一些|一点|一般|一定|一样|一共|万一|一切|统一|唯一|一边|一向|一旦|十分|三明治|千万"
)


def _en_number(m: re.Match[str]) -> str:
    words = m.group().casefold()
    mult = m.group(1)
    head = words[: -len(mult)].strip() if mult else words
    if head in ("a dozen",):
        value = 12
    elif head.startswith("half"):
        value = 0  # "half an hour": handled as 30 min below
        return "30 min" if "hour" in m.string[m.end() : m.end() + 6].casefold() else m.group()
    elif head == "a couple of":
        value = 2
    else:
        parts = re.split(r"[- ]", head)
        value = sum(_EN_TENS.get(p, _EN_ONES.get(p, 0)) for p in parts)
    scale = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "k": 1000}.get(
        (mult or "").casefold(), 1
    )
    return str(value * scale)


@functools.lru_cache(maxsize=8192)
def canonical_text(text: str) -> str:
    """The text with numbers as digits (Chinese numerals, number words, thousands separators),
    and Chinese in Simplified characters (`han.simplified`)."""
    out = _THOUSANDS.sub("", simplified(text)).replace(
        "百分之", "\x01"
    )  # kept from the numeral pass
    masked = _ZH_WORDS.sub(lambda m: "\x00" * len(m.group()), out)
    keep = {i: out[i] for i in range(len(out)) if masked[i] == "\x00"}
    parts: list[str] = []
    pos = 0
    for m in _ZH_NUMBER.finditer(masked):
        parts.append(masked[pos : m.start()])
        parts.append(_zh_sub(m))
        pos = m.end()
    parts.append(masked[pos:])
    joined = "".join(parts)
    if keep:
        # restore the masked words (the masked spans kept their lengths and were not replaced)
        it = iter(keep.values())
        joined = "".join(next(it) if c == "\x00" else c for c in joined)
    joined = _PERCENT_ZH.sub(r"\1%", joined).replace("\x01", "百分之")
    joined = _METRE_ZH.sub(lambda m: f"{100 + int(m.group(1).ljust(2, '0'))}cm", joined)
    joined = _THIRD_PERSON.sub(_first_person, joined)
    joined = _KUAI.sub("元", _LETTER_HYPHEN.sub(" ", joined))
    joined = _ORDINAL.sub(r"\1", joined)
    joined = _PAST.sub(_past, _EN_NUMBER.sub(_en_number, joined))
    return _MONTH_SHORT.sub(lambda m: _MONTHS[(m.group(1) or m.group(2)).casefold()[:3]], joined)


# "Sept. 2026", "3 Feb": a month's short name beside a number is the month's name.
_MONTHS = {
    m[:3]: m
    for m in [
        "january",
        "february",
        "march",
        "april",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ]
}
_MONTH_SHORT = lazy(
    r"(?:(?<=\d )|(?<=\d))\b(jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\b\.?"
    r"|\b(jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\b\.?(?=\s*\d)",
    2,
)


# "quarter past 6" is 6:15, "half past 6" 6:30, "quarter to 7" 6:45 (after the number words).
_PAST = lazy(r"\b(quarter|half) (past|to) (\d{1,2})(?![\d:.])", 2)


def _past(m: re.Match[str]) -> str:
    hour, minutes = int(m.group(3)), 15 if m.group(1).casefold() == "quarter" else 30
    if m.group(2).casefold() == "to":
        hour, minutes = (hour - 1) % 24, 60 - minutes
    return f"{hour}:{minutes:02d}"


def _first_person(m: re.Match[str]) -> str:
    word = m.group().casefold()
    if word.startswith(("用户", "用戶")):
        return "我" + word[2:]
    return "my" if word.endswith("'s") else "I"


# "百分之45" (after the numeral pass) is 45%; "一米七五" (1米75) a height of 175 cm.
_PERCENT_ZH = lazy(r"\x01(\d+(?:\.\d+)?)")


_METRE_ZH = lazy(r"(?<!\d)1米(\d{1,2})(?!\d)")


def first_person(text: str) -> str:
    """An extractor's "the user" / 用户 as the speaker's own words ("my", 我)."""
    return _THIRD_PERSON.sub(_first_person, text)


# An extractor's third person is the speaker: "The user's desk" is "my desk", 用户 is 我.
_THIRD_PERSON = lazy(r"\b(?:the )?user(?:'s)?\b|用[户戶]的?", 2)


# "nut-free" and "nut free" are one phrase.
_LETTER_HYPHEN = lazy(r"(?<=[A-Za-z0-9])-(?=[A-Za-z])")


# "2nd" is 2 (a date's day, a floor).
_ORDINAL = lazy(r"\b(\d+)(?:st|nd|rd|th)\b", 2)


# 块 and 块钱 are spoken 元.
_KUAI = lazy(r"(?<=\d)\s?块钱?")
