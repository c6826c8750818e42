"""Secret and PII scanner for memory candidates (R8).

Memory content outlives the session that produced it and is re-injected into later model calls,
so anything credential-like or personally identifying must be caught *before* it is stored. This
module is deliberately dependency-free (stdlib only) so the policy layer, the extraction workers
and offline tools can all share one implementation without pulling in the rest of the project.

Design rules:

* A :class:`Finding` records only *where* something sensitive is and *what kind* it is, never the
  matched value, so findings can be written to security events and logs without leaking it.
* Every detector pairs a cheap regular expression with a validator (checksums, entropy, context
  words, placeholder filters). Ordinary engineering text -- versions, ports, SHAs, UUIDs, ticket
  ids, placeholders such as ``${API_KEY}`` -- is the common case and must not be rejected.
* Overlapping hits are merged into one span and labelled with the most specific detector, so
  redaction never leaves a fragment of a secret behind.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import enum
import itertools
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

__all__ = [
    "Finding",
    "FindingType",
    "cn_id_checksum",
    "cn_resident_id_valid",
    "finding_types",
    "iban_valid",
    "luhn_valid",
    "redact",
    "scan",
]


class FindingType(enum.StrEnum):
    """Finding types; the values are the security-event vocabulary of the scenarios (3.6)."""

    API_KEY = "api_key"
    TOKEN = "token"
    PASSWORD = "password"
    PRIVATE_KEY = "private_key"
    CONNECTION_STRING = "connection_string"
    EMAIL_ADDRESS = "email_address"
    PHONE_NUMBER = "phone_number"
    CARD_NUMBER = "card_number"
    NATIONAL_ID = "national_id"
    POSTAL_ADDRESS = "postal_address"
    BANK_ACCOUNT = "bank_account"

    @property
    def category(self) -> str:
        """Return ``"secret"`` or ``"pii"``; policies and events reason at this coarser level."""
        return "secret" if self in _SECRET_TYPES else "pii"


_SECRET_TYPES = frozenset(
    {
        FindingType.API_KEY,
        FindingType.TOKEN,
        FindingType.PASSWORD,
        FindingType.PRIVATE_KEY,
        FindingType.CONNECTION_STRING,
    }
)


@dataclass(frozen=True)
class Finding:
    """Location and kind of one sensitive value.

    The matched text is intentionally not stored: findings travel into security events, logs and
    UI, and each of those must be safe to show without re-exposing the secret.
    """

    type: FindingType
    start: int
    end: int
    detector: str

    @property
    def category(self) -> str:
        """Return the coarse category so callers need not reach through ``type``."""
        return self.type.category


Detector = Callable[[str], Iterator[Finding]]
Validator = Callable[[re.Match[str]], bool]

# ---------------------------------------------------------------------------------------------
# Shared value heuristics
# ---------------------------------------------------------------------------------------------

_PLACEHOLDER_WORDS = frozenset(
    {
        "password",
        "passwd",
        "pass",
        "pwd",
        "secret",
        "token",
        "apikey",
        "api_key",
        "key",
        "changeme",
        "change_me",
        "changeit",
        "placeholder",
        "redacted",
        "removed",
        "hidden",
        "masked",
        "dummy",
        "example",
        "sample",
        "test",
        "testing",
        "foo",
        "bar",
        "baz",
        "xxx",
        "none",
        "null",
        "nil",
        "undefined",
        "true",
        "false",
        "empty",
        "required",
        "optional",
        "str",
        "string",
        "bytes",
        "int",
        "text",
        "secretstr",
        "sensitive",
        "omitted",
        "unset",
        "todo",
        "tbd",
        "n/a",
        "na",
        "username",
        "user",
        "your_password",
        "yourpassword",
    }
)
_PLACEHOLDER_SHAPE = re.compile(
    r"""^(?:<.*>|\{.*\}|\[.*\]|\(.*\)|%[\w()]*%?s?|[xX*•·._#\-=~]+|\.{2,}|…+|\?+)$"""
)
_PLACEHOLDER_SUBSTRINGS = ("your", "xxxx", "****", "changeme", "placeholder", "redacted", "<", ">")
_REFERENCE_PREFIXES = (
    "$",
    "!",
    "&",
    "*",
    "%",
    "(",
    "[",
    "{",
    "<",
    "ENC[",
    "vault:",
    "env:",
    "secret:",
    "ref+",
)
_REFERENCE_SUBSTRINGS = ("os.environ", "process.env", "getenv", "environ[", "secrets.", "()", ").")
_CODE_EXPRESSION = re.compile(r"^[A-Za-z_][\w.]*[(\[]")
_DOTTED_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z_]*(?:\.[A-Za-z_]+)+$")
_VARIABLE_NAME = re.compile(
    r"^(?=[A-Za-z_]*_)(?=.*(?:pass|pwd|secret|token|key))[A-Za-z_]+$", re.IGNORECASE
)
_CONSTANT_NAME = re.compile(r"^[A-Z][A-Z0-9_]*(?:PASS|PWD|SECRET|TOKEN|KEY)[A-Z0-9_]*$")
_SNAKE_IDENTIFIER = re.compile(r"^[a-z]+(?:_[a-z]+)+$")
_FORMAT_FIELD = re.compile(r"\{\w*\}|%\(\w+\)[sd]|%[sd]")
_PATH_SHAPE = re.compile(r"^(?:~|\.{1,2})?/[\w.\-/]*$")
_TRAILING_PUNCT = ".,;:)]}!?"


def _is_placeholder(value: str) -> bool:
    """Tell documentation placeholders from real values; docs and templates are full of them."""
    low = value.strip("\"'`").lower()
    if not low or low in _PLACEHOLDER_WORDS or _PLACEHOLDER_SHAPE.match(low):
        return True
    if len(set(low)) == 1:
        return True
    return any(part in low for part in _PLACEHOLDER_SUBSTRINGS)


def _is_reference(value: str) -> bool:
    """Tell code and config references (env vars, expressions) from literal secrets."""
    if value.startswith(_REFERENCE_PREFIXES):
        return True
    if any(part in value for part in _REFERENCE_SUBSTRINGS):
        return True
    if _CODE_EXPRESSION.match(value) or _DOTTED_IDENTIFIER.match(value):
        return True
    if _PATH_SHAPE.match(value):
        return True
    if _SNAKE_IDENTIFIER.match(value) or _FORMAT_FIELD.search(value):
        return True
    return bool(_VARIABLE_NAME.match(value) or _CONSTANT_NAME.match(value))


def _entropy(value: str) -> float:
    """Shannon entropy in bits per character; random tokens score high, words and ids low."""
    if not value:
        return 0.0
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def _words_of(part: str) -> list[str]:
    """Dictionary-like words in one separator-free part; camelCase is split, digits disqualify."""
    if not part.isalpha():
        return []
    if part.islower() or part.istitle() or part.isupper():
        return [part]
    return re.findall(r"[A-Z]?[a-z]{2,}", part)


def _is_wordy(value: str) -> bool:
    """Detect identifier-like values (``your-api-key-here``, ``GetCallerIdentity``).

    Random tokens break into short fragments; names and prose break into real words.
    """
    parts = [p for p in re.split(r"[_\-./:+\s]+", value) if p]
    words = [w for p in parts for w in _words_of(p) if len(w) >= 3]
    return len(words) >= 2 and sum(len(w) for w in words) >= 0.6 * len(value)


def _looks_random(value: str, min_len: int = 16) -> bool:
    """Decide whether a value is a machine-generated credential rather than prose or an id."""
    if len(value) < min_len or any(c.isspace() for c in value):
        return False
    if _is_placeholder(value) or _is_reference(value) or _is_wordy(value):
        return False
    classes = sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
        )
    )
    return classes >= 2 and _entropy(value) >= 3.0


def _clean_value(value: str) -> str:
    """Strip quoting and sentence punctuation that surround a value in prose and configs."""
    return value.strip().strip("\"'`“”‘’").rstrip(_TRAILING_PUNCT)


def _credential_ok(value: str) -> bool:
    """Accept a password taken from a structured position (assignment, URL, ODBC string)."""
    value = _clean_value(value)
    if len(value) < 3 or len(value) > 200:
        return False
    return not (_is_placeholder(value) or _is_reference(value))


def _password_shape_ok(value: str, min_len: int) -> bool:
    """Accept a password named in prose only if it is shaped like one, not like a word."""
    value = _clean_value(value)
    if len(value) < min_len or not _credential_ok(value):
        return False
    if value.isdigit():
        return len(value) >= 6
    has_alpha = any(c.isalpha() for c in value)
    has_digit = any(c.isdigit() for c in value)
    has_other = any(not c.isalnum() for c in value)
    mixed_case = any(c.islower() for c in value) and any(c.isupper() for c in value)
    return has_alpha and (has_digit or has_other or mixed_case)


def _line_prefix(text: str, start: int, width: int = 24) -> str:
    """Return the text just before a match on the same line, for context keywords."""
    prefix = text[max(0, start - width) : start]
    return prefix.rsplit("\n", 1)[-1].lower()


# ---------------------------------------------------------------------------------------------
# Regex detector plumbing
# ---------------------------------------------------------------------------------------------

_VALUE_GROUPS = ("v", "dq", "sq", "cq", "bare")


def _trailing_junk(value: str) -> bool:
    """Sentence punctuation after a value is not part of it, unless it closes a bracket."""
    last = value[-1]
    if last in ")]}":
        return value.count("([{"[")]}".index(last)]) < value.count(last)
    return last in _TRAILING_PUNCT + "\"'`"


def _value_span(m: re.Match[str]) -> tuple[int, int]:
    """Pick the span of whichever value group matched, trimmed of trailing punctuation."""
    names = m.re.groupindex
    for name in _VALUE_GROUPS:
        if name in names and m.group(name) is not None:
            start, end = m.span(name)
            while end > start and _trailing_junk(m.string[start:end]):
                end -= 1
            return start, end
    return m.span()


def _value(m: re.Match[str]) -> str:
    """Return the matched value text (validators need it; findings never keep it)."""
    start, end = _value_span(m)
    return m.string[start:end]


@dataclass(frozen=True)
class _RegexRule:
    """One regex detector; the validator rejects near misses without consuming the text."""

    detector: str
    type: FindingType
    pattern: re.Pattern[str]
    validate: Validator | None = None
    hint: re.Pattern[str] | None = None  # cheap pre-check; skips texts that cannot match

    def __call__(self, text: str) -> Iterator[Finding]:
        """Yield validated findings; retry one character later after a rejected match."""
        if self.hint is not None and not self.hint.search(text):
            return
        pos = 0
        while pos <= len(text):
            m = self.pattern.search(text, pos)
            if m is None:
                return
            if self.validate is None or self.validate(m):
                start, end = _value_span(m)
                if start < end:
                    yield Finding(self.type, start, end, self.detector)
                pos = max(m.end(), m.start() + 1)
            else:
                pos = m.start() + 1


def _rule(
    detector: str,
    kind: FindingType,
    pattern: str,
    validate: Validator | None = None,
    hint: str | None = None,
) -> _RegexRule:
    """Compile a regex rule; keeps the detector table below readable."""
    return _RegexRule(
        detector, kind, re.compile(pattern), validate, re.compile(hint) if hint else None
    )


# ---------------------------------------------------------------------------------------------
# Secrets: provider-specific formats
# ---------------------------------------------------------------------------------------------

_L = r"(?<![A-Za-z0-9_\-])"  # ASCII-only boundaries: \b treats CJK characters as word chars
_R = r"(?![A-Za-z0-9_\-])"


def _token_ok(m: re.Match[str]) -> bool:
    """Reject provider-format placeholders such as ``ghp_xxxx...`` or ``sk-your-key-here``."""
    value = _value(m)
    body = re.sub(r"^[A-Za-z]+[_-](?:[a-z]+[_-])?", "", value)
    return not _is_placeholder(body) and not _is_wordy(body) and _entropy(body) >= 2.8


def _slack_webhook_ok(m: re.Match[str]) -> bool:
    """The documented Slack webhook example uses zeros and X's; real ones are random."""
    tail = _value(m).rsplit("/", 1)[-1]
    return not _is_placeholder(tail) and _entropy(tail) >= 3.0


def _aws_secret_ok(m: re.Match[str]) -> bool:
    """AWS secret keys are 40 random base64 characters."""
    return _looks_random(_value(m), 40)


def _jwt_ok(m: re.Match[str]) -> bool:
    """A JWT's header is base64url JSON naming its algorithm; this rules out random dotted ids."""
    header = _value(m).split(".", 1)[0]
    try:
        raw = base64.urlsafe_b64decode(header + "=" * (-len(header) % 4))
        decoded = json.loads(raw.decode("utf-8"))
    except (binascii.Error, ValueError, UnicodeDecodeError, RecursionError):
        return False  # RecursionError: a crafted header nested thousands of levels deep
    return isinstance(decoded, dict) and "alg" in decoded


_PROVIDER_RULES: tuple[_RegexRule, ...] = (
    _rule(
        "aws_access_key_id",
        FindingType.API_KEY,
        rf"{_L}(?P<v>(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[A-Z0-9]{{16}}){_R}",
        _token_ok,
    ),
    _rule(
        "aws_secret_access_key",
        FindingType.API_KEY,
        r"(?i:aws_?secret_?(?:access_?)?key|aws[ ]secret(?:[ ]access)?[ ]key|secretaccesskey)"
        r"[\"']?\s*(?:[:=]|：|是|为)\s*[\"']?(?P<v>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        _aws_secret_ok,
    ),
    _rule(
        "github_token",
        FindingType.TOKEN,
        rf"{_L}(?P<v>gh[pousr]_[A-Za-z0-9]{{30,255}}|github_pat_[A-Za-z0-9_]{{40,255}}){_R}",
        _token_ok,
    ),
    _rule(
        "gitlab_token", FindingType.TOKEN, rf"{_L}(?P<v>glpat-[A-Za-z0-9_\-]{{20,}}){_R}", _token_ok
    ),
    _rule(
        "anthropic_api_key",
        FindingType.API_KEY,
        rf"{_L}(?P<v>sk-ant-[A-Za-z0-9_\-]{{20,}}){_R}",
        _token_ok,
    ),
    _rule(
        "openai_api_key",
        FindingType.API_KEY,
        rf"{_L}(?P<v>sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{{20,}}){_R}",
        _token_ok,
    ),
    _rule(
        "stripe_secret_key",
        FindingType.API_KEY,
        rf"{_L}(?P<v>(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{{16,}}){_R}",
        _token_ok,
    ),
    _rule(
        "google_api_key",
        FindingType.API_KEY,
        rf"{_L}(?P<v>AIza[0-9A-Za-z_\-]{{35}}){_R}",
        _token_ok,
    ),
    _rule(
        "slack_token",
        FindingType.TOKEN,
        rf"{_L}(?P<v>xox[abposr]-[A-Za-z0-9\-]{{10,}}){_R}",
        _token_ok,
    ),
    _rule(
        "slack_webhook",
        FindingType.TOKEN,
        r"(?P<v>https://hooks\.slack\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{16,})",
        _slack_webhook_ok,
    ),
    _rule(
        "discord_webhook",
        FindingType.TOKEN,
        r"(?P<v>https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[\w\-]{40,})",
        _slack_webhook_ok,
    ),
    _rule(
        "linear_api_key",
        FindingType.API_KEY,
        rf"{_L}(?P<v>lin_(?:api|oauth)_[A-Za-z0-9]{{32,}}){_R}",
        _token_ok,
    ),
    _rule(
        "pypi_token",
        FindingType.TOKEN,
        rf"{_L}(?P<v>pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{{40,}}){_R}",
    ),
    _rule(
        "stripe_webhook_secret",
        FindingType.API_KEY,
        rf"{_L}(?P<v>whsec_[A-Za-z0-9]{{24,}}){_R}",
        _token_ok,
    ),
    _rule(
        "slack_app_token",
        FindingType.TOKEN,
        rf"{_L}(?P<v>xapp-\d-[A-Za-z0-9\-]{{20,}}){_R}",
        _token_ok,
    ),
    _rule(
        "digitalocean_token",
        FindingType.TOKEN,
        rf"{_L}(?P<v>do[por]_v1_[A-Za-z0-9]{{64}}){_R}",
        _token_ok,
    ),
    _rule(
        "shopify_token",
        FindingType.TOKEN,
        rf"{_L}(?P<v>shp(?:at|ca|pa|ss)_[A-Fa-f0-9]{{32}}){_R}",
        _token_ok,
    ),
    _rule(
        "atlassian_api_token",
        FindingType.TOKEN,
        rf"{_L}(?P<v>ATATT3[A-Za-z0-9_\-=]{{50,}}){_R}",
        _token_ok,
    ),
    _rule("npm_token", FindingType.TOKEN, rf"{_L}(?P<v>npm_[A-Za-z0-9]{{36}}){_R}", _token_ok),
    _rule(
        "huggingface_token", FindingType.TOKEN, rf"{_L}(?P<v>hf_[A-Za-z0-9]{{30,}}){_R}", _token_ok
    ),
    _rule(
        "sendgrid_api_key",
        FindingType.API_KEY,
        rf"{_L}(?P<v>SG\.[A-Za-z0-9_\-]{{16,32}}\.[A-Za-z0-9_\-]{{16,64}}){_R}",
        _token_ok,
    ),
    _rule(
        "alibaba_access_key_id",
        FindingType.API_KEY,
        rf"{_L}(?P<v>LTAI[A-Za-z0-9]{{12,20}}){_R}",
        _token_ok,
    ),
    _rule(
        "tencent_secret_id",
        FindingType.API_KEY,
        rf"{_L}(?P<v>AKID[A-Za-z0-9]{{32}}){_R}",
        _token_ok,
    ),
    _rule(
        "jwt",
        FindingType.TOKEN,
        rf"{_L}(?P<v>eyJ[A-Za-z0-9_\-]{{8,}}\.[A-Za-z0-9_\-]{{8,}}\.[A-Za-z0-9_\-]*){_R}",
        _jwt_ok,
    ),
)

# ---------------------------------------------------------------------------------------------
# Secrets: PEM private keys
# ---------------------------------------------------------------------------------------------

_PEM_BEGIN = re.compile(r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----")
_PEM_LINE_END = r"(?=[ \t]*(?:\r?\n|\\[nr]|$|[\-.…\"']))"
_PEM_BODY = re.compile(
    r"(?:(?:[ \t]*(?:\r?\n|\\[nr]))*[ \t]*"
    r"(?:[A-Za-z0-9+/=]{4,}|[A-Z][A-Za-z\-]+:[ ][^\n\\]*)" + _PEM_LINE_END + ")*"
)
_PEM_END = re.compile(r"(?:\s|\\[nr])*-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----")
_PEM_HEADER_LINE = re.compile(r"[A-Z][A-Za-z\-]+:[ ][^\n\\]*")  # e.g. "Version: GnuPG v2"
_PEM_MIN_BODY = 16


def _pem_private_keys(text: str) -> Iterator[Finding]:
    """Find private key blocks, including ones cut off by truncation or log line limits.

    A header alone (``-----BEGIN RSA PRIVATE KEY-----`` quoted in a how-to) is not a secret, so
    at least a little base64 key material must follow it.
    """
    for begin in _PEM_BEGIN.finditer(text):
        body = _PEM_BODY.match(text, begin.end())
        body_end = body.end() if body else begin.end()
        lines = _PEM_HEADER_LINE.sub("", text[begin.end() : body_end])
        material = re.sub(r"\\[nr]|[^A-Za-z0-9+/=]", "", lines)
        if len(material) < _PEM_MIN_BODY or _is_placeholder(material):
            continue
        end = _PEM_END.match(text, body_end)
        stop = end.end() if end else len(text[:body_end].rstrip())
        yield Finding(FindingType.PRIVATE_KEY, begin.start(), stop, "pem_private_key")


# ---------------------------------------------------------------------------------------------
# Secrets: connection strings, URL credentials, authorization headers
# ---------------------------------------------------------------------------------------------

_URL_HOST = r"[^\s\"'<>`\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]{1,512}"
_DB_SCHEMES = (
    r"(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|oracle"
    r"|cockroachdb|clickhouse|neo4j(?:\+s)?|jdbc:[a-z]+)"
)


def _pw_group_ok(m: re.Match[str]) -> bool:
    """Accept embedded credentials unless the password is a placeholder or a variable."""
    return _credential_ok(m.group("pw"))


def _basic_auth_ok(m: re.Match[str]) -> bool:
    """Basic credentials are base64 of ``user:password``; decode to confirm the shape."""
    raw = _value(m)
    try:
        decoded = base64.b64decode(raw + "=" * (-len(raw) % 4), validate=True).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return False
    user, sep, password = decoded.partition(":")
    return bool(sep and user) and _credential_ok(password)


def _bearer_ok(m: re.Match[str]) -> bool:
    """A bearer credential is either a JWT or a random opaque token."""
    value = _value(m)
    return value.startswith("eyJ") or _looks_random(value)


_CONNECTION_RULES: tuple[_RegexRule, ...] = (
    _rule(
        "db_connection_url",
        FindingType.CONNECTION_STRING,
        rf"(?<![A-Za-z0-9+.\-])(?P<v>{_DB_SCHEMES}(?:\+[a-z0-9]+)?://"
        rf"(?P<user>[^\s:/@\"'<>]*):(?P<pw>[^\s@/\"'<>]+)@{_URL_HOST})",
        _pw_group_ok,
    ),
    _rule(
        "odbc_connection_string",
        FindingType.CONNECTION_STRING,
        r"(?i)(?<![A-Za-z])(?P<v>(?:server|data source|host|address|addr|dsn|driver"
        r"|defaultendpointsprotocol|endpoint)\s*=[^;\n]*;"
        r"(?:[^;\n]*;){0,10}?\s*(?:password|pwd|accountkey|sharedaccesskey)\s*=\s*"
        r"(?P<pw>[^;\n\"']+))",
        _pw_group_ok,
    ),
    _rule(
        "libpq_connection_string",
        FindingType.CONNECTION_STRING,
        r"(?<![A-Za-z])(?P<v>(?:host|hostaddr|dbname|user|port)=[^\s\"']+"
        r"(?:\s+[a-z_]+=[^\s\"']+){0,8}?\s+password=(?P<pw>[^\s\"']+))",
        _pw_group_ok,
    ),
    _rule(
        "url_password",
        FindingType.PASSWORD,
        r"(?<![A-Za-z0-9+.\-])[a-z][a-z0-9+.\-]{1,20}://[^\s:/@\"'<>]+:"
        r"(?P<v>(?P<pw>[^\s@/\"'<>]+))@[A-Za-z0-9.\-\[\]]+",
        _pw_group_ok,
    ),
    _rule(
        "bearer_token",
        FindingType.TOKEN,
        r"(?i:(?<![A-Za-z])bearer)\s+(?P<v>[A-Za-z0-9\-._~+/]{16,}=*)",
        _bearer_ok,
    ),
    _rule(
        "basic_auth",
        FindingType.PASSWORD,
        r"(?i:authorization\s*:\s*basic)\s+(?P<v>[A-Za-z0-9+/]{8,}={0,2})",
        _basic_auth_ok,
    ),
)

# ---------------------------------------------------------------------------------------------
# Secrets: key/value assignments (password=..., api_key: ..., 密码是 ..., 令牌：...)
# ---------------------------------------------------------------------------------------------

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
_CAMEL_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

_ASCII_KEY = (
    r"[A-Za-z][A-Za-z0-9_.\-]{0,40}(?:[ ](?!(?:is|was|are)\b)[A-Za-z][A-Za-z0-9_.\-]{0,20}){0,2}"
)
_ZH_KEY = r"密码|口令|PIN码|令牌|密钥|秘钥|私钥"
_QUOTED_VALUE = (
    r"(?:\"(?P<dq>[^\"\n]{1,200})\"|'(?P<sq>[^'\n]{1,200})'|“(?P<cq>[^”\n]{1,200})”"
    r"|(?P<bare>[^\s\"'<>,;`\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]{1,200}))"
)
_KV_ASCII = re.compile(
    rf"(?<![A-Za-z0-9_.])(?P<key>{_ASCII_KEY})[\"']?"
    r"(?P<conn>[ \t]*(?::=|=>|=(?![=>])|:|：)[ \t]*|[ \t]*(?:是|为)[ \t]*[:：]?[ \t]*"
    r"|[ \t]+(?:is|was)[ \t]+:?[ \t]*|[ \t]+)" + _QUOTED_VALUE
)
_ZH_CONN = r"(?:是|为|(?:改|换|设|重置|更新)(?:成|为)了?|设置为|设为)"
_KV_ZH = re.compile(
    rf"(?P<key>{_ZH_KEY})(?P<conn>[ \t]*(?:{_ZH_CONN})?[ \t]*[:：=]?[ \t]*)" + _QUOTED_VALUE
)
# <password>...</password> and <add key="ApiKey" value="..."/> in XML configs
_KV_XML_ELEMENT = re.compile(
    r"<(?P<key>[A-Za-z][\w.\-]{0,40})(?P<conn>>)(?P<bare>[^<>\n]{1,200})</(?P=key)>"
)
_KV_XML_ATTRIBUTE = re.compile(
    r"(?i:key|name)\s*=\s*\"(?P<key>[A-Za-z][\w.\-]{0,40})\"(?P<conn>\s+(?i:value)\s*=\s*)"
    r"\"(?P<dq>[^\"\n]{1,200})\""
)
_AMBIGUOUS_PASSWORD_KEYS = frozenset({"pass", "pw"})
_CODE_OBJECTS = ("self.", "this.", "cls.", "ctx.", "args.", "opts.", "options.", "util.")
_SECRET_NOUNS = frozenset({"token", "key", "secret", "apikey", "credential", "credentials"})
_SHORT_KEY_NAMES = frozenset({"AK", "SK", "AK/SK"})  # cloud consoles label key pairs this way
_PROSE_AFTER = re.compile(r"[ \t]+[^\s#/;]")
_CODE_ARGUMENT_AFTER = re.compile(r"[ \t]*[,)]")
_ASSIGNED_AFTER = re.compile(r"[\"']?[ \t]*(?:=(?!=)|:=)")


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


_PROSE_WORDS = frozenset(
    {
        "is",
        "are",
        "was",
        "the",
        "a",
        "an",
        "for",
        "to",
        "of",
        "and",
        "or",
        "be",
        "must",
        "should",
        "will",
        "can",
        "required",
        "optional",
        "not",
        "with",
        "in",
        "on",
        "at",
        "by",
        "if",
        "when",
        "it",
        "this",
        "that",
        "you",
        "your",
        "empty",
        "none",
        "protected",
        "set",
    }
)


_DICEWARE_WORD = re.compile(r"^[A-Za-z][A-Za-z'\-]{0,23}\d{0,4}$")


def _passphrase_words_ok(value: str) -> bool:
    """Diceware-style passphrases are a few plain words; prose uses function words."""
    words = [w.strip(".,;:!?") for w in value.split()]
    if not 3 <= len(words) <= 10 or not all(_DICEWARE_WORD.match(w) for w in words):
        return False
    return not any(w.lower() in _PROSE_WORDS for w in words)


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
    key, conn, value = m.group("key"), m.group("conn").strip(), _value(m)
    after = m.string[_value_span(m)[1] :]
    if _ASSIGNED_AFTER.match(after) or _names_a_variable(key, value, after):
        return False
    if " " in _clean_value(value):
        return _passphrase_words_ok(_clean_value(value))
    if not key.isascii() or not conn.isascii():
        return _password_shape_ok(value, 4)
    if not conn:
        return False  # "password reset", "passwd files": a bare space is not an assignment
    prose = conn.startswith(("is", "was")) or " " in key or bool(_PROSE_AFTER.match(after))
    parts = _key_parts(key)
    code_attribute = (
        key.lower().startswith(_CODE_OBJECTS) and not m.group("dq") and not m.group("sq")
    )
    if prose or code_attribute or parts[-1] in _AMBIGUOUS_PASSWORD_KEYS:
        return _password_shape_ok(value, 6)
    return len(_clean_value(value)) >= 4 and _credential_ok(value)


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
        return _looks_random(_clean_value(_value(m)), 20)
    return _looks_random(_clean_value(_value(m)))


def _kv_finding(m: re.Match[str]) -> Finding | None:
    """Turn one key/value match into a finding if the key names a secret and the value fits."""
    kind = _classify_key(m.group("key"))
    if kind is None or (not m.group("conn") and not _value(m)[:1].isalnum()):
        return None  # "密码|口令": with no connector the value must start right away
    if kind is FindingType.PASSWORD:
        ok, detector = _password_value_ok(m), "password_assignment"
    else:
        ok, detector = _secret_value_ok(m), "secret_assignment"
    start, end = _value_span(m)
    return Finding(kind, start, end, detector) if ok and start < end else None


_KV_HINT = re.compile(
    r"(?i)pass|pwd|pw|token|secret|key|auth|bearer|jwt|credential|session|密码|口令|令牌|密钥|秘钥"
    r"|私钥|(?<![a-z])[as]k(?![a-z])"
)


def _kv_detector(pattern: re.Pattern[str]) -> Detector:
    """Build a detector for secrets introduced by a key name (configs, env files, prose)."""

    def detect(text: str) -> Iterator[Finding]:
        """Scan with retry after rejected matches, like :class:`_RegexRule`."""
        if not _KV_HINT.search(text):
            return
        pos = 0
        while (m := pattern.search(text, pos)) is not None:
            finding = _kv_finding(m)
            if finding is None:
                pos = m.start() + 1
            else:
                yield finding
                pos = m.end()

    return detect


def _phrase_password_ok(m: re.Match[str]) -> bool:
    """Prose such as 'the password is correct' is common; demand a password-shaped value."""
    return _password_shape_ok(_value(m), 6)


def _pin_ok(m: re.Match[str]) -> bool:
    """PINs are short digit strings; reject obvious placeholders like 0000."""
    return len(set(_value(m))) > 1


def _passphrase_ok(m: re.Match[str]) -> bool:
    """Adapter from a regex match to :func:`_passphrase_words_ok`."""
    return _passphrase_words_ok(_clean_value(_value(m)))


def _cli_password_ok(m: re.Match[str]) -> bool:
    """Command-line flags often carry ``$VAR`` references rather than literals."""
    return _credential_ok(_value(m))


_PASSWORD_RULES: tuple[_RegexRule, ...] = (
    _rule(
        "password_phrase",
        FindingType.PASSWORD,
        r"(?i)(?<![A-Za-z])(?:password|passwd|passphrase|passcode)"
        r"(?:[ \t]+(?:for|to|of|on|at)(?:[ \t]+[^\s:=]+){1,4}?)?[ \t]+(?:is|was)(?![\w])"
        r"[ \t]*:?[ \t]*" + _QUOTED_VALUE,
        _phrase_password_ok,
    ),
    _rule(
        "passphrase",
        FindingType.PASSWORD,
        r"(?i:(?<![A-Za-z])pass[ _\-]?phrase)[ \t]*[:=：][ \t]*[\"'“]?(?P<v>[^\n\"'”]{8,200})",
        _passphrase_ok,
    ),
    _rule(
        "pin_code",
        FindingType.PASSWORD,
        r"(?:(?<![A-Za-z])PIN(?:\s+(?:code|number))?|PIN码|(?i:pin\s+code|pass\s?code))"
        r"\s*(?:is|was|:|：|=|是|为)?\s*(?P<v>\d{4,10})(?![\d.])",
        _pin_ok,
    ),
    _rule(
        "cli_password",
        FindingType.PASSWORD,
        r"(?<![\w\-])(?:--(?:password|passwd|pass|db-password)\s+|sshpass\s+-p\s+"
        r"|(?:mysql|mysqldump|mysqladmin)\b[^\n]*?\s-p(?=[^\s-])|login\s+\S+\s+password\s+"
        r"|(?:docker|podman|helm|oras|skopeo)\s+(?:registry\s+)?login\b[^\n]*?\s-p\s+)"
        + _QUOTED_VALUE,
        _cli_password_ok,
    ),
    _rule(
        "pgpass_line",
        FindingType.PASSWORD,
        r"(?m)^[ \t]*[A-Za-z0-9.\-*]+:(?:\d{1,5}|\*):[^\s:]+:[^\s:]+:(?P<v>\S+)[ \t]*$",
        _cli_password_ok,
    ),
)

# ---------------------------------------------------------------------------------------------
# PII: e-mail and phone numbers
# ---------------------------------------------------------------------------------------------

_IMAGE_TLDS = frozenset({"png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "bmp"})
_NOT_NUMBER_CONTEXT = re.compile(
    r"订单|运单|单号|编号|流水|工单|版本|(?<![a-z])(?:order|tracking|invoice|trace|txn|"
    r"transaction|build|ticket|id|no\.)(?![a-z])"
)
_NUMBER_CONTEXT = re.compile(
    r"手机|电话|联系|微信|卡|(?<![a-z])(?:phone|mobile|tel|call|whatsapp|card|visa|mastercard|amex)"
    r"(?![a-z])"
)


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


def _not_reference_number(m: re.Match[str]) -> bool:
    """An order or build number can look like a phone or card number; respect nearby labels."""
    prefix = _line_prefix(m.string, m.start())
    return bool(_NUMBER_CONTEXT.search(prefix)) or not _NOT_NUMBER_CONTEXT.search(prefix)


def _national_mobile_ok(m: re.Match[str]) -> bool:
    """Leading-zero numbers also appear as octal literals (``017777777777``); need variety."""
    return len(set(re.sub(r"\D", "", _value(m)))) > 3 and _not_reference_number(m)


def _e164_ok(m: re.Match[str]) -> bool:
    """International numbers have 8-15 digits; reject decimals and unbalanced brackets."""
    value = _value(m)
    digits = sum(c.isdigit() for c in value)
    if not 8 <= digits <= 15 or value.count("(") != value.count(")"):
        return False
    if ".." in value or value.count(".") == 1:
        return False
    return _not_reference_number(m)


def _nanp_ok(m: re.Match[str]) -> bool:
    """North-American area codes and exchanges never start with 0 or 1."""
    digits = re.sub(r"\D", "", _value(m))[-10:]
    return digits[0] not in "01" and digits[3] not in "01" and _not_reference_number(m)


_CONTACT_RULES: tuple[_RegexRule, ...] = (
    _rule(
        "email",
        FindingType.EMAIL_ADDRESS,
        r"(?<![A-Za-z0-9._%+\-])(?P<v>[A-Za-z0-9][A-Za-z0-9._%+\-]{0,63}@"
        r"(?P<domain>[A-Za-z0-9](?:[A-Za-z0-9\-]{0,62}[A-Za-z0-9])?"
        r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]{0,62}[A-Za-z0-9])?)*\.[A-Za-z]{2,24}))(?![A-Za-z0-9\-])",
        _email_ok,
    ),
    _rule(
        "email_obfuscated",
        FindingType.EMAIL_ADDRESS,
        r"(?i)(?<![A-Za-z0-9._%+\-])(?P<v>[A-Za-z0-9][A-Za-z0-9._%+\-]{0,63}\s*[\[(]\s*at\s*[\])]"
        r"\s*[A-Za-z0-9\-]+(?:\s*[\[(]\s*dot\s*[\])]\s*[A-Za-z0-9\-]+|\.[A-Za-z0-9\-]+)+)",
    ),
    _rule(
        "cn_mobile",
        FindingType.PHONE_NUMBER,
        r"(?<![0-9A-Za-z_.\-/+])(?P<v>(?:(?:\+|00)86[ \-]?|\(\+86\)[ ]?)?"
        r"1[3-9]\d[ \-]?\d{4}[ \-]?\d{4})(?![0-9A-Za-z_])",
        _not_reference_number,
    ),
    _rule(
        "cn_landline",
        FindingType.PHONE_NUMBER,
        r"(?<![0-9A-Za-z_.\-/])(?P<v>\(?0[1-9]\d{1,2}\)?[ \-][2-9]\d{3}[ ]?\d{3,4})"
        r"(?![0-9A-Za-z_\-])",
        _not_reference_number,
    ),
    _rule(
        "eu_national_mobile",
        FindingType.PHONE_NUMBER,
        r"(?<![0-9A-Za-z_.\-/])(?P<v>0(?:7\d{3}[ ]?\d{6}|1[5-7]\d[ ]?\d{7,8}))(?![0-9A-Za-z_\-])",
        _national_mobile_ok,
    ),
    _rule(
        "e164_phone",
        FindingType.PHONE_NUMBER,
        r"(?<![0-9A-Za-z_+)])(?P<v>\+[1-9][\d \-().]{6,22}\d)(?![0-9A-Za-z_])",
        _e164_ok,
    ),
    _rule(
        "nanp_phone",
        FindingType.PHONE_NUMBER,
        r"(?<![0-9A-Za-z_.\-])(?P<v>(?:\+?1[ .\-]?)?(?:\(\d{3}\)[ ]?\d{3}[.\-]\d{4}"
        r"|\d{3}-\d{3}-\d{4}|\d{3}\.\d{3}\.\d{4}))(?![0-9A-Za-z_\-]|\.\d)",
        _nanp_ok,
    ),
)

# ---------------------------------------------------------------------------------------------
# PII: payment cards, bank accounts, national ids
# ---------------------------------------------------------------------------------------------

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


def _card_ok(m: re.Match[str]) -> bool:
    """Luhn and issuer range together make a random digit run an unlikely match."""
    digits = re.sub(r"\D", "", _value(m))
    if len(set(digits)) < 2 or not (luhn_valid(digits) and _iin_known(digits)):
        return False
    return _not_reference_number(m)


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


def _cn_id_ok(m: re.Match[str]) -> bool:
    """Adapter from a regex match to :func:`cn_resident_id_valid`."""
    return cn_resident_id_valid(_value(m))


def _hkid_ok(m: re.Match[str]) -> bool:
    """Hong Kong identity card check digit (mod 11 over letters and digits)."""
    raw = re.sub(r"[()\s]", "", _value(m)).upper()
    body, check = raw[:-1].rjust(8), raw[-1]
    values = [36 if c == " " else int(c, 36) for c in body]
    remainder = sum(v * w for v, w in zip(values, range(9, 1, -1), strict=True)) % 11
    expected = (11 - remainder) % 11
    return check == ("A" if expected == 10 else str(expected))


_TW_LETTERS = "ABCDEFGHJKLMNPQRSTUVXYWZIO"  # maps to 10..35 in this order


_TW_ID_CONTEXT = re.compile(
    r"身分證|身份证|身份證|证件|證件|台胞|(?<![a-z])(?:id|identity)(?![a-z])"
)


def _twid_ok(m: re.Match[str]) -> bool:
    """Taiwan national id: letter code plus weighted digit sum divisible by 10.

    One in ten random ``A1xxxxxxxx`` codes passes the checksum, so an id label must be near.
    """
    if not _TW_ID_CONTEXT.search(_line_prefix(m.string, m.start())):
        return False
    raw = _value(m).upper()
    code = _TW_LETTERS.index(raw[0]) + 10
    digits = [code // 10, code % 10, *(int(c) for c in raw[1:])]
    weights = (1, 9, 8, 7, 6, 5, 4, 3, 2, 1, 1)
    return sum(d * w for d, w in zip(digits, weights, strict=True)) % 10 == 0


def _ssn_ok(m: re.Match[str]) -> bool:
    """US SSNs never use area 000, 666 or 9xx, group 00 or serial 0000."""
    digits = re.sub(r"\D", "", _value(m))
    area, group, serial = digits[:3], digits[3:5], digits[5:]
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


def _bank_account_ok(m: re.Match[str]) -> bool:
    """Account numbers named as such; reject filler like 0000 0000."""
    digits = re.sub(r"\D", "", _value(m))
    return 8 <= len(digits) <= 30 and len(set(digits)) > 2


_CARD_PATTERN = (
    r"(?<![0-9A-Za-z_.\-])(?P<v>\d{13,19}"
    r"|\d{4}(?P<s1>[ \-])\d{4}(?P=s1)\d{4}(?:(?P=s1)\d{1,4}){1,2}"
    r"|\d{4}(?P<s2>[ \-])\d{6}(?P=s2)\d{4,5})(?![0-9A-Za-z_]|[.\-]\d)"
)

_NUMBER_RULES: tuple[_RegexRule, ...] = (
    _rule("luhn_card", FindingType.CARD_NUMBER, _CARD_PATTERN, _card_ok),
    _rule(
        "cn_resident_id",
        FindingType.NATIONAL_ID,
        r"(?<![0-9A-Za-z_])(?P<v>[1-9]\d{5}[ ]?(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])"
        r"(?:0[1-9]|[12]\d|3[01])[ ]?\d{3}[\dXx])(?![0-9A-Za-z_])",
        _cn_id_ok,
    ),
    _rule(
        "us_ssn",
        FindingType.NATIONAL_ID,
        r"(?i:(?<![A-Za-z])(?:ssn|social security(?: number| no\.?)?))\s*(?:#|is|:|=)?\s*"
        r"(?P<v>\d{3}-\d{2}-\d{4}|\d{9})(?!\d)",
        _ssn_ok,
    ),
    _rule(
        "hk_identity_card",
        FindingType.NATIONAL_ID,
        r"(?<![A-Za-z0-9])(?P<v>[A-Z]{1,2}\d{6}\s?\([0-9A]\))",
        _hkid_ok,
    ),
    _rule(
        "tw_national_id",
        FindingType.NATIONAL_ID,
        r"(?<![A-Za-z0-9])(?P<v>[A-Z][12]\d{8})(?![A-Za-z0-9])",
        _twid_ok,
    ),
    _rule(
        "passport_number",
        FindingType.NATIONAL_ID,
        r"(?:护照号码?|护照|(?i:passport(?:\s+(?:number|no\.?))?))\s*(?:[:：#]|是|为|is)?\s*"
        r"(?P<v>[A-Z]{1,2}\d{7,8})(?![A-Za-z0-9])",
    ),
    _rule(
        "bank_account_context",
        FindingType.BANK_ACCOUNT,
        r"(?:银行卡号|银行账号|银行账户|收款账号|收款账户|对公账户|对公账号|开户行账号|"
        r"(?i:bank\s+account(?:\s+(?:number|no\.?|#))?))\s*(?:[:：#]|是|为|is)?\s*"
        r"(?P<v>\d[\d \-]{6,34}\d)(?!\d)",
        _bank_account_ok,
    ),
)

# IBAN lengths by country for the common SEPA and non-SEPA countries.
_IBAN_LENGTHS = {
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
_IBAN_CANDIDATE = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?:[ ]?[A-Za-z0-9]){11,30}")


def iban_valid(value: str) -> bool:
    """ISO 13616 check: known country length and mod-97 remainder of 1."""
    compact = value.replace(" ", "").upper()
    if _IBAN_LENGTHS.get(compact[:2]) != len(compact) or not compact.isalnum():
        return False
    if sum(c.isdigit() for c in compact[4:]) < 0.6 * len(compact[4:]):
        return False  # real BBANs are mostly digits; keeps prose from passing mod-97 by chance
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(ch, 36)) for ch in rearranged)) % 97 == 1


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
        length = _IBAN_LENGTHS.get(m.group()[:2].upper())
        end = _iban_end(text, m.start(), length) if length else None
        if end is None or text[end : end + 1].isalnum():
            continue
        if iban_valid(text[m.start() : end]):
            yield Finding(FindingType.BANK_ACCOUNT, m.start(), end, "iban")


# ---------------------------------------------------------------------------------------------
# PII: postal addresses
# ---------------------------------------------------------------------------------------------

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

_ADDRESS_RULES: tuple[_RegexRule, ...] = (
    _rule(
        "en_street_address",
        FindingType.POSTAL_ADDRESS,
        _EN_ADDRESS,
        _en_address_ok,
        hint=rf"(?<![A-Za-z])(?:{_STRONG_SUFFIXES}|{_WEAK_SUFFIXES})(?![A-Za-z])",
    ),
    _rule(
        "romance_street_address",
        FindingType.POSTAL_ADDRESS,
        _ROMANCE_ADDRESS,
        hint=r"Rue|Avenue|Boulevard|Bd|Quai|Via|Piazza|Calle|Avenida|Rua|Carrer",
    ),
    _rule(
        "germanic_street_address",
        FindingType.POSTAL_ADDRESS,
        _GERMANIC_ADDRESS,
        hint=r"(?:straße|strasse|str\.|weg|gasse|allee|platz|ring)\s+\d",
    ),
    _rule(
        "zh_road_address",
        FindingType.POSTAL_ADDRESS,
        _ZH_ROAD_ADDRESS,
        _zh_road_ok,
        hint=r"(?:路|街|道|巷|胡同|弄)(?:[东南西北中]?段)?[ ]?\d",
    ),
    _rule(
        "zh_compound_address",
        FindingType.POSTAL_ADDRESS,
        _ZH_COMPOUND_ADDRESS,
        hint=r"(?:小区|花园|公寓|家园|苑|新村)[ ]?\d",
    ),
)

# ---------------------------------------------------------------------------------------------
# Scan, merge, redact
# ---------------------------------------------------------------------------------------------

_DETECTORS: tuple[Detector, ...] = (
    *_PROVIDER_RULES,
    _pem_private_keys,
    *_CONNECTION_RULES,
    _kv_detector(_KV_ASCII),
    _kv_detector(_KV_ZH),
    _kv_detector(_KV_XML_ELEMENT),
    _kv_detector(_KV_XML_ATTRIBUTE),
    *_PASSWORD_RULES,
    *_CONTACT_RULES,
    *_NUMBER_RULES,
    _ibans,
    *_ADDRESS_RULES,
)

# Higher wins when spans overlap: specific formats beat context heuristics.
_PRIORITY: dict[str, int] = {
    "pem_private_key": 100,
    "jwt": 92,
    "db_connection_url": 90,
    "odbc_connection_string": 90,
    "libpq_connection_string": 90,
    "url_password": 85,
    "bearer_token": 80,
    "basic_auth": 80,
    "cn_resident_id": 76,
    "luhn_card": 74,
    "iban": 74,
    "secret_assignment": 70,
    "password_assignment": 70,
    "password_phrase": 70,
    "passphrase": 70,
    "cli_password": 70,
    "pin_code": 65,
    "us_ssn": 60,
    "hk_identity_card": 60,
    "tw_national_id": 60,
    "passport_number": 60,
    "email": 55,
    "bank_account_context": 52,
}
_PROVIDER_PRIORITY = 95
_DEFAULT_PRIORITY = 50
_PROVIDER_DETECTORS = frozenset(rule.detector for rule in _PROVIDER_RULES)


def _rank(finding: Finding) -> tuple[int, int]:
    """Order overlapping findings: detector specificity first, then span length."""
    if finding.detector in _PROVIDER_DETECTORS:
        priority = _PROVIDER_PRIORITY
    else:
        priority = _PRIORITY.get(finding.detector, _DEFAULT_PRIORITY)
    return priority, finding.end - finding.start


def _merge(findings: Iterable[Finding]) -> list[Finding]:
    """Collapse overlapping spans into one finding so redaction leaves no fragments."""
    merged: list[Finding] = []
    for f in sorted(findings, key=lambda x: (x.start, -x.end)):
        if merged and f.start < merged[-1].end:
            prev = merged[-1]
            best = max(prev, f, key=_rank)
            merged[-1] = Finding(best.type, prev.start, max(prev.end, f.end), best.detector)
        else:
            merged.append(f)
    return merged


def scan(text: str) -> list[Finding]:
    """Scan text for secrets and PII.

    Args:
        text: Any candidate memory content, event text or tool output.

    Returns:
        Findings sorted by start offset with overlapping hits merged; empty when nothing
        sensitive was found. Findings carry spans only, never the matched values.
    """
    if not text:
        return []
    return _merge(finding for detector in _DETECTORS for finding in detector(text))


def redact(text: str, findings: Sequence[Finding] | None = None) -> str:
    """Replace each sensitive span by ``[REDACTED:<type>]``.

    Keeping the type in the marker lets a redacted memory stay useful ("uses an API key from
    the vault") while the value itself is gone.

    Args:
        text: The text the findings refer to.
        findings: Findings from an earlier :func:`scan` of the same text; scanned if omitted.

    Returns:
        The text with every finding's span replaced.
    """
    if findings is None:
        spans = scan(text)
    else:
        spans = _merge(f for f in findings if 0 <= f.start < f.end <= len(text))
    parts: list[str] = []
    pos = 0
    for f in spans:
        parts.append(text[pos : f.start])
        parts.append(f"[REDACTED:{f.type.value}]")
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts)


def finding_types(findings: Iterable[Finding]) -> list[str]:
    """Return the sorted unique type values, the shape security events record."""
    return sorted({f.type.value for f in findings})
