"""Damaged rows: found on read, skipped, and handed up to be reported (#10).

One row whose ciphertext no longer opens, whose metadata binding does not verify, or whose
clear metadata holds a value this code does not know must not make listing, search or
injection fail for everyone. Readers decode each row through `guarded`; a damaged row
becomes a `Damage` instead of an exception, the list readers return (`Records`) carries
the damage alongside the good rows, and the service reports each damaged row once, as a
security event (`core/workflows/integrity.py`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

from core.errors import DamagedRowError, IntegrityError, KeyUnavailableError, PrivateScopeError

T = TypeVar("T")


@dataclass(frozen=True)
class Damage:
    """One damaged row: where, and what is wrong with it (one line)."""

    table: str
    row_id: str
    field: str
    problem: str

    def line(self) -> str:
        """`table row field: problem`, for messages and verify reports."""
        return f"{self.table} row {self.row_id} field {self.field}: {self.problem}"


@dataclass(frozen=True)
class Unavailable(Damage):
    """A row sealed with another member's personal key (their private `user=X` scope on a
    team store): skipped like damage, but never reported as damage, because it is not."""


class Records(list[T], Generic[T]):
    """A list of decoded rows, plus the rows that were skipped as damaged, and how many were
    another member's private rows (not readable with this device's keys)."""

    def __init__(
        self, items: Iterable[T] = (), damaged: Iterable[Damage] = (), unavailable: int = 0
    ) -> None:
        super().__init__(items)
        self.damaged: list[Damage] = list(damaged)
        self.unavailable = unavailable


def guarded(table: str, row_id: str, field: str, decode: Callable[[], T]) -> T | Damage:
    """Run `decode`; a failure that means damage becomes a `Damage` naming the row.

    `field` names the part tried first; a `DamagedRowError` names its own.
    """
    try:
        return decode()
    except PrivateScopeError as exc:
        return Unavailable(table, row_id, field, exc.message)
    except DamagedRowError as exc:
        return Damage(table, row_id, exc.field, exc.problem)
    except (IntegrityError, KeyUnavailableError) as exc:
        return Damage(table, row_id, field, exc.message)
    except (ValueError, KeyError, TypeError, json.JSONDecodeError) as exc:
        return Damage(table, row_id, "metadata", f"unreadable clear metadata: {exc}")


def split(results: Iterable[T | Damage]) -> Records[T]:
    """Good rows in order, damage on the side."""
    good: list[T] = []
    bad: list[Damage] = []
    unavailable = 0
    for item in results:
        if isinstance(item, Unavailable):
            unavailable += 1
        elif isinstance(item, Damage):
            bad.append(item)
        else:
            good.append(item)
    return Records(good, bad, unavailable)
