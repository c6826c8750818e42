"""Secrets introduced by a key name: ``password=...``, ``api_key: ...``, ``密码是 ...``.

Configs, env files, XML and prose all name a secret before giving it; the key name decides the
finding type and the way the value was introduced decides how password-shaped it must be.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from core.governance.sensitivity.finding import Finding, FindingType
from core.governance.sensitivity.heuristics import (
    clean_value,
    credential_ok,
    looks_random,
    passphrase_words_ok,
    password_shape_ok,
)
from core.governance.sensitivity.rules import QUOTED_VALUE, match_span, match_value
from core.patterns import LazyPattern, lazy

ASSIGNMENT_PRIORITY = 70

_ZH_PASSWORD_KEYS = frozenset({"密码", "口令", "PIN码"})
_ZH_TOKEN_KEYS = frozenset({"令牌"})
_ZH_KEY_KEYS = frozenset({"密钥", "秘钥", "私钥"})
_PASSWORD_PARTS = frozenset({"password", "passwd", "pwd", "pass", "passphrase", "passcode", "pw"})
_TOKEN_PARTS = frozenset({"token", "bearer", "auth", "jwt", "authorization"})
_SECRET_PARTS = frozenset(
    {"secret", "apikey", "secretkey", "accesskey", "privatekey", "credential"}
)
_KEY_PAIRS = frozenset(
    {
        ("api", "key"),
        ("access", "key"),
        ("secret", "key"),
        ("private", "key"),
        ("signing", "key"),
        ("encryption", "key"),
        ("master", "key"),
        ("client", "secret"),
        ("app", "secret"),
        ("account", "key"),
        ("license", "key"),
        ("shared", "key"),
        ("webhook", "secret"),
        ("key", "secret"),
    }
)
_KEY_EXCLUDE_PARTS = frozenset(
    {
        "id",
        "name",
        "expiry",
        "expires",
        "expire",
        "expiration",
        "ttl",
        "url",
        "uri",
        "endpoint",
        "path",
        "file",
        "type",
        "length",
        "len",
        "count",
        "limit",
        "max",
        "min",
        "timeout",
        "header",
        "prefix",
        "format",
        "version",
        "method",
        "mode",
        "provider",
        "scheme",
        "strategy",
        "hash",
        "hint",
        "policy",
        "field",
        "env",
        "enabled",
        "required",
        "usage",
        "budget",
        "size",
        "rotation",
        "arn",
        "ref",
        "store",
        "manager",
        "reset",
        "label",
        "rule",
    }
)
_CAMEL_PARTS = lazy(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

_ASCII_KEY = (
    r"[A-Za-z][A-Za-z0-9_.\-]{0,40}(?:[ ](?!(?:is|was|are)\b)[A-Za-z][A-Za-z0-9_.\-]{0,20}){0,2}"
)
_ZH_KEY = r"密码|口令|PIN码|令牌|密钥|秘钥|私钥"
_KV_ASCII = lazy(
    rf"(?<![A-Za-z0-9_.])(?P<key>{_ASCII_KEY})[\"']?"
    r"(?P<conn>[ \t]*(?::=|=>|=(?![=>])|:|：)[ \t]*|[ \t]*(?:是|为)[ \t]*[:：]?[ \t]*"
    r"|[ \t]+(?:is|was)[ \t]+:?[ \t]*|[ \t]+)" + QUOTED_VALUE
)
_ZH_CONN = r"(?:是|为|(?:改|换|设|重置|更新)(?:成|为)了?|设置为|设为)"
_KV_ZH = lazy(
    rf"(?P<key>{_ZH_KEY})(?P<conn>[ \t]*(?:{_ZH_CONN})?[ \t]*[:：=]?[ \t]*)" + QUOTED_VALUE
)
# <password>...</password> and <add key="ApiKey" value="..."/> in XML configs
_KV_XML_ELEMENT = lazy(
    r"<(?P<key>[A-Za-z][\w.\-]{0,40})(?P<conn>>)(?P<bare>[^<>\n]{1,200})</(?P=key)>"
)
_KV_XML_ATTRIBUTE = lazy(
    r"(?i:key|name)\s*=\s*\"(?P<key>[A-Za-z][\w.\-]{0,40})\"(?P<conn>\s+(?i:value)\s*=\s*)"
    r"\"(?P<dq>[^\"\n]{1,200})\""
)
_AMBIGUOUS_PASSWORD_KEYS = frozenset({"pass", "pw"})
_CODE_OBJECTS = ("self.", "this.", "cls.", "ctx.", "args.", "opts.", "options.", "util.")
_SECRET_NOUNS = frozenset({"token", "key", "secret", "apikey", "credential", "credentials"})
_SHORT_KEY_NAMES = frozenset({"AK", "SK", "AK/SK"})  # cloud consoles label key pairs this way
_PROSE_AFTER = lazy(r"[ \t]+[^\s#/;]")
_CODE_ARGUMENT_AFTER = lazy(r"[ \t]*[,)]")
_ASSIGNED_AFTER = lazy(r"[\"']?[ \t]*(?:=(?!=)|:=)")


def _key_parts(key: str) -> list[str]:
    """Split ``OPENAI_API_KEY`` / ``clientSecret`` / ``x-api-key`` into lower-case words."""
    return [p.lower() for p in _CAMEL_PARTS.findall(key)]


def _secret_key_kind(parts: list[str]) -> FindingType | None:
    """Classify a non-password key name by the secret it suggests, if any.

    Session identifiers are bearer credentials even though their keys end in ``id``, so they
    are checked before the exclusions that keep ``token_id`` or ``secret_name`` out.
    """
    excluded = {p for p in parts if p in _KEY_EXCLUDE_PARTS}
    if any(p.startswith("session") for p in parts) and excluded <= {"id"}:
        return FindingType.TOKEN
    if excluded:
        return None
    if any(p in _TOKEN_PARTS or p.endswith("token") for p in parts):
        return FindingType.TOKEN
    pairs = set(itertools.pairwise(parts))
    if any(p in _SECRET_PARTS for p in parts) or pairs & _KEY_PAIRS:
        return FindingType.API_KEY
    return None


def _classify_key(key: str) -> FindingType | None:
    """Map a key name to the finding type its value would be; ``None`` if not secret-like."""
    if key in _ZH_PASSWORD_KEYS:
        return FindingType.PASSWORD
    if key in _ZH_TOKEN_KEYS:
        return FindingType.TOKEN
    if key in _ZH_KEY_KEYS or key.upper() in _SHORT_KEY_NAMES:
        return FindingType.API_KEY
    parts = _key_parts(key)
    if not parts:
        return None
    last = parts[-1]
    if last in _PASSWORD_PARTS or last.endswith(("password", "passwd")):
        return FindingType.PASSWORD
    return _secret_key_kind(parts)


def _names_a_variable(key: str, value: str, after: str) -> bool:
    """Code passes passwords around by name: ``passphrase=passphrase``, ``f(password=pw)``."""
    if value.lower() in {key.lower(), _key_parts(key)[-1] if _key_parts(key) else ""}:
        return True
    is_identifier = value.isidentifier() and not any(c.isdigit() for c in value)
    return is_identifier and value.islower() and bool(_CODE_ARGUMENT_AFTER.match(after))


def _password_value_ok(m: re.Match[str]) -> bool:
    """Pick the password test that fits how the value was introduced.

    A bare ``password=...`` in a config is trusted as a credential; prose ("the password is
    ...", "invalid password: must be ...") and Chinese phrasing need a password-shaped value.
    """
    key, conn, value = m.group("key"), m.group("conn").strip(), match_value(m)
    after = m.string[match_span(m)[1] :]
    if _ASSIGNED_AFTER.match(after) or _names_a_variable(key, value, after):
        return False
    if " " in clean_value(value):
        return passphrase_words_ok(clean_value(value))
    if not key.isascii() or not conn.isascii():
        return password_shape_ok(value, 4)
    if not conn:
        return False  # "password reset", "passwd files": a bare space is not an assignment
    prose = conn.startswith(("is", "was")) or " " in key or bool(_PROSE_AFTER.match(after))
    parts = _key_parts(key)
    code_attribute = (
        key.lower().startswith(_CODE_OBJECTS) and not m.group("dq") and not m.group("sq")
    )
    if prose or code_attribute or parts[-1] in _AMBIGUOUS_PASSWORD_KEYS:
        return password_shape_ok(value, 6)
    return len(clean_value(value)) >= 4 and credential_ok(value)


def _secret_value_ok(m: re.Match[str]) -> bool:
    """Keys named in prose without ``:``/``=`` ("the API key abc...") need a longer token.

    Only a key phrase that ends in the secret's noun counts then: "the deploy token X" names
    the value, "the auth service X" does not.
    """
    key = m.group("key")
    if m.group("conn").isspace() and key.isascii():
        last = _key_parts(key)[-1]
        if last not in _SECRET_NOUNS and not last.endswith("token"):
            return False
        return looks_random(clean_value(match_value(m)), 20)
    return looks_random(clean_value(match_value(m)))


def _kv_finding(m: re.Match[str]) -> Finding | None:
    """Turn one key/value match into a finding if the key names a secret and the value fits."""
    kind = _classify_key(m.group("key"))
    if kind is None or (not m.group("conn") and not match_value(m)[:1].isalnum()):
        return None  # "密码|口令": with no connector the value must start right away
    if kind is FindingType.PASSWORD:
        ok, detector = _password_value_ok(m), "password_assignment"
    else:
        ok, detector = _secret_value_ok(m), "secret_assignment"
    start, end = match_span(m)
    return Finding(kind, start, end, detector) if ok and start < end else None


_KV_HINT = lazy(
    r"(?i)pass|pwd|pw|token|secret|key|auth|bearer|jwt|credential|session|密码|口令|令牌|密钥|秘钥"
    r"|私钥|(?<![a-z])[as]k(?![a-z])"
)


@dataclass(frozen=True)
class KeyValueDetector:
    """Secrets introduced by a key name (configs, env files, prose) in one syntax."""

    pattern: LazyPattern

    @property
    def priorities(self) -> Mapping[str, int]:
        """Both names rank alike: the key, not the value's shape, is the evidence."""
        return {
            "password_assignment": ASSIGNMENT_PRIORITY,
            "secret_assignment": ASSIGNMENT_PRIORITY,
        }

    def __call__(self, text: str) -> Iterator[Finding]:
        """Scan with retry after rejected matches, like :class:`RegexRule`."""
        if not _KV_HINT.search(text):
            return
        pos = 0
        while (m := self.pattern.search(text, pos)) is not None:
            finding = _kv_finding(m)
            if finding is None:
                pos = m.start() + 1
            else:
                yield finding
                pos = m.end()


DETECTORS: tuple[KeyValueDetector, ...] = (
    KeyValueDetector(_KV_ASCII),
    KeyValueDetector(_KV_ZH),
    KeyValueDetector(_KV_XML_ELEMENT),
    KeyValueDetector(_KV_XML_ATTRIBUTE),
)
