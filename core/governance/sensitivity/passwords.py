"""Secrets: passwords named in prose, passphrases, PINs and command-line flags."""

from __future__ import annotations

import re

from core.governance.sensitivity.finding import FindingType
from core.governance.sensitivity.heuristics import (
    clean_value,
    credential_ok,
    passphrase_words_ok,
    password_shape_ok,
)
from core.governance.sensitivity.rules import QUOTED_VALUE, RegexRule, match_value, regex_rule


def _phrase_password_ok(m: re.Match[str]) -> bool:
    """Prose such as 'the password is correct' is common; demand a password-shaped value."""
    return password_shape_ok(match_value(m), 6)


def _pin_ok(m: re.Match[str]) -> bool:
    """PINs are short digit strings; reject obvious placeholders like 0000."""
    return len(set(match_value(m))) > 1


def _passphrase_ok(m: re.Match[str]) -> bool:
    """Adapter from a regex match to :func:`passphrase_words_ok`."""
    return passphrase_words_ok(clean_value(match_value(m)))


def _cli_password_ok(m: re.Match[str]) -> bool:
    """Command-line flags often carry ``$VAR`` references rather than literals."""
    return credential_ok(match_value(m))


RULES: tuple[RegexRule, ...] = (
    regex_rule(
        "password_phrase",
        FindingType.PASSWORD,
        r"(?i)(?<![A-Za-z])(?:password|passwd|passphrase|passcode)"
        r"(?:[ \t]+(?:for|to|of|on|at)(?:[ \t]+[^\s:=]+){1,4}?)?[ \t]+(?:is|was)(?![\w])"
        r"[ \t]*:?[ \t]*" + QUOTED_VALUE,
        _phrase_password_ok,
        priority=70,
    ),
    regex_rule(
        "passphrase",
        FindingType.PASSWORD,
        r"(?i:(?<![A-Za-z])pass[ _\-]?phrase)[ \t]*[:=：][ \t]*[\"'“]?(?P<v>[^\n\"'”]{8,200})",
        _passphrase_ok,
        priority=70,
    ),
    regex_rule(
        "pin_code",
        FindingType.PASSWORD,
        r"(?:(?<![A-Za-z])PIN(?:\s+(?:code|number))?|PIN码|(?i:pin\s+code|pass\s?code))"
        r"\s*(?:is|was|:|：|=|是|为)?\s*(?P<v>\d{4,10})(?![\d.])",
        _pin_ok,
        priority=65,
    ),
    regex_rule(
        "cli_password",
        FindingType.PASSWORD,
        r"(?<![\w\-])(?:--(?:password|passwd|pass|db-password)\s+|sshpass\s+-p\s+"
        r"|(?:mysql|mysqldump|mysqladmin)\b[^\n]*?\s-p(?=[^\s-])|login\s+\S+\s+password\s+"
        r"|(?:docker|podman|helm|oras|skopeo)\s+(?:registry\s+)?login\b[^\n]*?\s-p\s+)"
        + QUOTED_VALUE,
        _cli_password_ok,
        priority=70,
    ),
    regex_rule(
        "pgpass_line",
        FindingType.PASSWORD,
        r"(?m)^[ \t]*[A-Za-z0-9.\-*]+:(?:\d{1,5}|\*):[^\s:]+:[^\s:]+:(?P<v>\S+)[ \t]*$",
        _cli_password_ok,
    ),
)
