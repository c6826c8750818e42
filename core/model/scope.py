"""Scopes: who and where a memory or event belongs (R13).

A scope is a small mapping from well-known keys to non-empty values. The visibility rule
is containment: a memory scoped `M` is visible to a request scoped `Q` exactly when every
key of `M` is in `Q` with the same value, so user-global memories reach that user's
projects while a project memory of one user never reaches another user.
"""

from __future__ import annotations

import itertools
import json
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from core.errors import InvalidInputError, ScopeRequiredError
from core.model.jsonsafe import check_string, has_control, has_invisible


@dataclass(frozen=True)
class ScopeKey:
    """One word of the scope vocabulary.

    Attributes:
        name: the key as written (`project=web-shop`).
        breadth: where a memory with this key applies, 0 broadest; None for a key that says
            who may see a memory, not where it applies (it gives a scope no kind).
        boundary: dropping it makes a memory cross the projects or tenants its evidence came
            from, which needs the user's confirmation (R7).
    """

    name: str
    breadth: int | None
    boundary: bool = False


# The one place to add a scope key: everything else (validation, the policy's scope kinds,
# the desktop's settings and column order) is derived from this table. Its order is the order
# forms and messages list the keys in.
VOCABULARY = (
    ScopeKey("user", breadth=0),
    ScopeKey("org", breadth=1, boundary=True),
    ScopeKey("project", breadth=4, boundary=True),
    ScopeKey("repo", breadth=5, boundary=True),
    ScopeKey("agent", breadth=3),
    ScopeKey("session", breadth=6),
    ScopeKey("environment", breadth=2, boundary=True),
    ScopeKey("visibility", breadth=None),
)
SCOPE_KEYS = tuple(key.name for key in VOCABULARY)
# The key naming whose memory it is: a memory scoped by it alone is global (user-wide).
USER_KEY = "user"
# The keys that say where a memory applies, narrowest first.
SCOPE_NARROWEST_FIRST = tuple(
    key.name
    for key in sorted(VOCABULARY, key=lambda k: -(k.breadth or 0))
    if key.breadth is not None
)
BOUNDARY_KEYS = frozenset(key.name for key in VOCABULARY if key.boundary)
GLOBAL_KIND = "global"
# What the policy can be told to always ask about, broadest first.
SCOPE_KINDS = (GLOBAL_KIND, *reversed(SCOPE_NARROWEST_FIRST))
MAX_SCOPE_VALUE = 200


@dataclass(frozen=True)
class Scope(Mapping[str, str]):
    """An immutable, validated scope. Construct with `Scope.of(...)` or `Scope.parse(...)`."""

    items_: tuple[tuple[str, str], ...]

    @classmethod
    def of(
        cls, mapping: Mapping[str, str] | None, *, field: str = "scope", stored: bool = False
    ) -> Scope:
        """Validate a mapping into a Scope; empty is allowed here (see `require`).

        `stored`: a scope read back from the store, written when invisible characters were
        still accepted; it stays readable."""
        if mapping is None:
            return cls(())
        if not isinstance(mapping, Mapping):
            raise InvalidInputError(field, "must be a mapping of scope keys to values")
        pairs = []
        for key, value in mapping.items():
            pairs.append((_check_key(key, field), _check_value(key, value, field, stored)))
        return cls(tuple(sorted(pairs)))

    @classmethod
    def required(cls, mapping: Mapping[str, str] | None, *, field: str = "scope") -> Scope:
        """Like `of`, but a missing or empty scope raises `ScopeRequiredError`."""
        scope = cls.of(mapping, field=field)
        if not scope:
            raise ScopeRequiredError(field)
        return scope

    @classmethod
    def parse(cls, assignments: Iterable[str], *, field: str = "scope") -> Scope:
        """Parse CLI-style `key=value` strings."""
        mapping: dict[str, str] = {}
        for item in assignments:
            key, sep, value = item.partition("=")
            if not sep:
                raise InvalidInputError(field, f"expected key=value, got {item!r}")
            if key.strip() in mapping:
                raise InvalidInputError(field, f"scope key {key.strip()!r} given twice")
            mapping[key.strip()] = value.strip()
        return cls.of(mapping, field=field)

    @classmethod
    def from_json(cls, text: str) -> Scope:
        """Rebuild a scope from its canonical JSON (as stored)."""
        return cls.of(json.loads(text), stored=True)

    def to_json(self) -> str:
        """Canonical JSON: sorted keys, no spaces. Used for storage and hashing."""
        return json.dumps(dict(self.items_), sort_keys=True, separators=(",", ":"))

    def visible_to(self, request: Scope) -> bool:
        """True when a memory with this scope may be shown to `request` (containment rule)."""
        return all(request.get(key) == value for key, value in self.items_)

    def subsets(self) -> list[Scope]:
        """Every scope visible to this one as a request: by the containment rule, exactly
        its subsets (at most 2^8, the empty scope included)."""
        return [
            Scope(subset)
            for size in range(len(self.items_) + 1)
            for subset in itertools.combinations(self.items_, size)
        ]

    def narrows(self, old: Scope) -> bool:
        """True when self keeps every key/value of `old` and adds at least one."""
        return old.visible_to(self) and len(self) > len(old)

    def why_visible(self, request: Scope) -> str:
        """Explain in one line why this scope admits `request` (R13)."""
        if not self.items_:
            return "unscoped"
        keys = ", ".join(f"{k}={v}" for k, v in self.items_)
        broader = sorted(set(request) - set(self))
        if not broader:
            return f"memory scope {keys} equals the request scope"
        return (
            f"memory scope {keys} is contained in the request (request adds {', '.join(broader)})"
        )

    def __getitem__(self, key: str) -> str:
        for k, v in self.items_:
            if k == key:
                return v
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return (k for k, _ in self.items_)

    def __len__(self) -> int:
        return len(self.items_)

    def __str__(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.items_) or "(no scope)"


ScopeArg = Mapping[str, str] | Scope | None
"""What a public call accepts as a scope: a plain mapping, a `Scope`, or nothing (where the
call may fall back to a default)."""


def _check_key(key: object, field: str) -> str:
    if not isinstance(key, str) or key not in SCOPE_KEYS:
        raise InvalidInputError(
            field, f"unknown scope key {key!r}; allowed: {', '.join(SCOPE_KEYS)}"
        )
    return key


def _check_value(key: str, value: object, field: str, stored: bool = False) -> str:
    if not isinstance(value, str):
        raise InvalidInputError(f"{field}.{key}", "must be a string")
    check_string(value, f"{field}.{key}")
    text = unicodedata.normalize("NFC", value).strip()
    if not text:
        raise InvalidInputError(f"{field}.{key}", "must not be empty")
    if len(text) > MAX_SCOPE_VALUE:
        raise InvalidInputError(f"{field}.{key}", f"longer than {MAX_SCOPE_VALUE} characters")
    if has_control(text):
        raise InvalidInputError(f"{field}.{key}", "contains control characters")
    if has_invisible(text) and not stored:
        # A value that looks like another (`alice` with a zero-width space, `tnuocca` shown
        # reversed) would name a different scope than the one the user sees.
        raise InvalidInputError(
            f"{field}.{key}",
            "contains a bidirectional control or an invisible (zero-width) character",
        )
    return text


def scope_kind(scope: Mapping[str, str]) -> str:
    """What kind of scope this is: its narrowest key, or `global` for a user-wide memory."""
    for key in SCOPE_NARROWEST_FIRST:
        if key != USER_KEY and key in scope:
            return key
    return GLOBAL_KIND
