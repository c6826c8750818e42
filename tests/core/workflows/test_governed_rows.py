"""#38 (R19, R24, R26): the rows that govern behaviour are tamper-evident.

Each test edits the real store file with `sqlite3` (what someone with write access to the
file but not the key can do), reopens the store as a new process would, and checks that
`verify` names table, row and field, and that behaviour does not follow the forged row.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core import ManualClock, MemoryService
from core.model.enums import OutcomeKind
from core.storage.store import DB_FILE_NAME
from tests.conftest import PASSPHRASE

BOB = {"user": "bob"}
FENCED = "Bob's staging database listens on port 5432 behind the bastion."
KEPT = "Bob's physiotherapy is on Thursdays at eight."


def _open(data_dir: Path, clock: ManualClock | None = None) -> MemoryService:
    return MemoryService.open(data_dir, passphrase=PASSPHRASE, clock=clock, prefer_keyring=False)


def _sql(data_dir: Path, sql: str, args: tuple[Any, ...] = ()) -> int:
    conn = sqlite3.connect(data_dir / DB_FILE_NAME, isolation_level=None)
    try:
        return conn.execute(sql, args).rowcount
    finally:
        conn.close()


def _one(data_dir: Path, sql: str, args: tuple[Any, ...] = ()) -> Any:
    conn = sqlite3.connect(data_dir / DB_FILE_NAME, isolation_level=None)
    try:
        return conn.execute(sql, args).fetchone()
    finally:
        conn.close()


@pytest.fixture
def store(data_dir: Path, clock: ManualClock) -> Iterator[dict[str, str]]:
    """A kept memory, a deleted (fenced) one, an opted-out session and an exclusion."""
    svc = _open(data_dir, clock)
    try:
        kept = svc.memories.remember(BOB, KEPT, session="s1").value.record
        gone = svc.memories.remember(BOB, FENCED, session="s1").value.record
        other = svc.memories.remember(
            BOB, "Bob's bike is a green Gazelle.", session="s1"
        ).value.record
        assert kept and gone and other
        svc.review.delete(gone.id, reason="moved")
        svc.events.set_session_opt_out("quiet", True)
        svc.review.exclude(other.id, "s9")
        assert svc.verify().ok
    finally:
        svc.close()
    (fp,) = _one(data_dir, "SELECT fingerprint FROM deletion_fences")
    yield {"kept": kept.id, "gone": gone.id, "other": other.id, "fp": fp}


def _failure(data_dir: Path) -> Any:
    svc = _open(data_dir)
    try:
        report = svc.verify()
    finally:
        svc.close()
    assert not report.ok, "verify did not notice the edit"
    assert report.first_failure is not None
    return report.first_failure


def _still_fenced(data_dir: Path) -> None:
    svc = _open(data_dir)
    try:
        outcome = svc.memories.suggest(BOB, FENCED).value
        assert outcome.outcome == OutcomeKind.REJECTED
        assert any("deletion fence" in r for r in outcome.reasons)
    finally:
        svc.close()


def test_a_deleted_fence_row_is_named_and_still_fences(
    store: dict[str, str], data_dir: Path
) -> None:
    assert _sql(data_dir, "DELETE FROM deletion_fences") == 1
    failure = _failure(data_dir)
    assert (failure.table, failure.row_id) == ("deletion_fences", store["fp"])
    assert "deleted outside" in failure.problem
    _still_fenced(data_dir)


def test_a_fence_lifted_in_the_file_is_named_and_still_fences(
    store: dict[str, str], data_dir: Path
) -> None:
    _sql(data_dir, "UPDATE deletion_fences SET lifted_at = '2026-01-01T00:00:00.000000+00:00'")
    failure = _failure(data_dir)
    assert (failure.table, failure.row_id, failure.field) == (
        "deletion_fences",
        store["fp"],
        "lifted_at",
    )
    _still_fenced(data_dir)


def test_emptied_fence_terms_are_named(store: dict[str, str], data_dir: Path) -> None:
    _sql(data_dir, "UPDATE fence_features SET terms_json = '[]', marks_json = '[]'")
    failure = _failure(data_dir)
    assert (failure.table, failure.row_id) == ("fence_features", store["fp"])
    assert failure.field in ("marks_json", "terms_json")
    _still_fenced(data_dir)


def test_deleted_fence_features_are_named(store: dict[str, str], data_dir: Path) -> None:
    _sql(data_dir, "DELETE FROM fence_features")
    failure = _failure(data_dir)
    assert (failure.table, failure.row_id) == ("fence_features", store["fp"])


def test_a_corrupted_fence_features_row_never_crashes_a_write(
    store: dict[str, str], data_dir: Path
) -> None:
    """Damage case: unparsable terms and a truncated embedding; every write still works."""
    _sql(data_dir, "UPDATE fence_features SET terms_json = '{not json', vector = x'00ff'")
    svc = _open(data_dir)
    try:
        made = svc.memories.remember(BOB, "Bob waters the ficus on Sundays.", session="s1")
        assert made.value.record is not None
        assert svc.memories.suggest(BOB, FENCED).value.outcome == OutcomeKind.REJECTED
        assert not svc.verify().ok
    finally:
        svc.close()


def test_an_opt_out_switched_off_in_the_file_is_named_and_still_holds(
    store: dict[str, str], data_dir: Path
) -> None:
    _sql(data_dir, "UPDATE sessions SET opted_out = 0 WHERE id = 'quiet'")
    failure = _failure(data_dir)
    assert (failure.table, failure.row_id, failure.field) == ("sessions", "quiet", "opted_out")
    svc = _open(data_dir)
    try:
        assert svc.events.get_session("quiet").opted_out
        answer = svc.retrieval.inject(BOB, "physiotherapy Thursdays", 300, session="quiet").value
        assert KEPT not in answer.text
    finally:
        svc.close()


def test_an_opt_out_switched_on_in_the_file_is_named_and_ignored(
    store: dict[str, str], data_dir: Path
) -> None:
    _sql(data_dir, "UPDATE sessions SET opted_out = 1 WHERE id = 's1'")
    failure = _failure(data_dir)
    assert (failure.table, failure.row_id, failure.field) == ("sessions", "s1", "opted_out")
    svc = _open(data_dir)
    try:
        answer = svc.retrieval.inject(BOB, "physiotherapy Thursdays", 300, session="s1").value
        assert KEPT in answer.text
    finally:
        svc.close()


def test_an_inserted_exclusion_is_named_and_ignored(store: dict[str, str], data_dir: Path) -> None:
    _sql(
        data_dir,
        "INSERT INTO memory_exclusions VALUES "
        "(?, 's2', '2026-01-01T00:00:00.000000+00:00', 'user')",
        (store["kept"],),
    )
    failure = _failure(data_dir)
    assert (failure.table, failure.row_id) == ("memory_exclusions", f"{store['kept']}/s2")
    svc = _open(data_dir)
    try:
        answer = svc.retrieval.inject(BOB, "physiotherapy Thursdays", 300, session="s2").value
        assert KEPT in answer.text
    finally:
        svc.close()


def test_a_deleted_exclusion_is_named_and_still_holds(
    store: dict[str, str], data_dir: Path
) -> None:
    _sql(data_dir, "DELETE FROM memory_exclusions")
    failure = _failure(data_dir)
    assert (failure.table, failure.row_id) == ("memory_exclusions", f"{store['other']}/s9")
    svc = _open(data_dir)
    try:
        answer = svc.retrieval.inject(BOB, "Bob bike Gazelle", 300, session="s9").value
        assert "Gazelle" not in answer.text
    finally:
        svc.close()


@pytest.mark.parametrize(
    ("sql", "field"),
    [
        ("DELETE FROM tombstones", "(row)"),
        ("UPDATE tombstones SET purged = 1", "purged"),
        ("UPDATE tombstones SET requested_by = 'agent'", "requested_by"),
    ],
)
def test_an_edited_tombstone_is_named(
    store: dict[str, str], data_dir: Path, sql: str, field: str
) -> None:
    assert _sql(data_dir, sql) == 1
    failure = _failure(data_dir)
    assert (failure.table, failure.row_id, failure.field) == ("tombstones", store["gone"], field)


def test_a_removed_record_is_named(store: dict[str, str], data_dir: Path) -> None:
    """Deleting the record itself (to make the tables the authority again) is found."""
    _sql(data_dir, "DELETE FROM store_meta WHERE key = 'governed_rows'")
    failure = _failure(data_dir)
    assert (failure.table, failure.row_id) == ("store_meta", "governed_rows")
    _sql(data_dir, "DELETE FROM store_meta WHERE key = 'governed_rows'")


def test_a_forged_record_is_named(store: dict[str, str], data_dir: Path) -> None:
    _sql(
        data_dir,
        "UPDATE store_meta SET value = replace(value, 'lifted_at\": null', 'lifted_at\": \"x\"')"
        " WHERE key = 'governed_rows'",
    )
    failure = _failure(data_dir)
    assert (failure.table, failure.row_id) == ("store_meta", "governed_rows")


def test_a_purged_tombstone_set_back_is_named(store: dict[str, str], data_dir: Path) -> None:
    svc = _open(data_dir)
    try:
        svc.review.delete(store["gone"], reason="purge it", purge=True)
        assert svc.verify().ok
    finally:
        svc.close()
    _sql(data_dir, "UPDATE tombstones SET purged = 0")
    failure = _failure(data_dir)
    assert (failure.table, failure.row_id, failure.field) == ("tombstones", store["gone"], "purged")


# --- decisions: bound to the hash chain through their memory_decision events ---------------


def _decision(data_dir: Path, memory_id: str, action: str) -> str:
    row = _one(
        data_dir,
        "SELECT id FROM decisions WHERE memory_id = ? AND action = ? ORDER BY ts DESC",
        (memory_id, action),
    )
    assert row is not None, f"no {action} decision"
    return str(row[0])


def test_an_edited_decision_status_is_named(store: dict[str, str], data_dir: Path) -> None:
    dec = _decision(data_dir, store["gone"], "delete")
    _sql(data_dir, "UPDATE decisions SET to_status = 'active' WHERE id = ?", (dec,))
    failure = _failure(data_dir)
    assert (failure.table, failure.row_id, failure.field) == ("decisions", dec, "to_status")


def test_a_forged_user_approval_is_named(data_dir: Path, clock: ManualClock) -> None:
    svc = _open(data_dir, clock)
    try:
        made = svc.memories.suggest(BOB, "Bob prefers tea over coffee in the morning.").value.record
        assert made is not None
    finally:
        svc.close()
    _sql(
        data_dir,
        "INSERT INTO decisions SELECT 'dec_forged', memory_id, ts, 'approve', 'candidate', "
        "'active', 'user', reason, policy_version, store_revision, event_id FROM decisions "
        "WHERE memory_id = ?",
        (made.id,),
    )
    failure = _failure(data_dir)
    # Its sealed reason cannot be forged either (bound to its row), so either is named.
    assert (failure.table, failure.row_id) == ("decisions", "dec_forged")
    assert failure.field in ("reason", "(row)")


def test_a_deleted_edit_decision_is_named(store: dict[str, str], data_dir: Path) -> None:
    svc = _open(data_dir)
    try:
        svc.review.edit(store["kept"], "Bob's physiotherapy moved to Fridays at eight.")
    finally:
        svc.close()
    dec = _decision(data_dir, store["kept"], "edit")
    _sql(data_dir, "DELETE FROM decisions WHERE id = ?", (dec,))
    failure = _failure(data_dir)
    assert (failure.table, failure.row_id, failure.field) == ("decisions", dec, "(row)")


# --- damage is reported and isolated, never a crash or a silent blank ----------------------


def test_a_rewound_store_revision_is_named_and_writes_go_on(
    store: dict[str, str], data_dir: Path
) -> None:
    """Before: every write failed on the change feed's primary key (UNIQUE constraint)."""
    _sql(data_dir, "UPDATE store_revision SET revision = 1")
    failure = _failure(data_dir)
    assert (failure.table, failure.row_id, failure.field) == ("store_revision", "1", "revision")
    svc = _open(data_dir)
    try:
        made = svc.memories.remember(BOB, "Bob waters the ficus on Sundays.", session="s1")
        assert made.value.record is not None
        assert svc.verify().ok  # the write continued after the feed
        reports = svc.events.list_events(session="memory-center:integrity", limit=100)
        assert any(e.data.get("table") == "store_revision" for e in reports)
    finally:
        svc.close()


def test_a_null_revision_content_is_damage_not_a_blank_memory(
    store: dict[str, str], data_dir: Path
) -> None:
    _sql(
        data_dir,
        "UPDATE memory_revisions SET content = NULL WHERE memory_id = ?",
        (store["kept"],),
    )
    failure = _failure(data_dir)
    assert (failure.table, failure.row_id, failure.field) == ("memories", store["kept"], "content")
    svc = _open(data_dir)
    try:
        listed = svc.memories.list_memories()
        assert store["kept"] not in {m.id for m in listed}
        assert all(m.content.strip() for m in listed)
        answer = svc.retrieval.inject(BOB, "physiotherapy Thursdays", 300, session="s1").value
        assert store["kept"] not in {i.memory_id for i in answer.items}
    finally:
        svc.close()


# --- memory_sources: bound to the chain through the decision events that announce them ----


def _event_of(data_dir: Path, session: str) -> str:
    row = _one(data_dir, "SELECT id FROM events WHERE session_id = ? ORDER BY position", (session,))
    assert row is not None
    return str(row[0])


def test_a_forged_source_link_is_named_and_not_followed_by_a_purge(
    store: dict[str, str], data_dir: Path
) -> None:
    """A row linking Bob's memory to Alice's event: a later --purge-events would have
    redacted Alice's event."""
    svc = _open(data_dir)
    try:
        alice = svc.memories.remember(
            {"user": "alice"}, "Alice's train leaves at seven.", session="a1"
        )
        assert alice.value.record is not None
    finally:
        svc.close()
    alice_event = _event_of(data_dir, "a1")
    _sql(data_dir, "INSERT INTO memory_sources VALUES (?, ?)", (store["kept"], alice_event))
    failure = _failure(data_dir)
    assert (failure.table, failure.row_id) == ("memory_sources", f"{store['kept']}/{alice_event}")
    svc = _open(data_dir)
    try:
        stone = svc.review.delete(store["kept"], reason="gone", purge=True, purge_events=True).value
        assert any("not followed" in line for line in stone.report)
        (event,) = [e for e in svc.events.list_events(session="a1") if e.id == alice_event]
        assert not event.redacted and "seven" in event.text
    finally:
        svc.close()


def test_a_deleted_source_link_is_named_and_still_purged(
    store: dict[str, str], data_dir: Path
) -> None:
    (source,) = _one(
        data_dir, "SELECT event_id FROM memory_sources WHERE memory_id = ?", (store["kept"],)
    )
    _sql(data_dir, "DELETE FROM memory_sources WHERE memory_id = ?", (store["kept"],))
    failure = _failure(data_dir)
    assert (failure.table, failure.row_id) == ("memory_sources", f"{store['kept']}/{source}")
    svc = _open(data_dir)
    try:
        svc.review.delete(store["kept"], reason="gone", purge=True, purge_events=True)
        (event,) = [e for e in svc.events.list_events(limit=1000) if e.id == source]
        assert event.redacted
    finally:
        svc.close()


# --- snapshots: clear columns and lineage rows against the sealed body --------------------


def _snapshot(data_dir: Path) -> str:
    svc = _open(data_dir)
    try:
        snap = svc.retrieval.inject(BOB, "physiotherapy Thursdays", 300, session="s5").value
        assert snap.items
        return snap.snapshot_id
    finally:
        svc.close()


def test_an_edited_snapshot_scope_is_named_and_not_believed(
    store: dict[str, str], data_dir: Path
) -> None:
    sid = _snapshot(data_dir)
    _sql(data_dir, 'UPDATE snapshots SET scope_json = \'{"user": "eve"}\' WHERE id = ?', (sid,))
    failure = _failure(data_dir)
    assert (failure.table, failure.row_id, failure.field) == ("snapshots", sid, "scope_json")
    svc = _open(data_dir)
    try:
        assert dict(svc.retrieval.get_snapshot(sid).scope.items_) == BOB
    finally:
        svc.close()


@pytest.mark.parametrize("edit", ["delete", "insert"])
def test_an_edited_snapshot_lineage_row_is_named(
    store: dict[str, str], data_dir: Path, edit: str
) -> None:
    sid = _snapshot(data_dir)
    if edit == "delete":
        assert _sql(data_dir, "DELETE FROM snapshot_items WHERE snapshot_id = ?", (sid,)) >= 1
    else:
        _sql(data_dir, "INSERT INTO snapshot_items VALUES (?, ?, 1, 1)", (sid, store["other"]))
    failure = _failure(data_dir)
    assert failure.table == "snapshot_items" and failure.row_id.startswith(f"{sid}/")


@pytest.mark.parametrize(
    ("sql", "field"),
    [
        ('UPDATE memory_revisions SET scope_json = \'{"user": "eve"}\'', "scope_json"),
        ("UPDATE memory_revisions SET ts = '2020-01-01T00:00:00.000000+00:00'", "ts"),
        ("UPDATE memory_revisions SET actor = 'agent'", "actor"),
    ],
)
def test_an_edited_revision_row_is_named(
    store: dict[str, str], data_dir: Path, sql: str, field: str
) -> None:
    _sql(data_dir, f"{sql} WHERE memory_id = ?", (store["kept"],))
    failure = _failure(data_dir)
    assert (failure.table, failure.row_id, failure.field) == (
        "memory_revisions",
        f"{store['kept']}/1",
        field,
    )


def test_a_deleted_older_revision_is_named(store: dict[str, str], data_dir: Path) -> None:
    svc = _open(data_dir)
    try:
        svc.review.edit(store["kept"], "Bob's physiotherapy moved to Fridays at eight.")
    finally:
        svc.close()
    _sql(
        data_dir,
        "DELETE FROM memory_revisions WHERE memory_id = ? AND revision = 1",
        (store["kept"],),
    )
    failure = _failure(data_dir)
    assert (failure.table, failure.row_id, failure.field) == (
        "memory_revisions",
        f"{store['kept']}/1",
        "(row)",
    )
