"""Secrets: connection strings, URL credentials and authorization headers."""

from __future__ import annotations

import base64
import binascii
import re

from core.governance.sensitivity.finding import FindingType
from core.governance.sensitivity.heuristics import credential_ok, looks_random
from core.governance.sensitivity.rules import RegexRule, match_value, regex_rule

_URL_HOST = r"[^\s\"'<>`\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]{1,512}"
_DB_SCHEMES = (
    r"(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|oracle"
    r"|cockroachdb|clickhouse|neo4j(?:\+s)?|jdbc:[a-z]+)"
)


def _pw_group_ok(m: re.Match[str]) -> bool:
    """Accept embedded credentials unless the password is a placeholder or a variable."""
    return credential_ok(m.group("pw"))


def _basic_auth_ok(m: re.Match[str]) -> bool:
    """Basic credentials are base64 of ``user:password``; decode to confirm the shape."""
    raw = match_value(m)
    try:
        decoded = base64.b64decode(raw + "=" * (-len(raw) % 4), validate=True).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return False
    user, sep, password = decoded.partition(":")
    return bool(sep and user) and credential_ok(password)


def _bearer_ok(m: re.Match[str]) -> bool:
    """A bearer credential is either a JWT or a random opaque token."""
    value = match_value(m)
    return value.startswith("eyJ") or looks_random(value)


RULES: tuple[RegexRule, ...] = (
    regex_rule(
        "db_connection_url",
        FindingType.CONNECTION_STRING,
        rf"(?<![A-Za-z0-9+.\-])(?P<v>{_DB_SCHEMES}(?:\+[a-z0-9]+)?://"
        rf"(?P<user>[^\s:/@\"'<>]*):(?P<pw>[^\s@/\"'<>]+)@{_URL_HOST})",
        _pw_group_ok,
        priority=90,
    ),
    regex_rule(
        "odbc_connection_string",
        FindingType.CONNECTION_STRING,
        r"(?i)(?<![A-Za-z])(?P<v>(?:server|data source|host|address|addr|dsn|driver"
        r"|defaultendpointsprotocol|endpoint)\s*=[^;\n]*;"
        r"(?:[^;\n]*;){0,10}?\s*(?:password|pwd|accountkey|sharedaccesskey)\s*=\s*"
        r"(?P<pw>[^;\n\"']+))",
        _pw_group_ok,
        priority=90,
    ),
    regex_rule(
        "libpq_connection_string",
        FindingType.CONNECTION_STRING,
        r"(?<![A-Za-z])(?P<v>(?:host|hostaddr|dbname|user|port)=[^\s\"']+"
        r"(?:\s+[a-z_]+=[^\s\"']+){0,8}?\s+password=(?P<pw>[^\s\"']+))",
        _pw_group_ok,
        priority=90,
    ),
    regex_rule(
        "url_password",
        FindingType.PASSWORD,
        r"(?<![A-Za-z0-9+.\-])[a-z][a-z0-9+.\-]{1,20}://[^\s:/@\"'<>]+:"
        r"(?P<v>(?P<pw>[^\s@/\"'<>]+))@[A-Za-z0-9.\-\[\]]+",
        _pw_group_ok,
        priority=85,
    ),
    regex_rule(
        "bearer_token",
        FindingType.TOKEN,
        r"(?i:(?<![A-Za-z])bearer)\s+(?P<v>[A-Za-z0-9\-._~+/]{16,}=*)",
        _bearer_ok,
        priority=80,
    ),
    regex_rule(
        "basic_auth",
        FindingType.PASSWORD,
        r"(?i:authorization\s*:\s*basic)\s+(?P<v>[A-Za-z0-9+/]{8,}={0,2})",
        _basic_auth_ok,
        priority=80,
    ),
)
