"""What the scanner reports: the finding type vocabulary and the span-only finding."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass


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


def finding_types(findings: Iterable[Finding]) -> list[str]:
    """Return the sorted unique type values, the shape security events record."""
    return sorted({f.type.value for f in findings})
