"""PII: e-mail addresses and phone numbers (Chinese, European, E.164, North American)."""

from __future__ import annotations

import re

from core.governance.sensitivity.finding import FindingType
from core.governance.sensitivity.heuristics import not_reference_number
from core.governance.sensitivity.rules import RegexRule, match_value, regex_rule

_IMAGE_TLDS = frozenset({"png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "bmp"})


def _email_ok(m: re.Match[str]) -> bool:
    """Skip address-shaped things that are not mailboxes: URL userinfo, SSH remotes, assets."""
    text, start, end = m.string, m.start(), m.end()
    token_before = re.split(r"\s", text[max(0, start - 200) : start])[-1]
    if "://" in token_before:
        return False
    if text[end : end + 1] == ":" and text[end + 1 : end + 2].strip():
        return False
    if re.search(
        r"(?:^|\s)(?:ssh|scp|sftp|rsync)\s+(?:-\S+\s+)*$", text[max(0, start - 60) : start]
    ):
        return False
    domain = m.group("domain")
    return domain.rsplit(".", 1)[-1].lower() not in _IMAGE_TLDS and not re.match(r"\d+x\.", domain)


def _national_mobile_ok(m: re.Match[str]) -> bool:
    """Leading-zero numbers also appear as octal literals (``017777777777``); need variety."""
    return len(set(re.sub(r"\D", "", match_value(m)))) > 3 and not_reference_number(m)


def _e164_ok(m: re.Match[str]) -> bool:
    """International numbers have 8-15 digits; reject decimals and unbalanced brackets."""
    value = match_value(m)
    digits = sum(c.isdigit() for c in value)
    if not 8 <= digits <= 15 or value.count("(") != value.count(")"):
        return False
    if ".." in value or value.count(".") == 1:
        return False
    return not_reference_number(m)


def _nanp_ok(m: re.Match[str]) -> bool:
    """North-American area codes and exchanges never start with 0 or 1."""
    digits = re.sub(r"\D", "", match_value(m))[-10:]
    return digits[0] not in "01" and digits[3] not in "01" and not_reference_number(m)


RULES: tuple[RegexRule, ...] = (
    regex_rule(
        "email",
        FindingType.EMAIL_ADDRESS,
        r"(?<![A-Za-z0-9._%+\-])(?P<v>[A-Za-z0-9][A-Za-z0-9._%+\-]{0,63}@"
        r"(?P<domain>[A-Za-z0-9](?:[A-Za-z0-9\-]{0,62}[A-Za-z0-9])?"
        r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]{0,62}[A-Za-z0-9])?)*\.[A-Za-z]{2,24}))(?![A-Za-z0-9\-])",
        _email_ok,
        priority=55,
    ),
    regex_rule(
        "email_obfuscated",
        FindingType.EMAIL_ADDRESS,
        r"(?i)(?<![A-Za-z0-9._%+\-])(?P<v>[A-Za-z0-9][A-Za-z0-9._%+\-]{0,63}\s*[\[(]\s*at\s*[\])]"
        r"\s*[A-Za-z0-9\-]+(?:\s*[\[(]\s*dot\s*[\])]\s*[A-Za-z0-9\-]+|\.[A-Za-z0-9\-]+)+)",
    ),
    regex_rule(
        "cn_mobile",
        FindingType.PHONE_NUMBER,
        r"(?<![0-9A-Za-z_.\-/+])(?P<v>(?:(?:\+|00)86[ \-]?|\(\+86\)[ ]?)?"
        r"1[3-9]\d[ \-]?\d{4}[ \-]?\d{4})(?![0-9A-Za-z_])",
        not_reference_number,
    ),
    regex_rule(
        "cn_landline",
        FindingType.PHONE_NUMBER,
        r"(?<![0-9A-Za-z_.\-/])(?P<v>\(?0[1-9]\d{1,2}\)?[ \-][2-9]\d{3}[ ]?\d{3,4})"
        r"(?![0-9A-Za-z_\-])",
        not_reference_number,
    ),
    regex_rule(
        "eu_national_mobile",
        FindingType.PHONE_NUMBER,
        r"(?<![0-9A-Za-z_.\-/])(?P<v>0(?:7\d{3}[ ]?\d{6}|1[5-7]\d[ ]?\d{7,8}))(?![0-9A-Za-z_\-])",
        _national_mobile_ok,
    ),
    regex_rule(
        "e164_phone",
        FindingType.PHONE_NUMBER,
        r"(?<![0-9A-Za-z_+)])(?P<v>\+[1-9][\d \-().]{6,22}\d)(?![0-9A-Za-z_])",
        _e164_ok,
    ),
    regex_rule(
        "nanp_phone",
        FindingType.PHONE_NUMBER,
        r"(?<![0-9A-Za-z_.\-])(?P<v>(?:\+?1[ .\-]?)?(?:\(\d{3}\)[ ]?\d{3}[.\-]\d{4}"
        r"|\d{3}-\d{3}-\d{4}|\d{3}\.\d{3}\.\d{4}))(?![0-9A-Za-z_\-]|\.\d)",
        _nanp_ok,
    ),
)
