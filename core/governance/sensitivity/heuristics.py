"""Value heuristics shared by the detector families.

Ordinary engineering text -- versions, ports, SHAs, UUIDs, ticket ids, placeholders such as
``${API_KEY}`` -- is the common case and must not be rejected, so every detector asks these
questions of a candidate value before calling it sensitive.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from core.patterns import lazy

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
_PLACEHOLDER_SHAPE = lazy(
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
_CODE_EXPRESSION = lazy(r"^[A-Za-z_][\w.]*[(\[]")
_DOTTED_IDENTIFIER = lazy(r"^[A-Za-z_][A-Za-z_]*(?:\.[A-Za-z_]+)+$")
_VARIABLE_NAME = lazy(
    r"^(?=[A-Za-z_]*_)(?=.*(?:pass|pwd|secret|token|key))[A-Za-z_]+$", re.IGNORECASE
)
_CONSTANT_NAME = lazy(r"^[A-Z][A-Z0-9_]*(?:PASS|PWD|SECRET|TOKEN|KEY)[A-Z0-9_]*$")
_SNAKE_IDENTIFIER = lazy(r"^[a-z]+(?:_[a-z]+)+$")
_FORMAT_FIELD = lazy(r"\{\w*\}|%\(\w+\)[sd]|%[sd]")
_PATH_SHAPE = lazy(r"^(?:~|\.{1,2})?/[\w.\-/]*$")
TRAILING_PUNCT = ".,;:)]}!?"


def is_placeholder(value: str) -> bool:
    """Tell documentation placeholders from real values; docs and templates are full of them."""
    low = value.strip("\"'`").lower()
    if not low or low in _PLACEHOLDER_WORDS or _PLACEHOLDER_SHAPE.match(low):
        return True
    if len(set(low)) == 1:
        return True
    return any(part in low for part in _PLACEHOLDER_SUBSTRINGS)


def is_reference(value: str) -> bool:
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


def entropy(value: str) -> float:
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


def is_wordy(value: str) -> bool:
    """Detect identifier-like values (``your-api-key-here``, ``GetCallerIdentity``).

    Random tokens break into short fragments; names and prose break into real words.
    """
    parts = [p for p in re.split(r"[_\-./:+\s]+", value) if p]
    words = [w for p in parts for w in _words_of(p) if len(w) >= 3]
    return len(words) >= 2 and sum(len(w) for w in words) >= 0.6 * len(value)


def looks_random(value: str, min_len: int = 16) -> bool:
    """Decide whether a value is a machine-generated credential rather than prose or an id."""
    if len(value) < min_len or any(c.isspace() for c in value):
        return False
    if is_placeholder(value) or is_reference(value) or is_wordy(value):
        return False
    classes = sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
        )
    )
    return classes >= 2 and entropy(value) >= 3.0


def clean_value(value: str) -> str:
    """Strip quoting and sentence punctuation that surround a value in prose and configs."""
    return value.strip().strip("\"'`“”‘’").rstrip(TRAILING_PUNCT)


def credential_ok(value: str) -> bool:
    """Accept a password taken from a structured position (assignment, URL, ODBC string)."""
    value = clean_value(value)
    if len(value) < 3 or len(value) > 200:
        return False
    return not (is_placeholder(value) or is_reference(value))


def password_shape_ok(value: str, min_len: int) -> bool:
    """Accept a password named in prose only if it is shaped like one, not like a word."""
    value = clean_value(value)
    if len(value) < min_len or not credential_ok(value):
        return False
    if value.isdigit():
        return len(value) >= 6
    has_alpha = any(c.isalpha() for c in value)
    has_digit = any(c.isdigit() for c in value)
    has_other = any(not c.isalnum() for c in value)
    mixed_case = any(c.islower() for c in value) and any(c.isupper() for c in value)
    return has_alpha and (has_digit or has_other or mixed_case)


def line_prefix(text: str, start: int, width: int = 24) -> str:
    """Return the text just before a match on the same line, for context keywords."""
    prefix = text[max(0, start - width) : start]
    return prefix.rsplit("\n", 1)[-1].lower()


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


_DICEWARE_WORD = lazy(r"^[A-Za-z][A-Za-z'\-]{0,23}\d{0,4}$")


def passphrase_words_ok(value: str) -> bool:
    """Diceware-style passphrases are a few plain words; prose uses function words."""
    words = [w.strip(".,;:!?") for w in value.split()]
    if not 3 <= len(words) <= 10 or not all(_DICEWARE_WORD.match(w) for w in words):
        return False
    return not any(w.lower() in _PROSE_WORDS for w in words)


_NOT_NUMBER_CONTEXT = lazy(
    r"订单|运单|单号|编号|流水|工单|版本|(?<![a-z])(?:order|tracking|invoice|trace|txn|"
    r"transaction|build|ticket|id|no\.)(?![a-z])"
)
_NUMBER_CONTEXT = lazy(
    r"手机|电话|联系|微信|卡|(?<![a-z])(?:phone|mobile|tel|call|whatsapp|card|visa|mastercard|amex)"
    r"(?![a-z])"
)


def not_reference_number(m: re.Match[str]) -> bool:
    """An order or build number can look like a phone or card number; respect nearby labels."""
    prefix = line_prefix(m.string, m.start())
    return bool(_NUMBER_CONTEXT.search(prefix)) or not _NOT_NUMBER_CONTEXT.search(prefix)
