"""PII: postal addresses in English, Romance, Germanic and Chinese formats."""

from __future__ import annotations

import re

from core.governance.sensitivity.finding import FindingType
from core.governance.sensitivity.rules import RegexRule, regex_rule

_STRONG_SUFFIXES = (
    "Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Parkway|Pkwy|Highway|Hwy|Terrace"
)
_WEAK_SUFFIXES = "Drive|Dr|Court|Ct|Way|Place|Pl|Square|Sq|Circle|Cir|Loop|Close|Row|Mews"
_WEAK_NAME_BLACKLIST = frozenset(
    {
        "google",
        "event",
        "nested",
        "inner",
        "outer",
        "main",
        "render",
        "game",
        "feedback",
        "while",
        "for",
        "one",
        "shared",
        "my",
        "team",
        "network",
        "hard",
        "solid",
        "state",
        "flash",
        "usb",
        "external",
        "cloud",
        "test",
        "disk",
        "the",
        "new",
        "old",
        "next",
        "first",
        "last",
    }
)
_EN_ADDRESS = (
    r"(?<![A-Za-z0-9])(?P<v>\d{1,6}[A-Za-z]?(?:-\d{1,4})?\s+"
    r"(?P<name>(?:(?:N|S|E|W|North|South|East|West)\.?\s+)?(?:[A-Z][a-z]+(?:'s)?|\d{1,3}(?:st|nd|rd|th))"
    r"(?:\s+[A-Z][a-z]+(?:'s)?){0,3})\s+(?P<suffix>"
    + _STRONG_SUFFIXES
    + "|"
    + _WEAK_SUFFIXES
    + r")"
    r"(?![A-Za-z])\.?(?:,?\s+(?:Apt|Suite|Unit|Ste|#)\.?\s*[A-Za-z0-9\-]+)?"
    r"(?:,\s*[A-Z][a-z]+(?:\s[A-Z][a-z]+)*)?(?:,\s*[A-Z]{2}\s+\d{5}(?:-\d{4})?)?)"
)


def _en_address_ok(m: re.Match[str]) -> bool:
    """Weak suffixes (Drive, Way...) collide with product names such as 'Google Drive'."""
    if m.group("suffix") in _STRONG_SUFFIXES.split("|"):
        return True
    words = {w.lower() for w in m.group("name").split()}
    return not words & _WEAK_NAME_BLACKLIST


_ZH_STOP = "在是的到住我寄送址往去请把帮你他她它们了吗呢吧就也还要想说给填写改"
_ZH_CHAR = rf"(?:(?![{_ZH_STOP}])[\u4e00-\u9fff])"
_ZH_ADMIN = (
    rf"(?P<admin>(?:{_ZH_CHAR}{{2,8}}?(?:省|自治区|特别行政区))?(?:{_ZH_CHAR}{{1,8}}?市)?"
    rf"(?:{_ZH_CHAR}{{1,8}}?(?:区|县|旗))?(?:{_ZH_CHAR}{{1,8}}?(?:镇|乡|街道))?)"
)
_ZH_UNITS = r"(?:[ ]?(?:\d{1,5}|[A-Za-z])[ ]?(?:号楼|号院|栋|幢|座|单元|层|楼|室|号|弄))*"
_ZH_ROAD_ADDRESS = (
    rf"(?P<v>{_ZH_ADMIN}(?P<road>{_ZH_CHAR}{{1,10}}?(?:大道|大街|路|街|道|巷|胡同|弄))"
    rf"(?:[东南西北中]?段)?[ ]?\d{{1,5}}[ ]?(?:号院|号|弄){_ZH_UNITS})"
)
_ZH_COMPOUND_ADDRESS = (
    rf"(?P<v>{_ZH_ADMIN}{_ZH_CHAR}{{2,10}}?(?:小区|花园|公寓|家园|苑|新村)"
    rf"[ ]?\d{{1,4}}[ ]?(?:号楼|栋|幢|座){_ZH_UNITS})"
)
_ZH_ROAD_BLACKLIST = frozenset("线链电回思套网通支分出退来去走岔门")
# '道' alone ends many non-street words: 通道, 频道, 渠道, 赛道, 知道, 味道, 车道 ...
_ZH_DAO_BLACKLIST = frozenset("通频渠赛轨知管隧车跑人味报难街航栈霸王地水坑球步")


def _zh_road_ok(m: re.Match[str]) -> bool:
    """'线路2号' (line 2) or '思路3号' are not streets; need a real name or a district."""
    road = m.group("road")
    name = re.sub(r"(?:大道|大街|路|街|道|巷|胡同|弄)$", "", road)
    if not name or name[-1] in _ZH_ROAD_BLACKLIST:
        return False
    if road.endswith("道") and not road.endswith("大道") and name[-1] in _ZH_DAO_BLACKLIST:
        return False
    return bool(m.group("admin")) or len(name) >= 2


_ROMANCE_ADDRESS = (
    r"(?<![A-Za-z0-9])(?P<v>\d{1,5}(?:bis|ter)?,?\s+(?:Rue|Avenue|Boulevard|Bd|Quai|Via|Viale"
    r"|Piazza|Calle|Avenida|Rua|Carrer)\s+(?:(?:de|du|des|la|le|del|della|di|da|do|dos|l')\s*)*"
    r"[A-ZÀ-Ý][\w'À-ÿ\-]+(?:\s+[A-ZÀ-Ý][\w'À-ÿ\-]+){0,3}"
    r"(?:,\s*(?:\d{5}\s+)?[A-ZÀ-Ý][\w'À-ÿ\-]+)?)"
)
_GERMANIC_ADDRESS = (
    r"(?<![A-Za-z])(?P<v>[A-ZÄÖÜ][a-zäöüß]+(?:straße|strasse|str\.|weg|gasse|allee|platz|ring)"
    r"\s+\d{1,4}[a-z]?(?:,\s*\d{5}\s+[A-ZÄÖÜ][a-zäöüß]+)?)(?![0-9A-Za-z])"
)

RULES: tuple[RegexRule, ...] = (
    regex_rule(
        "en_street_address",
        FindingType.POSTAL_ADDRESS,
        _EN_ADDRESS,
        _en_address_ok,
        hint=rf"(?<![A-Za-z])(?:{_STRONG_SUFFIXES}|{_WEAK_SUFFIXES})(?![A-Za-z])",
    ),
    regex_rule(
        "romance_street_address",
        FindingType.POSTAL_ADDRESS,
        _ROMANCE_ADDRESS,
        hint=r"Rue|Avenue|Boulevard|Bd|Quai|Via|Piazza|Calle|Avenida|Rua|Carrer",
    ),
    regex_rule(
        "germanic_street_address",
        FindingType.POSTAL_ADDRESS,
        _GERMANIC_ADDRESS,
        hint=r"(?:straße|strasse|str\.|weg|gasse|allee|platz|ring)\s+\d",
    ),
    regex_rule(
        "zh_road_address",
        FindingType.POSTAL_ADDRESS,
        _ZH_ROAD_ADDRESS,
        _zh_road_ok,
        hint=r"(?:路|街|道|巷|胡同|弄)(?:[东南西北中]?段)?[ ]?\d",
    ),
    regex_rule(
        "zh_compound_address",
        FindingType.POSTAL_ADDRESS,
        _ZH_COMPOUND_ADDRESS,
        hint=r"(?:小区|花园|公寓|家园|苑|新村)[ ]?\d",
    ),
)
