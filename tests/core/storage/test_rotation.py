"""Key rotation: everything re-encrypted under a new key, resumably (R24)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from core import ChangeKind, ManualClock, MemoryService, NewEvent
from core.crypto.codec import read_header
from core.crypto.keys import KEY_FILE_NAME, PassphraseKeyStore
from core.storage.rotation import RotationInterruptedError
from core.storage.store import DB_FILE_NAME
from tests.conftest import PASSPHRASE

MANY = 620  # more than the rotation batch of 500, so rotation takes at least two batches


def ev(text: str, session: str = "s1") -> NewEvent:
    """A valid event."""
    return NewEvent(session=session, actor="user", trust="user", scope={"user": "u1"}, text=text)


def _fill(service: MemoryService, n: int) -> list[str]:
    texts = [f"event {i} 事件" for i in range(n)]
    service.events.append_events([ev(t, f"s{i % 3}") for i, t in enumerate(texts)])
    return texts


def _texts(service: MemoryService) -> list[str]:
    return [e.text for e in service.events.list_events(limit=10_000)]


def _payload_key_ids(data_dir: Path) -> set[str]:
    conn = sqlite3.connect(data_dir / DB_FILE_NAME)
    try:
        rows = conn.execute("SELECT ciphertext FROM event_payloads").fetchall()
    finally:
        conn.close()
    return {read_header(bytes(r[0])).key_id for r in rows}


def _stop_after_first_batch() -> Callable[[], bool]:
    calls = {"n": 0}

    def should_stop() -> bool:
        calls["n"] += 1
        return calls["n"] > 1

    return should_stop


def _open(data_dir: Path, clock: ManualClock) -> MemoryService:
    return MemoryService.open(data_dir, passphrase=PASSPHRASE, clock=clock)


def test_rotation_reencrypts_everything_under_one_new_key(
    service: MemoryService, data_dir: Path
) -> None:
    """R24: after rotation every payload is under the new key and the old key is gone."""
    texts = _fill(service, 5)
    old_id = service.keys.info().active_key_id
    report = service.keys.rotate().value
    assert report.old_key_id == old_id != report.new_key_id
    assert report.rows_reencrypted == 5
    assert not report.resumed
    info = service.keys.info()
    assert info.key_ids == (report.new_key_id,) and info.active_key_id == report.new_key_id
    assert _payload_key_ids(data_dir) == {report.new_key_id}
    assert _texts(service) == texts
    assert service.verify().ok
    stored = PassphraseKeyStore(data_dir / KEY_FILE_NAME, PASSPHRASE).load()
    assert list(stored.keys) == [report.new_key_id] and stored.pending_id is None


def test_rotated_store_reopens_with_the_new_key(
    service: MemoryService, data_dir: Path, clock: ManualClock
) -> None:
    """R24: after rotation and restart all events are readable and the store verifies."""
    texts = _fill(service, 5)
    new_id = service.keys.rotate().value.new_key_id
    service.close()
    with _open(data_dir, clock) as svc:
        assert svc.status().key.key_ids == (new_id,)
        assert _texts(svc) == texts
        assert svc.verify().ok
        svc.events.append_event(ev("after rotation"))
        assert _payload_key_ids(data_dir) == {new_id}


def test_rotation_is_recorded_as_a_keys_change(service: MemoryService) -> None:
    """R21: a rotation bumps the revision and the feed names the keys area."""
    _fill(service, 3)
    before = service.events.revision()
    result = service.keys.rotate()
    assert result.changes.revision > before
    assert result.changes.kinds == frozenset({ChangeKind.KEYS})
    feed = service.events.changes_since(before)
    assert feed and all(c.kinds == frozenset({ChangeKind.KEYS}) for c in feed)


def test_rotation_of_an_empty_store(service: MemoryService) -> None:
    """R24: rotating a store with no content still replaces the key."""
    old_id = service.keys.info().active_key_id
    report = service.keys.rotate().value
    assert report.rows_reencrypted == 0
    assert service.keys.info().key_ids == (report.new_key_id,) != (old_id,)


def test_rotation_reports_progress(service: MemoryService) -> None:
    """R24, R28: long rotations report progress after every batch."""
    _fill(service, MANY)
    seen: list[int] = []
    service.keys.rotate(progress=seen.append)
    assert seen == [500, MANY]


def test_interrupted_rotation_resumes_after_reopen(
    service: MemoryService, data_dir: Path, clock: ManualClock
) -> None:
    """R24: a paused rotation loses nothing; after restart it resumes and finishes."""
    texts = _fill(service, MANY)
    old_id = service.keys.info().active_key_id
    with pytest.raises(RotationInterruptedError, match="run it again"):
        service.keys.rotate(should_stop=_stop_after_first_batch())
    service.close()
    with _open(data_dir, clock) as svc:
        assert _texts(svc) == texts
        assert svc.verify().ok
        info = svc.status().key
        assert len(info.key_ids) == 2 and old_id in info.key_ids
        assert info.active_key_id != old_id
        assert _payload_key_ids(data_dir) == {old_id, info.active_key_id}
        report = svc.keys.rotate().value
        assert report.resumed
        assert report.old_key_id == old_id
        assert report.new_key_id == info.active_key_id
        assert report.rows_reencrypted == MANY - 500
        assert svc.status().key.key_ids == (report.new_key_id,)
        assert _texts(svc) == texts
    with _open(data_dir, clock) as svc:
        assert _texts(svc) == texts
        assert svc.verify().ok
        assert svc.status().key.key_ids == (report.new_key_id,)


def test_interrupted_rotation_status_shows_both_keys_in_the_same_process(
    service: MemoryService,
) -> None:
    """R24: right after a pause, status reports the two keys the store now depends on."""
    _fill(service, MANY)
    with pytest.raises(RotationInterruptedError):
        service.keys.rotate(should_stop=_stop_after_first_batch())
    assert len(service.status().key.key_ids) == 2


def test_interrupted_rotation_resumes_in_the_same_process(
    service: MemoryService, data_dir: Path, clock: ManualClock
) -> None:
    """R24: pausing and pressing rotate again (no restart) finishes without losing data."""
    texts = _fill(service, MANY)
    with pytest.raises(RotationInterruptedError):
        service.keys.rotate(should_stop=_stop_after_first_batch())
    try:
        report = service.keys.rotate().value
        assert report.resumed
        assert _texts(service) == texts
    finally:
        service.close()
    with _open(data_dir, clock) as svc:
        assert _texts(svc) == texts
        assert svc.verify().ok


def test_other_open_service_still_reads_after_rotation(
    service: MemoryService, data_dir: Path, clock: ManualClock
) -> None:
    """R24, R30: a second process-like service opened before rotation keeps reading."""
    texts = _fill(service, 4)
    with _open(data_dir, clock) as other:
        assert _texts(other) == texts
        service.keys.rotate()
        assert _texts(other) == texts
        assert other.verify().ok


def test_other_open_service_writes_under_the_new_key_after_rotation(
    service: MemoryService, data_dir: Path, clock: ManualClock
) -> None:
    """R24, R30: a writer opened before rotation follows the new key for new content."""
    _fill(service, 2)
    with _open(data_dir, clock) as other:
        new_id = service.keys.rotate().value.new_key_id
        other.events.append_event(ev("written by the other one"))
    assert _payload_key_ids(data_dir) == {new_id}
    assert _texts(service)[-1] == "written by the other one"
    assert service.verify().ok


def test_keyring_store_rotates_and_reopens(
    memory_keyring: type, data_dir: Path, clock: ManualClock
) -> None:
    """R24: rotation also works when the key lives in the OS keyring."""
    with MemoryService.open(data_dir, clock=clock) as svc:
        texts = _fill(svc, 3)
        new_id = svc.keys.rotate().value.new_key_id
    with MemoryService.open(data_dir, clock=clock) as svc:
        assert svc.status().key.source == "keyring"
        assert svc.status().key.key_ids == (new_id,)
        assert _texts(svc) == texts
