"""The log refuses in-place changes, and `verify` finds the first tampered event (R1, R3)."""

from __future__ import annotations

import base64
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from core import Event, MemoryService, NewEvent
from core.crypto.codec import Codec
from core.crypto.keys import KEY_FILE_NAME, PassphraseKeyStore
from core.log.hash_chain import GENESIS_HASH, ChainLink, find_break, payload_commitment
from core.storage.event_log import REDACTED_TEXT, payload_aad
from core.storage.store import DB_FILE_NAME
from tests.conftest import PASSPHRASE


def ev(text: str, session: str = "s1") -> NewEvent:
    """A valid event."""
    return NewEvent(session=session, actor="user", trust="user", scope={"user": "u1"}, text=text)


@pytest.fixture
def five(service: MemoryService) -> list[Event]:
    """Five events in two sessions."""
    return service.events.append_events([ev(f"event {i}", f"s{i % 2}") for i in range(1, 6)]).value


@pytest.fixture
def raw(service: MemoryService, data_dir: Path) -> Iterator[sqlite3.Connection]:
    """A plain sqlite3 connection to the store file, as an attacker with file access has."""
    conn = sqlite3.connect(data_dir / DB_FILE_NAME, isolation_level=None)
    yield conn
    conn.close()


def _codec(data_dir: Path) -> Codec:
    return Codec(PassphraseKeyStore(data_dir / KEY_FILE_NAME, PASSPHRASE).load())


def _payload(raw: sqlite3.Connection, event_id: str) -> bytes:
    row = raw.execute("SELECT ciphertext FROM event_payloads WHERE event_id = ?", (event_id,))
    return bytes(row.fetchone()[0])


def _set_payload(raw: sqlite3.Connection, event_id: str, blob: bytes) -> None:
    raw.execute("UPDATE event_payloads SET ciphertext = ? WHERE event_id = ?", (blob, event_id))


# --- the database refuses changes --------------------------------------------------------


def test_raw_update_of_an_event_is_refused(five: list[Event], raw: sqlite3.Connection) -> None:
    """R1: UPDATE on events fails in the database itself."""
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        raw.execute("UPDATE events SET actor = 'tool' WHERE id = ?", (five[2].id,))


def test_raw_delete_of_an_event_is_refused(five: list[Event], raw: sqlite3.Connection) -> None:
    """R1: DELETE on events fails in the database itself."""
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        raw.execute("DELETE FROM events WHERE id = ?", (five[2].id,))
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        raw.execute("DELETE FROM events")


def test_raw_delete_of_a_payload_is_refused(five: list[Event], raw: sqlite3.Connection) -> None:
    """R1: DELETE on event_payloads fails: payloads may be redacted, never removed."""
    with pytest.raises(sqlite3.DatabaseError, match="never deleted"):
        raw.execute("DELETE FROM event_payloads WHERE event_id = ?", (five[0].id,))


def test_raw_move_of_a_payload_to_another_event_is_refused(
    five: list[Event], raw: sqlite3.Connection
) -> None:
    """R1: a payload row cannot be re-pointed at another event id."""
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        raw.execute(
            "UPDATE event_payloads SET event_id = 'ev_other' WHERE event_id = ?", (five[0].id,)
        )


def test_refused_changes_leave_the_log_intact(
    service: MemoryService, five: list[Event], raw: sqlite3.Connection
) -> None:
    """R1: after refused UPDATE/DELETE attempts, every event is unchanged and verifies."""
    for sql in ("UPDATE events SET ts = 'x'", "DELETE FROM events", "DELETE FROM event_payloads"):
        with pytest.raises(sqlite3.DatabaseError):
            raw.execute(sql)
    assert service.events.list_events() == five
    assert service.verify().ok


# --- verify ------------------------------------------------------------------------------


def test_verify_on_an_intact_store_reports_ok_and_counts(
    service: MemoryService, five: list[Event]
) -> None:
    """R3: an untouched log verifies, counting every event and decrypted payload."""
    report = service.verify()
    assert report.ok
    assert (report.events_checked, report.rows_decrypted, report.redacted_events) == (5, 5, 0)
    assert report.first_failure is None


def test_verify_on_an_empty_store_is_ok(service: MemoryService) -> None:
    """R3: an empty log verifies trivially."""
    report = service.verify()
    assert report.ok and report.events_checked == 0


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("actor", "tool"),
        ("ts", "2020-01-01T00:00:00.000000+00:00"),
        ("trust", "untrusted"),
        ("scope_json", '{"user":"u2"}'),
        ("kind", "error"),
        ("session_id", "s9"),
        ("seq", 7),
    ],
)
def test_changed_event_field_breaks_the_chain_at_that_event(
    service: MemoryService, five: list[Event], raw: sqlite3.Connection, column: str, value: object
) -> None:
    """R3: an attacker who drops the trigger and edits event 3 is caught at event 3."""
    raw.execute("DROP TRIGGER events_no_update")
    raw.execute(f"UPDATE events SET {column} = ? WHERE id = ?", (value, five[2].id))
    report = service.verify()
    assert not report.ok
    assert report.first_failure is not None
    assert report.first_failure.event_id == five[2].id
    assert report.first_failure.position == 3
    assert "hash" in report.first_failure.problem
    assert report.events_checked == 2


def test_rehashed_edit_is_caught_at_the_next_event(
    service: MemoryService, five: list[Event], raw: sqlite3.Connection
) -> None:
    """R3: recomputing the edited event's own hash breaks the next event's back-link."""
    raw.execute("DROP TRIGGER events_no_update")
    raw.execute("UPDATE events SET hash = ? WHERE id = ?", ("f" * 64, five[2].id))
    report = service.verify()
    assert report.first_failure is not None
    assert report.first_failure.event_id == five[2].id
    raw.execute("UPDATE events SET hash = ? WHERE id = ?", (five[2].hash, five[2].id))
    raw.execute("UPDATE events SET prev_hash = ? WHERE id = ?", ("e" * 64, five[3].id))
    report = service.verify()
    assert report.first_failure is not None
    assert report.first_failure.event_id == five[3].id
    assert "prev_hash" in report.first_failure.problem


def test_deleted_middle_event_is_caught_at_the_following_event(
    service: MemoryService, five: list[Event], raw: sqlite3.Connection
) -> None:
    """R3: removing event 3 (triggers dropped) is reported at event 4."""
    raw.execute("DROP TRIGGER events_no_delete")
    raw.execute("DROP TRIGGER event_payloads_no_delete")
    raw.execute("DELETE FROM event_payloads WHERE event_id = ?", (five[2].id,))
    raw.execute("DELETE FROM events WHERE id = ?", (five[2].id,))
    report = service.verify()
    assert not report.ok
    assert report.first_failure is not None
    assert report.first_failure.event_id == five[3].id


def test_flipped_payload_byte_is_reported_at_that_event(
    service: MemoryService, five: list[Event], raw: sqlite3.Connection
) -> None:
    """R3, R24: one flipped ciphertext byte fails decryption and is reported at its event."""
    blob = bytearray(_payload(raw, five[2].id))
    blob[-5] ^= 0x40
    _set_payload(raw, five[2].id, bytes(blob))
    report = service.verify()
    assert not report.ok
    assert report.first_failure is not None
    assert report.first_failure.event_id == five[2].id
    assert "integrity check failed" in report.first_failure.problem


def test_damaged_payload_header_is_reported_not_raised(
    service: MemoryService, five: list[Event], raw: sqlite3.Connection
) -> None:
    """R3: a payload whose header key id was altered is reported by verify at its event."""
    blob = bytearray(_payload(raw, five[2].id))
    blob[6] = ord("z") if blob[6] != ord("z") else ord("y")
    _set_payload(raw, five[2].id, bytes(blob))
    report = service.verify()
    assert not report.ok
    assert report.first_failure is not None
    assert report.first_failure.event_id == five[2].id


def test_swapped_payloads_are_reported_at_the_first_of_them(
    service: MemoryService, five: list[Event], raw: sqlite3.Connection
) -> None:
    """R3, R24: payloads swapped between events fail their AAD; the earlier one is reported."""
    third, fourth = _payload(raw, five[2].id), _payload(raw, five[3].id)
    _set_payload(raw, five[2].id, fourth)
    _set_payload(raw, five[3].id, third)
    report = service.verify()
    assert report.first_failure is not None
    assert report.first_failure.event_id == five[2].id
    # The payload is what failed: its table and field are named (#10).
    assert (report.first_failure.table, report.first_failure.field) == (
        "event_payloads",
        "ciphertext",
    )
    assert report.events_checked == 2


def test_validly_sealed_forged_payload_fails_the_commitment(
    service: MemoryService, five: list[Event], raw: sqlite3.Connection, data_dir: Path
) -> None:
    """R3: even with the key, replacing a payload is caught by the chain's commitment."""
    forged = {"salt": base64.b64encode(b"0" * 16).decode(), "text": "forged", "data": {}}
    blob = _codec(data_dir).seal_json(forged, payload_aad(five[1].id))
    _set_payload(raw, five[1].id, blob)
    report = service.verify()
    assert report.first_failure is not None
    assert report.first_failure.event_id == five[1].id
    assert "commitment" in report.first_failure.problem


def test_malformed_sealed_payload_is_reported(
    service: MemoryService, five: list[Event], raw: sqlite3.Connection, data_dir: Path
) -> None:
    """R3: a decryptable payload without the expected fields is reported, not raised."""
    blob = _codec(data_dir).seal_json({"text": "no salt"}, payload_aad(five[4].id))
    _set_payload(raw, five[4].id, blob)
    report = service.verify()
    assert report.first_failure is not None
    assert report.first_failure.event_id == five[4].id
    assert "malformed" in report.first_failure.problem


def test_redaction_without_a_redaction_event_is_reported(
    service: MemoryService, five: list[Event], raw: sqlite3.Connection
) -> None:
    """R3: blanking a payload behind the product's back is tampering, and verify says where."""
    raw.execute(
        "UPDATE event_payloads SET ciphertext = x'00', redacted_at = '2026-03-02T10:00:00+00:00' "
        "WHERE event_id = ?",
        (five[1].id,),
    )
    report = service.verify()
    assert not report.ok
    assert report.first_failure is not None
    assert report.first_failure.event_id == five[1].id
    assert "redaction event" in report.first_failure.problem
    (event,) = service.events.get_events([five[1].id])
    assert event.redacted and event.text == REDACTED_TEXT and event.data == {}


def test_purged_source_events_still_verify(service: MemoryService) -> None:
    """R3, R19: a compliance purge redacts source payloads and the chain still verifies."""
    out = service.memories.remember(
        {"user": "u"}, "Remember the locker code is in the blue folder."
    )
    record = out.value.record
    assert record is not None
    service.review.delete(record.id, reason="user asked", purge=True, purge_events=True)
    report = service.verify()
    assert report.ok, report.first_failure
    assert report.redacted_events == len(record.source_event_ids)
    (event,) = service.events.get_events(list(record.source_event_ids))
    assert event.redacted


def test_truncating_the_log_is_detected(
    service: MemoryService, five: list[Event], raw: sqlite3.Connection
) -> None:
    """R3: cutting events off the end is caught by the sealed chain head."""
    raw.execute("DROP TRIGGER events_no_delete")
    raw.execute("DROP TRIGGER event_payloads_no_delete")
    raw.execute("DELETE FROM event_payloads WHERE event_id = ?", (five[4].id,))
    raw.execute("DELETE FROM events WHERE id = ?", (five[4].id,))
    report = service.verify()
    assert not report.ok
    assert report.first_failure is not None
    assert "truncated" in report.first_failure.problem


# --- the chain itself ------------------------------------------------------------------


def _chain(n: int) -> list[tuple[ChainLink, str]]:
    links, prev = [], GENESIS_HASH
    for i in range(1, n + 1):
        link = ChainLink(
            id=f"ev_{i}",
            position=i,
            session_id="s1",
            seq=i,
            ts="2026-03-02T09:00:00.000000+00:00",
            kind="message",
            actor="user",
            trust="user",
            source=None,
            scope_json='{"user":"u1"}',
            refs_json="[]",
            by=None,
            commitment=payload_commitment(b"salt", f"payload {i}".encode()),
            prev_hash=prev,
        )
        prev = link.digest()
        links.append((link, prev))
    return links


def test_find_break_accepts_an_intact_chain() -> None:
    """R3: a correctly linked chain has no break."""
    assert find_break(_chain(4)) is None
    assert find_break([]) is None


def test_find_break_reports_a_position_gap() -> None:
    """R3: a missing position is reported at the event after the gap."""
    links = _chain(4)
    del links[1]
    brk = find_break(links)
    assert brk is not None and brk.event_id == "ev_3" and "position gap" in brk.problem


def test_find_break_reports_a_wrong_back_link_and_wrong_hash() -> None:
    """R3: a wrong start hash or a wrong stored hash is reported at that event."""
    links = _chain(3)
    brk = find_break(links, start_hash="1" * 64)
    assert brk is not None and brk.event_id == "ev_1" and "prev_hash" in brk.problem
    links[2] = (links[2][0], "0" * 64)
    brk = find_break(links)
    assert brk is not None and (brk.event_id, brk.position) == ("ev_3", 3)
    assert "does not match its hash" in brk.problem


def test_payload_commitment_binds_salt_and_payload() -> None:
    """R3: the commitment changes with the salt and with any payload byte."""
    base = payload_commitment(b"salt", b"payload")
    assert base == payload_commitment(b"salt", b"payload")
    assert base != payload_commitment(b"salu", b"payload")
    assert base != payload_commitment(b"salt", b"payloae")
    assert payload_commitment(b"ab", b"c") != payload_commitment(b"a", b"bc")
