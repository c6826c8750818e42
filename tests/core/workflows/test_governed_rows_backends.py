"""#38 (R19, R24, R26, R30): the governing rows are tamper-evident on both backends.

The same edits as `test_governed_rows.py`, made with plain SQL on the store's database, on
SQLite and on a real PostgreSQL server: `verify` names table, row and field, and the
fence, the opt-out and the exclusion keep their recorded meaning.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from core import ManualClock, MemoryService
from core.model.enums import OutcomeKind
from core.storage.store import DB_FILE_NAME
from tests.support.pg_fixtures import PG_PASSPHRASE

BOB = {"user": "bob"}
FENCED = "Bob's staging database listens on port 5432 behind the bastion."
KEPT = "Bob's physiotherapy is on Thursdays at eight."


@dataclass
class Target:
    open: Callable[[], MemoryService]
    url: str

    def sql(self, statement: str, **params: Any) -> int:
        engine = create_engine(self.url)
        try:
            with engine.begin() as conn:
                return int(conn.execute(text(statement), params).rowcount)
        finally:
            engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request: pytest.FixtureRequest, data_dir: Path, clock: ManualClock) -> Iterator[Target]:
    if request.param == "sqlite":
        url = f"sqlite:///{data_dir / DB_FILE_NAME}"

        def opener() -> MemoryService:
            return MemoryService.open(
                data_dir, passphrase=PG_PASSPHRASE, clock=clock, prefer_keyring=False
            )
    else:
        url = request.getfixturevalue("pg_url")
        server_url = url

        def opener() -> MemoryService:
            return MemoryService.open(
                data_dir,
                passphrase=PG_PASSPHRASE,
                clock=clock,
                prefer_keyring=False,
                database_url=server_url,
            )

    svc = opener()
    try:
        svc.memories.remember(BOB, KEPT, session="s1")
        gone = svc.memories.remember(BOB, FENCED, session="s1").value.record
        other = svc.memories.remember(
            BOB, "Bob's bike is a green Gazelle.", session="s1"
        ).value.record
        assert gone and other
        svc.review.delete(gone.id, reason="moved")
        svc.events.set_session_opt_out("quiet", True)
        svc.review.exclude(other.id, "s9")
        assert svc.retrieval.inject(BOB, "physiotherapy Thursdays", 300, session="s5").value.items
        assert svc.verify().ok
    finally:
        svc.close()
    if request.param == "sqlite":
        yield Target(opener, url)
    else:
        yield Target(opener, url.replace("postgresql://", "postgresql+psycopg://", 1))


def _failure(target: Target) -> Any:
    svc = target.open()
    try:
        report = svc.verify()
    finally:
        svc.close()
    assert not report.ok and report.first_failure is not None
    return report.first_failure


CASES = [
    ("DELETE FROM deletion_fences", "deletion_fences", "(row)"),
    (
        "UPDATE deletion_fences SET lifted_at = '2026-01-01T00:00:00+00:00'",
        "deletion_fences",
        "lifted_at",
    ),
    ("UPDATE fence_features SET terms_json = '[]'", "fence_features", "terms_json"),
    ("UPDATE sessions SET opted_out = false WHERE id = 'quiet'", "sessions", "opted_out"),
    ("DELETE FROM memory_exclusions", "memory_exclusions", "(row)"),
    ("UPDATE tombstones SET purged = true", "tombstones", "purged"),
    ("DELETE FROM tombstones", "tombstones", "(row)"),
    ("UPDATE decisions SET to_status = 'active' WHERE action = 'delete'", "decisions", "to_status"),
    ("DELETE FROM memory_sources", "memory_sources", "(row)"),
    ("UPDATE memory_revisions SET actor = 'agent'", "memory_revisions", "actor"),
    ('UPDATE snapshots SET scope_json = \'{"user": "eve"}\'', "snapshots", "scope_json"),
    ("DELETE FROM snapshot_items", "snapshot_items", "(row)"),
]


@pytest.mark.parametrize(("statement", "table", "field"), CASES, ids=[c[0] for c in CASES])
def test_an_edit_of_a_governing_row_is_named(
    target: Target, statement: str, table: str, field: str
) -> None:
    assert target.sql(statement) >= 1
    failure = _failure(target)
    assert (failure.table, failure.field) == (table, field)


def test_forged_fences_and_opt_outs_change_nothing(target: Target) -> None:
    target.sql("DELETE FROM deletion_fences")
    target.sql("UPDATE sessions SET opted_out = false WHERE id = 'quiet'")
    svc = target.open()
    try:
        assert svc.memories.suggest(BOB, FENCED).value.outcome == OutcomeKind.REJECTED
        answer = svc.retrieval.inject(BOB, "physiotherapy Thursdays", 300, session="quiet").value
        assert KEPT not in answer.text
    finally:
        svc.close()
