"""PII: payment cards, national ids, passports and bank accounts (context and IBAN)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from core.governance.sensitivity.finding import Finding, FindingType
from core.governance.sensitivity.heuristics import line_prefix, not_reference_number
from core.governance.sensitivity.rules import FunctionDetector, RegexRule, match_value, regex_rule
from core.governance.sensitivity.validators import (
    IBAN_LENGTHS,
    card_number_valid,
    cn_resident_id_valid,
    hk_identity_card_valid,
    iban_valid,
    tw_national_id_valid,
)
from core.patterns import lazy


def _card_ok(m: re.Match[str]) -> bool:
    """A checksum-valid card number, unless a label calls it an order or build number."""
    return card_number_valid(re.sub(r"\D", "", match_value(m))) and not_reference_number(m)


def _cn_id_ok(m: re.Match[str]) -> bool:
    """Adapter from a regex match to :func:`cn_resident_id_valid`."""
    return cn_resident_id_valid(match_value(m))


def _hkid_ok(m: re.Match[str]) -> bool:
    """Adapter from a regex match to :func:`hk_identity_card_valid`."""
    return hk_identity_card_valid(match_value(m))


_TW_ID_CONTEXT = lazy(r"身分證|身份证|身份證|证件|證件|台胞|(?<![a-z])(?:id|identity)(?![a-z])")


def _twid_ok(m: re.Match[str]) -> bool:
    """One in ten random ``A1xxxxxxxx`` codes passes the checksum, so an id label must be near."""
    if not _TW_ID_CONTEXT.search(line_prefix(m.string, m.start())):
        return False
    return tw_national_id_valid(match_value(m))


def _ssn_ok(m: re.Match[str]) -> bool:
    """US SSNs never use area 000, 666 or 9xx, group 00 or serial 0000."""
    digits = re.sub(r"\D", "", match_value(m))
    area, group, serial = digits[:3], digits[3:5], digits[5:]
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


def _bank_account_ok(m: re.Match[str]) -> bool:
    """Account numbers named as such; reject filler like 0000 0000."""
    digits = re.sub(r"\D", "", match_value(m))
    return 8 <= len(digits) <= 30 and len(set(digits)) > 2


_CARD_PATTERN = (
    r"(?<![0-9A-Za-z_.\-])(?P<v>\d{13,19}"
    r"|\d{4}(?P<s1>[ \-])\d{4}(?P=s1)\d{4}(?:(?P=s1)\d{1,4}){1,2}"
    r"|\d{4}(?P<s2>[ \-])\d{6}(?P=s2)\d{4,5})(?![0-9A-Za-z_]|[.\-]\d)"
)

RULES: tuple[RegexRule, ...] = (
    regex_rule("luhn_card", FindingType.CARD_NUMBER, _CARD_PATTERN, _card_ok, priority=74),
    regex_rule(
        "cn_resident_id",
        FindingType.NATIONAL_ID,
        r"(?<![0-9A-Za-z_])(?P<v>[1-9]\d{5}[ ]?(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])"
        r"(?:0[1-9]|[12]\d|3[01])[ ]?\d{3}[\dXx])(?![0-9A-Za-z_])",
        _cn_id_ok,
        priority=76,
    ),
    regex_rule(
        "us_ssn",
        FindingType.NATIONAL_ID,
        r"(?i:(?<![A-Za-z])(?:ssn|social security(?: number| no\.?)?))\s*(?:#|is|:|=)?\s*"
        r"(?P<v>\d{3}-\d{2}-\d{4}|\d{9})(?!\d)",
        _ssn_ok,
        priority=60,
    ),
    regex_rule(
        "hk_identity_card",
        FindingType.NATIONAL_ID,
        r"(?<![A-Za-z0-9])(?P<v>[A-Z]{1,2}\d{6}\s?\([0-9A]\))",
        _hkid_ok,
        priority=60,
    ),
    regex_rule(
        "tw_national_id",
        FindingType.NATIONAL_ID,
        r"(?<![A-Za-z0-9])(?P<v>[A-Z][12]\d{8})(?![A-Za-z0-9])",
        _twid_ok,
        priority=60,
    ),
    regex_rule(
        "passport_number",
        FindingType.NATIONAL_ID,
        r"(?:护照号码?|护照|(?i:passport(?:\s+(?:number|no\.?))?))\s*(?:[:：#]|是|为|is)?\s*"
        r"(?P<v>[A-Z]{1,2}\d{7,8})(?![A-Za-z0-9])",
        priority=60,
    ),
    regex_rule(
        "bank_account_context",
        FindingType.BANK_ACCOUNT,
        r"(?:银行卡号|银行账号|银行账户|收款账号|收款账户|对公账户|对公账号|开户行账号|"
        r"(?i:bank\s+account(?:\s+(?:number|no\.?|#))?))\s*(?:[:：#]|是|为|is)?\s*"
        r"(?P<v>\d[\d \-]{6,34}\d)(?!\d)",
        _bank_account_ok,
        priority=52,
    ),
)


_IBAN_CANDIDATE = lazy(r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?:[ ]?[A-Za-z0-9]){11,30}")


def _iban_end(text: str, start: int, length: int) -> int | None:
    """Offset after the ``length``-th alphanumeric character, or None if the text runs out."""
    seen = 0
    for pos in range(start, len(text)):
        if text[pos] != " ":
            seen += 1
        if seen == length:
            return pos + 1
    return None


def _ibans(text: str) -> Iterator[Finding]:
    """Find IBANs, trimming the greedy candidate to the country's fixed length."""
    for m in _IBAN_CANDIDATE.finditer(text):
        length = IBAN_LENGTHS.get(m.group()[:2].upper())
        end = _iban_end(text, m.start(), length) if length else None
        if end is None or text[end : end + 1].isalnum():
            continue
        if iban_valid(text[m.start() : end]):
            yield Finding(FindingType.BANK_ACCOUNT, m.start(), end, "iban")


# A checksum over a fixed country length: as specific as a card number.
IBAN_DETECTOR = FunctionDetector("iban", 74, _ibans)
