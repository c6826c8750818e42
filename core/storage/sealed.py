"""Registry of every column that holds a sealed value, and how its AAD row id is formed.

Key rotation, `verify` and purge checks walk this list, so a new encrypted column must be
added here (a test fails otherwise: see tests/core/storage/test_markers.py).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Table, and_, select, update

from core.crypto.codec import Aad, Codec, read_header
from core.crypto.keys import PERSONAL_PREFIX
from core.storage import schema as s


@dataclass(frozen=True)
class SealedColumn:
    """A column of sealed values and the primary-key columns that name its rows."""

    table: Table
    pk: tuple[str, ...]
    column: str

    def aad(self, row: Mapping[Any, Any]) -> Aad:
        """The AAD of the value in `row`."""
        return Aad(self.table.name, "/".join(str(row[c]) for c in self.pk), self.column)

    def batch_after(
        self, conn: Connection, last: tuple[Any, ...] | None, batch: int = 500
    ) -> list[dict[str, Any]]:
        """The next `batch` rows with a sealed value after primary key `last`, in key order."""
        cols = [self.table.c[c] for c in self.pk]
        query = select(*cols, self.table.c[self.column]).where(
            self.table.c[self.column].is_not(None)
        )
        if last is not None:
            query = query.where(_after(cols, last))
        return [dict(r) for r in conn.execute(query.order_by(*cols).limit(batch)).mappings()]

    def rows(self, conn: Connection, batch: int = 500) -> Iterator[dict[str, Any]]:
        """Every row with a sealed value, fetched in batches on one connection."""
        last: tuple[Any, ...] | None = None
        while chunk := self.batch_after(conn, last, batch):
            yield from chunk
            last = self.key_of(chunk[-1])

    def key_of(self, row: Mapping[Any, Any]) -> tuple[Any, ...]:
        """The primary key of a row, as a tuple."""
        return tuple(row[c] for c in self.pk)

    def rewrite(self, conn: Connection, row: Mapping[Any, Any], value: bytes | None) -> None:
        """Replace the sealed value of one row."""
        cond = and_(*(self.table.c[c] == row[c] for c in self.pk))
        conn.execute(update(self.table).where(cond).values({self.column: value}))


def _after(cols: list[Any], last: tuple[Any, ...]) -> Any:
    if len(cols) == 1:
        return cols[0] > last[0]
    return (cols[0] > last[0]) | and_(cols[0] == last[0], cols[1] > last[1])


SEALED: tuple[SealedColumn, ...] = (
    SealedColumn(s.event_payloads, ("event_id",), "ciphertext"),
    SealedColumn(s.memory_revisions, ("memory_id", "revision"), "content"),
    SealedColumn(s.memory_revisions, ("memory_id", "revision"), "speaker"),
    SealedColumn(s.decisions, ("id",), "reason"),
    SealedColumn(s.snapshots, ("id",), "body"),
    SealedColumn(s.tombstones, ("memory_id",), "reason"),
    SealedColumn(s.tombstones, ("memory_id",), "report"),
    SealedColumn(s.fence_features, ("fingerprint",), "vector"),
)


@dataclass(frozen=True)
class SealedFile:
    """A sealed file under the data directory; its AAD names the table, file and field."""

    relative_path: str
    table: str
    field: str
    derived: bool

    def aad(self) -> Aad:
        """The AAD the file was sealed with (the file name is the row id)."""
        return Aad(self.table, self.relative_path.rsplit("/", 1)[-1], self.field)


# Files sealed by layers above storage; `verify` opens each that exists. The vector and
# keyword indexes are derived (rebuilt from the store), so damage there is repairable by
# `index rebuild` (and a keyword file that does not open is rebuilt at the next open).
SEALED_FILES: tuple[SealedFile, ...] = (
    SealedFile("index/vectors.mcidx", "index_files", "vector", derived=True),
    SealedFile("index/vectors.delta.mcidx", "index_files", "vector-delta", derived=True),
    SealedFile("index/keywords.mcidx", "index_files", "keyword", derived=True),
    SealedFile("index/texts.mcidx", "index_files", "texts", derived=True),
)
# Sealed values in store_meta are not listed here: the key check is opened at every open,
# the chain head by the chain walk of `verify`.


def key_id_of(blob: bytes) -> str:
    """The key id in a sealed value's header."""
    return read_header(blob).key_id


def reseal_batch(
    conn: Connection, codec: Codec, column: SealedColumn, rows: list[dict[str, Any]]
) -> int:
    """Re-encrypt the rows not yet under the active key; return how many changed.

    Rows under a personal key (a member's private scope) are left as they are: a team key
    rotation does not touch personal keys, and the rotating device may not hold them.
    """
    changed = 0
    for row in rows:
        blob = row[column.column]
        kid = key_id_of(blob)
        if kid == codec.active_key_id or kid.startswith(PERSONAL_PREFIX):
            continue
        column.rewrite(conn, row, codec.reseal(blob, column.aad(row)))
        changed += 1
    return changed


# Binary columns sealed by something other than the codec: each device's copy of the key set
# in a shared store, sealed to that device's public key (core/crypto/envelope.py). Rotation
# writes new envelopes (core/storage/devices.py) instead of re-sealing these.
# Members' personal keys are sealed to each of their devices the same way
# (core/storage/personal.py); team rotation never touches them.
SEALED_TO_DEVICES: tuple[tuple[str, str], ...] = (
    ("devices", "envelope"),
    ("personal_keys", "envelope"),
)

# Binary columns that hold no content at all: Ed25519 signatures over the signed membership
# records beside them (core/crypto/membership.py), public by design and checked, not opened.
PUBLIC_BINARY: tuple[tuple[str, str], ...] = (("team_records", "signature"),)
