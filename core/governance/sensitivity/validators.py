"""Checksums and registries that tell real identifiers from random digit runs.

Pure functions of a string: Luhn and issuer ranges for cards, ISO 13616 for IBANs, GB 11643
for Chinese resident ids, the Hong Kong and Taiwan id check digits.
"""

from __future__ import annotations

import datetime
import re

# (low, high, prefix length, allowed lengths) -- major networks' IIN ranges
_IIN_TABLE: tuple[tuple[int, int, int, frozenset[int]], ...] = (
    (4, 4, 1, frozenset({13, 16, 19})),
    (51, 55, 2, frozenset({16})),
    (2221, 2720, 4, frozenset({16})),
    (34, 34, 2, frozenset({15})),
    (37, 37, 2, frozenset({15})),
    (6011, 6011, 4, frozenset(range(16, 20))),
    (644, 649, 3, frozenset(range(16, 20))),
    (65, 65, 2, frozenset(range(16, 20))),
    (62, 62, 2, frozenset(range(16, 20))),
    (3528, 3589, 4, frozenset(range(16, 20))),
    (36, 36, 2, frozenset(range(14, 20))),
    (300, 305, 3, frozenset(range(14, 20))),
    (38, 39, 2, frozenset(range(14, 20))),
    (50, 50, 2, frozenset(range(13, 20))),
    (56, 58, 2, frozenset(range(13, 20))),
    (63, 63, 2, frozenset(range(13, 20))),
    (67, 67, 2, frozenset(range(13, 20))),
)


def luhn_valid(digits: str) -> bool:
    """Luhn mod-10 check; card numbers carry it, random order numbers mostly do not."""
    if not digits.isdigit():
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _iin_known(digits: str) -> bool:
    """A card number starts with an issuer range whose length rules it satisfies."""
    return any(
        low <= int(digits[:size]) <= high and len(digits) in lengths
        for low, high, size, lengths in _IIN_TABLE
    )


def card_number_valid(digits: str) -> bool:
    """Luhn and issuer range together make a random digit run an unlikely match."""
    return len(set(digits)) >= 2 and luhn_valid(digits) and _iin_known(digits)


_CN_REGIONS = frozenset(
    {11, 12, 13, 14, 15, 21, 22, 23, 31, 32, 33, 34, 35, 36, 37, 41, 42, 43, 44, 45, 46}
    | {50, 51, 52, 53, 54, 61, 62, 63, 64, 65, 71, 81, 82, 83, 91}
)
_CN_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_CN_ID_CHECK = "10X98765432"


def cn_id_checksum(first17: str) -> str:
    """ISO 7064 MOD 11-2 check character of a Chinese resident id (GB 11643)."""
    total = sum(int(d) * w for d, w in zip(first17, _CN_ID_WEIGHTS, strict=True))
    return _CN_ID_CHECK[total % 11]


def _cn_birth_date_ok(yyyymmdd: str) -> bool:
    """Birth date must exist and not lie in the future."""
    try:
        born = datetime.date(int(yyyymmdd[:4]), int(yyyymmdd[4:6]), int(yyyymmdd[6:]))
    except ValueError:
        return False
    return datetime.date(1900, 1, 1) <= born <= datetime.date.today()


def cn_resident_id_valid(value: str) -> bool:
    """Full validation of an 18-character id: region, birth date and checksum."""
    compact = value.replace(" ", "").upper()
    if len(compact) != 18 or not compact[:17].isdigit():
        return False
    if int(compact[:2]) not in _CN_REGIONS or not _cn_birth_date_ok(compact[6:14]):
        return False
    return cn_id_checksum(compact[:17]) == compact[17]


def hk_identity_card_valid(value: str) -> bool:
    """Hong Kong identity card check digit (mod 11 over letters and digits)."""
    raw = re.sub(r"[()\s]", "", value).upper()
    body, check = raw[:-1].rjust(8), raw[-1]
    values = [36 if c == " " else int(c, 36) for c in body]
    remainder = sum(v * w for v, w in zip(values, range(9, 1, -1), strict=True)) % 11
    expected = (11 - remainder) % 11
    return check == ("A" if expected == 10 else str(expected))


_TW_LETTERS = "ABCDEFGHJKLMNPQRSTUVXYWZIO"  # maps to 10..35 in this order
_TW_WEIGHTS = (1, 9, 8, 7, 6, 5, 4, 3, 2, 1, 1)


def tw_national_id_valid(value: str) -> bool:
    """Taiwan national id: letter code plus weighted digit sum divisible by 10."""
    raw = value.upper()
    code = _TW_LETTERS.index(raw[0]) + 10
    digits = [code // 10, code % 10, *(int(c) for c in raw[1:])]
    return sum(d * w for d, w in zip(digits, _TW_WEIGHTS, strict=True)) % 10 == 0


# IBAN lengths by country for the common SEPA and non-SEPA countries.
IBAN_LENGTHS = {
    "AD": 24,
    "AE": 23,
    "AT": 20,
    "BE": 16,
    "BG": 22,
    "BH": 22,
    "BR": 29,
    "CH": 21,
    "CY": 28,
    "CZ": 24,
    "DE": 22,
    "DK": 18,
    "EE": 20,
    "ES": 24,
    "FI": 18,
    "FR": 27,
    "GB": 22,
    "GR": 27,
    "HR": 21,
    "HU": 28,
    "IE": 22,
    "IL": 23,
    "IS": 26,
    "IT": 27,
    "KW": 30,
    "KZ": 20,
    "LI": 21,
    "LT": 20,
    "LU": 20,
    "LV": 21,
    "MC": 27,
    "MT": 31,
    "NL": 18,
    "NO": 15,
    "PL": 28,
    "PT": 25,
    "QA": 29,
    "RO": 24,
    "RS": 22,
    "SA": 24,
    "SE": 24,
    "SI": 19,
    "SK": 24,
    "SM": 27,
    "TR": 26,
    "UA": 29,
}


def iban_valid(value: str) -> bool:
    """ISO 13616 check: known country length and mod-97 remainder of 1."""
    compact = value.replace(" ", "").upper()
    if IBAN_LENGTHS.get(compact[:2]) != len(compact) or not compact.isalnum():
        return False
    if sum(c.isdigit() for c in compact[4:]) < 0.6 * len(compact[4:]):
        return False  # real BBANs are mostly digits; keeps prose from passing mod-97 by chance
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(ch, 36)) for ch in rearranged)) % 97 == 1
