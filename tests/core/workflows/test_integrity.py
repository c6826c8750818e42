"""#10 (R3, R24): verify checks everything, clear metadata is bound, damage is isolated.

Every test tampers with the real store file through a separate SQLite connection (what an
attacker with write access to the file can do), then reopens the store as a new process
would and checks what the reads and `verify` say.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core import DamagedRowError, ManualClock, MemoryService
from core.storage.sealed import SEALED
from core.storage.store import DB_FILE_NAME
from tests.conftest import PASSPHRASE

BOB = {"user": "bob"}
ALICE = {"user": "alice"}


def _open(data_dir: Path, clock: ManualClock | None = None) -> MemoryService:
    return MemoryService.open(data_dir, passphrase=PASSPHRASE, clock=clock, prefer_keyring=False)


def _raw(data_dir: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(data_dir / DB_FILE_NAME, isolation_level=None)
    return conn


def _sql(data_dir: Path, *statements: tuple[str, tuple[Any, ...]]) -> None:
    conn = _raw(data_dir)
    try:
        for sql, args in statements:
            conn.execute(sql, args)
    finally:
        conn.close()


def _flip_last_byte(
    data_dir: Path, table: str, column: str, where: str, args: tuple[Any, ...]
) -> None:
    conn = _raw(data_dir)
    try:
        (blob,) = conn.execute(f"SELECT {column} FROM {table} WHERE {where}", args).fetchone()
        if table == "store_meta":
            raw = bytearray(bytes.fromhex(blob))
            raw[-1] ^= 0x01
            value: Any = raw.hex()
        else:
            raw = bytearray(blob)
            raw[-1] ^= 0x01
            value = bytes(raw)
        conn.execute(f"UPDATE {table} SET {column} = ? WHERE {where}", (value, *args))
    finally:
        conn.close()


@pytest.fixture
def store(data_dir: Path, clock: ManualClock) -> Iterator[dict[str, str]]:
    """A store with a user memory, a second one (with a speaker), a snapshot, a decision and a
    tombstone."""
    svc = _open(data_dir, clock)
    try:
        bob = svc.memories.remember(BOB, "Bob's physiotherapy is on Thursdays at 8.", session="s1")
        other = svc.memories.remember(
            BOB, "Bob keeps the passport in the blue folder.", session="s1", speaker="Bob"
        )
        gone = svc.memories.remember(BOB, "Bob's old gym was FitBox Mitte.", session="s1")
        assert bob.value.record and other.value.record and gone.value.record
        snap = svc.retrieval.inject(BOB, "physiotherapy Thursday", 300, session="s2").value
        svc.review.delete(gone.value.record.id, reason="moved gyms")
        ids = {
            "bob": bob.value.record.id,
            "other": other.value.record.id,
            "gone": gone.value.record.id,
            "snapshot": snap.snapshot_id,
        }
        assert svc.verify().ok
    finally:
        svc.close()
    yield ids


def _verify(data_dir: Path) -> Any:
    svc = _open(data_dir)
    try:
        return svc.verify()
    finally:
        svc.close()


# --- verify opens every sealed column -----------------------------------------------------


@pytest.mark.parametrize("column", SEALED, ids=lambda c: f"{c.table.name}.{c.column}")
def test_verify_names_a_flipped_byte_in_every_sealed_column(
    store: dict[str, str], data_dir: Path, column: Any
) -> None:
    """A byte flipped in any registered sealed column is found, named by table, row, field."""
    table, field = column.table.name, column.column
    conn = _raw(data_dir)
    try:
        keys = ", ".join(column.pk)
        row = conn.execute(
            f"SELECT {keys} FROM {table} WHERE {field} IS NOT NULL ORDER BY {keys} LIMIT 1"
        ).fetchone()
    finally:
        conn.close()
    assert row is not None, f"the fixture wrote no {table}.{field}"
    where = " AND ".join(f"{k} = ?" for k in column.pk)
    _flip_last_byte(data_dir, table, field, where, tuple(row))
    report = _verify(data_dir)
    assert not report.ok
    failure = report.first_failure
    assert failure is not None and failure.table == table
    assert failure.field == field
    assert failure.row_id == "/".join(str(v) for v in row)


def test_verify_opens_the_sealed_vector_file(store: dict[str, str], data_dir: Path) -> None:
    """The vector index file is sealed too: a flipped byte there is named (and repairable)."""
    path = data_dir / "index" / "vectors.mcidx"
    assert path.exists()
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0x01
    path.write_bytes(bytes(raw))
    report = _verify(data_dir)
    assert not report.ok and report.first_failure is not None
    assert report.first_failure.table == "index_files"
    assert "index rebuild" in report.first_failure.problem


def test_verify_counts_what_it_checked(store: dict[str, str], data_dir: Path) -> None:
    """An intact store: every sealed value and every memory binding is counted."""
    report = _verify(data_dir)
    assert report.ok and report.sqlite == "ok"
    assert report.records_checked == 3
    # 3 revisions, >= 3 decisions, 1 snapshot, tombstone reason and report, 1 index file
    assert report.sealed_values >= 3 + 3 + 1 + 2 + 1


def test_verify_reports_a_damaged_table_page(store: dict[str, str], data_dir: Path) -> None:
    """64 bytes overwritten inside a table page: SQLite's own check finds it, in one line."""
    conn = _raw(data_dir)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        (root,) = conn.execute(
            "SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = 'memories'"
        ).fetchone()
    finally:
        conn.close()
    with open(data_dir / DB_FILE_NAME, "r+b") as handle:
        handle.seek((root - 1) * page_size + 8)  # the cell pointers of the page
        handle.write(b"\xff" * 64)
    report = _verify(data_dir)
    assert not report.ok
    assert report.first_failure is not None and report.first_failure.table == "sqlite"
    assert report.sqlite != "ok" and "\n" not in report.sqlite


# --- clear metadata is bound to the record -------------------------------------------------


def test_rebinding_bobs_memory_to_alice_does_not_leak_it(
    store: dict[str, str], data_dir: Path
) -> None:
    """scope_json and memory_scopes moved from bob to alice: Alice never sees it."""
    mid = store["bob"]
    _sql(
        data_dir,
        ("UPDATE memories SET scope_json = ? WHERE id = ?", ('{"user":"alice"}', mid)),
        ("UPDATE memory_scopes SET value = 'alice' WHERE memory_id = ?", (mid,)),
    )
    svc = _open(data_dir)
    try:
        assert svc.retrieval.search_memory(ALICE, "physiotherapy Thursday") == []
        assert all(
            i.memory_id != mid
            for i in svc.retrieval.inject(ALICE, "physiotherapy", 300).value.items
        )
        assert mid not in {r.id for r in svc.memories.list_memories()}
        report = svc.verify()
        assert not report.ok and report.first_failure is not None
        assert (report.first_failure.table, report.first_failure.row_id) == ("memories", mid)
        assert report.first_failure.field == "binding"
        assert svc.status().damaged_rows == 1
        with pytest.raises(DamagedRowError, match=mid):
            svc.memories.get_memory(mid)
    finally:
        svc.close()


def test_lifting_a_quarantine_with_sql_does_not_get_it_injected(
    store: dict[str, str], data_dir: Path
) -> None:
    """status quarantined -> active by UPDATE: not injected, not searchable, verify fails."""
    svc = _open(data_dir)
    try:
        svc.review.quarantine(store["bob"], "looks planted")
    finally:
        svc.close()
    _sql(data_dir, ("UPDATE memories SET status = 'active' WHERE id = ?", (store["bob"],)))
    svc = _open(data_dir)
    try:
        injected = svc.retrieval.inject(BOB, "physiotherapy Thursday", 300).value
        assert all(i.memory_id != store["bob"] for i in injected.items)
        hits = svc.retrieval.search_memory(BOB, "physiotherapy Thursday")
        assert store["bob"] not in {h.memory_id for h in hits}
        assert not svc.verify().ok
    finally:
        svc.close()


BOUND_CHANGES = [
    ("kind", "'decision'"),
    ("status", "'disabled'"),
    ("source_trust", "'untrusted'"),
    ("flags_json", "'[\"verified\"]'"),
    ("expires_at", "'2099-01-01T00:00:00.000000+00:00'"),
    ("conflict_set", "'cs_forged'"),
    ("supersedes", "'mem_forged'"),
    ("superseded_by", "'mem_forged'"),
    ("confidence", "0.01"),
    ("revision", "revision + 0"),  # a no-op write must still verify
    ("sensitivity", "'secret'"),
    ("owner", "'mallory'"),
    ("valid_from", "'2000-01-01T00:00:00.000000+00:00'"),
    ("fingerprint", "'0000'"),
]


@pytest.mark.parametrize(("column", "value"), BOUND_CHANGES, ids=[c for c, _ in BOUND_CHANGES])
def test_every_bound_field_changed_by_sql_is_damage(
    store: dict[str, str], data_dir: Path, column: str, value: str
) -> None:
    """Each bound field: a raw change makes the row damaged (excluded, reported, verify fails)."""
    mid = store["other"]
    _sql(data_dir, (f"UPDATE memories SET {column} = {value} WHERE id = ?", (mid,)))
    svc = _open(data_dir)
    try:
        listed = {r.id for r in svc.memories.list_memories()}
        report = svc.verify()
        if column == "revision":
            assert report.ok and mid in listed
            return
        assert mid not in listed and store["bob"] in listed
        assert not report.ok and report.first_failure is not None
        assert report.first_failure.row_id == mid
        assert svc.status().damaged_rows == 1
    finally:
        svc.close()


def test_scope_index_rows_alone_changed_is_found(store: dict[str, str], data_dir: Path) -> None:
    """memory_scopes rows changed without scope_json: scope filters re-check, verify names it."""
    _sql(
        data_dir,
        ("UPDATE memory_scopes SET value = 'alice' WHERE memory_id = ?", (store["bob"],)),
    )
    from core import MemoryFilter

    svc = _open(data_dir)
    try:
        found = svc.memories.list_memories(MemoryFilter(scope_contains={"user": "alice"}))
        assert found == []
        report = svc.verify()
        assert not report.ok and report.first_failure is not None
        assert report.first_failure.field == "memory_scopes"
    finally:
        svc.close()


def test_bindings_survive_key_rotation(store: dict[str, str], data_dir: Path) -> None:
    """The MAC key comes from the fingerprint key, which rotation keeps."""
    svc = _open(data_dir)
    try:
        before = {r.id for r in svc.memories.list_memories()}
        svc.keys.rotate()
        assert svc.verify().ok
    finally:
        svc.close()
    svc = _open(data_dir)
    try:
        assert {r.id for r in svc.memories.list_memories()} == before
        assert svc.verify().ok
        assert svc.retrieval.search_memory(BOB, "physiotherapy Thursday")
    finally:
        svc.close()


def _make_v3(data_dir: Path) -> None:
    """Turn the store back into what version 3 wrote: no binding column, key check v1."""
    from core import SystemClock
    from core.storage.opener import KEY_CHECK_UNBOUND, key_check_aad, open_store

    opened = open_store(data_dir, SystemClock(), passphrase=PASSPHRASE, create=False)
    store_id = opened.store.meta("store_id") or ""
    old_check = opened.store.codec.seal(KEY_CHECK_UNBOUND, key_check_aad(store_id)).hex()
    opened.store.dispose()
    _sql(
        data_dir,
        ("ALTER TABLE memories DROP COLUMN binding", ()),
        ("DELETE FROM schema_migrations WHERE version >= 4", ()),
        ("UPDATE store_meta SET value = ? WHERE key = 'key_check'", (old_check,)),
    )


def test_upgrade_binds_existing_rows_once(store: dict[str, str], data_dir: Path) -> None:
    """Migration 4 adds the column; the first open with the key binds every row, once."""
    _make_v3(data_dir)
    svc = _open(data_dir)
    try:
        assert svc.status().schema_version >= 4
        assert svc.verify().ok
        assert len(svc.memories.list_memories()) == 3
    finally:
        svc.close()
    # Afterwards a binding set to NULL is damage: it is never silently bound again.
    _sql(data_dir, ("UPDATE memories SET binding = NULL WHERE id = ?", (store["bob"],)))
    svc = _open(data_dir)
    try:
        assert store["bob"] not in {r.id for r in svc.memories.list_memories()}
        assert not svc.verify().ok
    finally:
        svc.close()


# --- damage is isolated --------------------------------------------------------------------


def test_one_damaged_ciphertext_does_not_break_reads_for_everyone(
    store: dict[str, str], data_dir: Path
) -> None:
    """A flipped byte in one memory's content: list, search and inject keep working for the
    rest, the row is reported once as a security event and counted in status."""
    _flip_last_byte(
        data_dir,
        "memory_revisions",
        "content",
        "memory_id = ? AND revision = 1",
        (store["other"],),
    )
    svc = _open(data_dir)
    try:
        assert {r.id for r in svc.memories.list_memories()} == {store["bob"], store["gone"]}
        assert [
            h.memory_id for h in svc.retrieval.search_memory(BOB, "physiotherapy Thursday")
        ] == [store["bob"]]
        result = svc.retrieval.inject(BOB, "physiotherapy Thursday", 300).value
        assert not result.degraded and [i.memory_id for i in result.items] == [store["bob"]]
        svc.memories.list_memories()
        events = [e for e in svc.events.security_events() if "damaged_row" in e.finding_types]
        assert [e.memory_id for e in events] == [store["other"]]
        assert svc.status().damaged_rows == 1
    finally:
        svc.close()
    again = _open(data_dir)  # another process meets it too: still one report
    try:
        again.memories.list_memories()
        assert again.status().damaged_rows == 1
        assert (
            len([e for e in again.events.security_events() if "damaged_row" in e.finding_types])
            == 1
        )
    finally:
        again.close()


def test_an_event_with_an_unknown_actor_is_damage_not_a_crash(
    service: MemoryService, data_dir: Path
) -> None:
    """actor 'robot' written into the clear column: listing skips and reports it."""
    from core import NewEvent

    first = service.events.append_event(NewEvent("s1", "user", "user", BOB, "first")).value
    second = service.events.append_event(NewEvent("s1", "user", "user", BOB, "second")).value
    _sql(
        data_dir,
        ("DROP TRIGGER events_no_update", ()),
        ("UPDATE events SET actor = 'robot' WHERE id = ?", (first.id,)),
    )
    listed = service.events.list_events(session="s1")
    assert [e.id for e in listed] == [second.id]
    with pytest.raises(DamagedRowError, match="robot"):
        service.events.get_events([first.id])
    assert service.status().damaged_rows == 1
    report = service.verify()
    assert not report.ok and report.first_failure is not None
    assert report.first_failure.event_id == first.id
    assert json.loads(json.dumps(report.first_failure.line()))


def test_rolling_a_row_back_to_an_older_valid_state_is_found_by_verify(
    store: dict[str, str], data_dir: Path
) -> None:
    """Replay: the active row (with its valid MAC) copied back over the quarantined one. The
    binding verifies, but the hash-chained log's last decision says quarantined."""
    columns = "status, updated_at, binding, flags_json"
    conn = _raw(data_dir)
    try:
        saved = conn.execute(
            f"SELECT {columns} FROM memories WHERE id = ?", (store["bob"],)
        ).fetchone()
    finally:
        conn.close()
    svc = _open(data_dir)
    try:
        svc.review.quarantine(store["bob"], "looks planted")
    finally:
        svc.close()
    _sql(
        data_dir,
        (
            "UPDATE memories SET status = ?, updated_at = ?, binding = ?, flags_json = ? "
            "WHERE id = ?",
            (*saved, store["bob"]),
        ),
    )
    report = _verify(data_dir)
    assert not report.ok and report.first_failure is not None
    assert (report.first_failure.row_id, report.first_failure.field) == (store["bob"], "status")


def test_a_memory_row_deleted_with_sql_is_found_by_verify(
    store: dict[str, str], data_dir: Path
) -> None:
    """The log's decisions name the memory; its row (and revisions) gone is reported."""
    mid = store["other"]
    _sql(
        data_dir,
        ("DELETE FROM memory_scopes WHERE memory_id = ?", (mid,)),
        ("DELETE FROM memory_sources WHERE memory_id = ?", (mid,)),
        ("DELETE FROM memory_revisions WHERE memory_id = ?", (mid,)),
        ("DELETE FROM decisions WHERE memory_id = ?", (mid,)),
        ("DELETE FROM snapshot_items WHERE memory_id = ?", (mid,)),
        ("DELETE FROM memories WHERE id = ?", (mid,)),
    )
    report = _verify(data_dir)
    assert not report.ok and report.first_failure is not None
    assert report.first_failure.row_id == mid and "gone" in report.first_failure.problem


def test_a_deleted_current_revision_is_found_by_verify(
    store: dict[str, str], data_dir: Path
) -> None:
    """Reads silently lose a memory whose current revision row is gone; verify names it."""
    mid = store["other"]
    _sql(data_dir, ("DELETE FROM memory_revisions WHERE memory_id = ?", (mid,)))
    report = _verify(data_dir)
    assert not report.ok and report.first_failure is not None
    assert (report.first_failure.row_id, report.first_failure.field) == (mid, "revision")


def test_policy_settings_changed_with_sql_are_ignored_and_reported(
    service: MemoryService, data_dir: Path
) -> None:
    """Settings decide authority (e.g. confirming global memories): bound by one MAC."""
    service.policy.update_settings(inferred_ttl_days=7.0)
    service.close()
    conn = _raw(data_dir)
    try:
        (raw,) = conn.execute("SELECT value_json FROM settings WHERE key = 'policy'").fetchone()
        doc = json.loads(raw)
        doc["untrusted_as_quarantine"] = False  # let web pages write active memory
        conn.execute("UPDATE settings SET value_json = ? WHERE key = 'policy'", (json.dumps(doc),))
    finally:
        conn.close()
    svc = _open(data_dir)
    try:
        from core import PolicySettings

        # The defaults, not the forgery (resetting to the defaults is all it can do).
        assert svc.policy.settings() == PolicySettings()
        report = svc.verify()
        assert not report.ok and report.first_failure is not None
        assert report.first_failure.table == "settings"
        svc.memories.list_memories()
        assert svc.status().damaged_rows == 1
        svc.policy.update_settings(inferred_ttl_days=7.0)  # saved again: bound again
        assert svc.verify().ok
    finally:
        svc.close()


def test_a_damaged_snapshot_does_not_hide_the_sessions_other_snapshots(
    service: MemoryService, data_dir: Path
) -> None:
    """One snapshot body altered: the session's snapshot list keeps the others."""
    service.memories.remember(BOB, "Bob waters the ferns on Sundays.", session="s1")
    first = service.retrieval.inject(BOB, "ferns", 200, session="s5").value.snapshot_id
    second = service.retrieval.inject(BOB, "ferns Sunday", 200, session="s5").value.snapshot_id
    _flip_last_byte(data_dir, "snapshots", "body", "id = ?", (first,))
    assert [s.id for s in service.retrieval.list_snapshots("s5")] == [second]
    assert service.status().damaged_rows == 1


def test_a_record_changed_by_sql_while_the_policy_holds_it_is_not_bound_again(
    data_dir: Path, clock: ManualClock
) -> None:
    """The policy compares with its in-memory neighbours (#13); a contradiction then
    changes the older record. If SQL changed that row meanwhile, the write is refused with
    the damage named, instead of sealing the forged metadata with a fresh binding."""
    svc = _open(data_dir, clock)
    try:
        old = svc.memories.remember(BOB, "Bob's team uses pnpm for the web app.").value.record
        assert old is not None
        svc.memories.remember(
            BOB, "Bob keeps the passport in the blue folder."
        )  # the index is loaded
        _sql(data_dir, ("UPDATE memories SET owner = 'mallory' WHERE id = ?", (old.id,)))
        revision = svc.events.revision()
        with pytest.raises(DamagedRowError, match=old.id):
            svc.memories.remember(BOB, "Bob's team now uses yarn instead of pnpm for the web app.")
        assert svc.events.revision() == revision  # nothing of the refused write was kept
        assert not svc.verify().ok  # still reported as damage, not re-bound
    finally:
        svc.close()
