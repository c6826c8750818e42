"""Data keys and where they live: key sets, the passphrase key file, the OS keyring (R24)."""

from __future__ import annotations

import base64
import json
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail
from keyring.errors import KeyringError

from core import (
    IntegrityError,
    InvalidInputError,
    KeyUnavailableError,
    ManualClock,
    MemoryCenterError,
    MemoryService,
    NewEvent,
    WrongPassphraseError,
)
from core.crypto import keys as keys_module
from core.crypto.keys import (
    KEY_FILE_NAME,
    KEYRING_SERVICE,
    MIN_PASSPHRASE,
    KeyringKeyStore,
    KeySet,
    PassphraseKeyStore,
    atomic_write,
    check_passphrase,
    derive_ahead,
    keyring_backend_name,
    keyring_usable,
    new_key_id,
)
from tests.conftest import PASSPHRASE


class BrokenKeyring(KeyringBackend):
    """A keyring that is present but fails every call, like a locked OS keyring."""

    priority = 1  # type: ignore[assignment]

    def get_password(self, service: str, username: str) -> str | None:
        raise KeyringError("keyring is locked")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise KeyringError("keyring is locked")

    def delete_password(self, service: str, username: str) -> None:
        raise KeyringError("keyring is locked")


class ZeroPriorityKeyring(BrokenKeyring):
    """A keyring backend that declares itself unsuitable."""

    priority = 0  # type: ignore[assignment]


class OddPriorityKeyring(BrokenKeyring):
    """A keyring backend whose priority is not a number."""

    priority = "high"  # type: ignore[assignment]


class PlaintextKeyring(BrokenKeyring):
    """Named like keyrings.alt's plaintext file backend."""


@pytest.fixture
def use_keyring() -> Iterator[None]:
    """Restore whatever keyring backend was active once the test is done."""
    previous = keyring.get_keyring()
    yield
    keyring.set_keyring(previous)


@pytest.fixture
def fail_keyring(use_keyring: None) -> None:
    """The headless situation: keyring's fail backend."""
    keyring.set_keyring(fail.Keyring())


def _event(text: str = "hello") -> NewEvent:
    return NewEvent(session="s1", actor="user", trust="user", scope={"user": "u1"}, text=text)


# --- KeySet --------------------------------------------------------------------------


def test_generated_key_set_has_one_256_bit_key() -> None:
    """R24: a new store gets one AES-256 data key and a separate fingerprint key."""
    keys = KeySet.generate()
    assert list(keys.keys) == [keys.active_id]
    assert len(keys.keys[keys.active_id]) == 32
    assert len(keys.fingerprint_key) == 32
    assert keys.pending_id is None
    assert keys.fingerprint_key != keys.keys[keys.active_id]


def test_key_ids_are_short_and_distinct() -> None:
    """R24: key ids are short ASCII tokens that differ between keys."""
    ids = {new_key_id() for _ in range(50)}
    assert len(ids) == 50
    assert all(i.startswith("k") and len(i) == 9 and i.isascii() for i in ids)


def test_key_set_round_trips_through_bytes() -> None:
    """R24: a key set (including a pending rotation) serialises and parses back equal."""
    keys = KeySet.generate().with_new_key()
    assert KeySet.from_bytes(keys.to_bytes()) == keys


def test_with_new_key_adds_an_active_pending_key() -> None:
    """R24: rotation step one keeps the old key, activates a new one and marks it pending."""
    old = KeySet.generate()
    new = old.with_new_key()
    assert set(new.keys) == {old.active_id, new.active_id}
    assert new.active_id != old.active_id
    assert new.pending_id == new.active_id
    assert new.keys[old.active_id] == old.keys[old.active_id]
    assert new.fingerprint_key == old.fingerprint_key


def test_retire_others_keeps_only_the_active_key() -> None:
    """R24: rotation's last step drops the old key and ends the pending state."""
    rotating = KeySet.generate().with_new_key()
    final = rotating.retire_others()
    assert list(final.keys) == [rotating.active_id]
    assert final.pending_id is None
    assert final.fingerprint_key == rotating.fingerprint_key


@pytest.mark.parametrize(
    "raw",
    [b"not json", b"[]", b"{}", b'{"keys": {"k1": "a"}, "active": "k1", "fingerprint": ""}'],
    ids=["not-json", "list", "empty", "bad-base64"],
)
def test_unreadable_key_set_is_an_integrity_error(raw: bytes) -> None:
    """R24: bytes that are not a key set are refused."""
    with pytest.raises(IntegrityError, match="unreadable"):
        KeySet.from_bytes(raw)


def test_inconsistent_key_set_is_an_integrity_error() -> None:
    """R24: an active id without a key, or a key of the wrong size, is refused."""
    short = {"keys": {"k1": base64.b64encode(b"x" * 16).decode()}, "active": "k1"}
    missing = {"keys": {"k1": base64.b64encode(b"x" * 32).decode()}, "active": "k2"}
    for doc in (short, missing):
        raw = json.dumps({**doc, "fingerprint": base64.b64encode(b"f" * 32).decode()}).encode()
        with pytest.raises(IntegrityError, match="inconsistent"):
            KeySet.from_bytes(raw)


# --- the passphrase key file ----------------------------------------------------------


def test_passphrase_key_file_round_trips(tmp_path: Path) -> None:
    """R24: a key set saved under a passphrase loads back equal."""
    keys = KeySet.generate()
    store = PassphraseKeyStore(tmp_path / KEY_FILE_NAME, PASSPHRASE)
    store.save(keys)
    assert PassphraseKeyStore(tmp_path / KEY_FILE_NAME, PASSPHRASE).load() == keys
    assert store.path == tmp_path / KEY_FILE_NAME
    assert KEY_FILE_NAME in store.describe()
    assert store.source == "passphrase"


def test_key_file_is_private_and_replaced_without_leftovers(tmp_path: Path) -> None:
    """R24: the key file is readable by its owner only, and saving twice leaves no temp files."""
    store = PassphraseKeyStore(tmp_path / KEY_FILE_NAME, PASSPHRASE)
    store.save(KeySet.generate())
    second = KeySet.generate()
    store.save(second)
    assert stat.S_IMODE((tmp_path / KEY_FILE_NAME).stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == [KEY_FILE_NAME]
    assert store.load() == second


def test_key_file_holds_no_raw_key_bytes(tmp_path: Path) -> None:
    """R24: neither the data keys nor the fingerprint key appear in the file in any plain form."""
    keys = KeySet.generate().with_new_key()
    path = tmp_path / KEY_FILE_NAME
    PassphraseKeyStore(path, PASSPHRASE).save(keys)
    content = path.read_bytes()
    for raw in [*keys.keys.values(), keys.fingerprint_key]:
        assert raw not in content
        assert base64.b64encode(raw) not in content
        assert raw.hex().encode() not in content
    for kid in keys.keys:
        assert kid.encode() not in content
    assert PASSPHRASE.encode() not in content


def test_wrong_passphrase_is_reported_as_such(tmp_path: Path) -> None:
    """R24: a wrong passphrase raises WrongPassphraseError, not a generic failure."""
    path = tmp_path / KEY_FILE_NAME
    PassphraseKeyStore(path, PASSPHRASE).save(KeySet.generate())
    with pytest.raises(WrongPassphraseError, match="wrong passphrase"):
        PassphraseKeyStore(path, "another passphrase").load()


def test_missing_key_file_is_key_unavailable(tmp_path: Path) -> None:
    """R24: no key file means no key; the message names the file."""
    with pytest.raises(KeyUnavailableError, match="missing") as info:
        PassphraseKeyStore(tmp_path / KEY_FILE_NAME, PASSPHRASE).load()
    assert not isinstance(info.value, WrongPassphraseError)


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"\xff\xfe\x00binary",
        b"[]",
        b"{}",
        b'{"salt": "AAAA", "n": 16384, "r": 8, "p": 1, "nonce": "%%%", "ciphertext": "AAAA"}',
    ],
    ids=["bad-json", "binary", "list", "empty-object", "bad-base64"],
)
def test_malformed_key_file_is_key_unavailable(tmp_path: Path, content: bytes) -> None:
    """R24: a damaged key file is reported as unusable, not as a wrong passphrase."""
    path = tmp_path / KEY_FILE_NAME
    path.write_bytes(content)
    with pytest.raises(KeyUnavailableError) as info:
        PassphraseKeyStore(path, PASSPHRASE).load()
    assert not isinstance(info.value, WrongPassphraseError)
    assert str(path) in info.value.message


# --- the derivation started ahead of the open (#13) ------------------------------------


def test_a_derivation_started_ahead_unlocks_the_same_key_set(tmp_path: Path) -> None:
    """#13: the key derived beside the imports is the one the open takes, and it is taken
    once: a second load derives again."""
    path = tmp_path / KEY_FILE_NAME
    keys = KeySet.generate()
    PassphraseKeyStore(path, PASSPHRASE).save(keys)
    derive_ahead(path, PASSPHRASE)
    derive_ahead(path, PASSPHRASE)  # the same inputs again: still one derivation
    assert len(keys_module._AHEAD) == 1
    assert PassphraseKeyStore(path, PASSPHRASE).load() == keys
    assert keys_module._AHEAD == {}
    assert PassphraseKeyStore(path, PASSPHRASE).load() == keys


def test_a_derivation_that_failed_ahead_fails_the_open_as_it_would_have(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the thread's scrypt raised is raised by the open, as if it had derived itself."""
    path = tmp_path / KEY_FILE_NAME
    PassphraseKeyStore(path, PASSPHRASE).save(KeySet.generate())

    def exhausted(*_args: object) -> bytes:
        raise MemoryError("scrypt could not allocate")

    monkeypatch.setattr(keys_module, "_scrypt", exhausted)
    derive_ahead(path, PASSPHRASE)
    monkeypatch.undo()
    with pytest.raises(MemoryError, match="scrypt could not allocate"):
        PassphraseKeyStore(path, PASSPHRASE).load()
    assert keys_module._AHEAD == {}


def test_a_wrong_passphrase_derived_ahead_is_still_reported_as_wrong(tmp_path: Path) -> None:
    path = tmp_path / KEY_FILE_NAME
    PassphraseKeyStore(path, PASSPHRASE).save(KeySet.generate())
    derive_ahead(path, "another passphrase")
    with pytest.raises(WrongPassphraseError, match="wrong passphrase"):
        PassphraseKeyStore(path, "another passphrase").load()


def test_a_key_file_replaced_after_the_derivation_began_is_unlocked_with_its_own_salt(
    tmp_path: Path,
) -> None:
    """A rotation in another process between the start and the open: the derivation ahead
    was for the old file's salt and is not used for the new one."""
    path = tmp_path / KEY_FILE_NAME
    PassphraseKeyStore(path, PASSPHRASE).save(KeySet.generate())
    derive_ahead(path, PASSPHRASE)
    newer = KeySet.generate()
    PassphraseKeyStore(path, PASSPHRASE).save(newer)
    assert PassphraseKeyStore(path, PASSPHRASE).load() == newer
    keys_module._AHEAD.clear()


@pytest.mark.parametrize("content", [None, b"{not json", b'{"n": 1099511627776}'])
def test_a_missing_or_malformed_key_file_is_left_to_the_open_to_report(
    tmp_path: Path, content: bytes | None
) -> None:
    """Bad input: starting ahead decides nothing and raises nothing; the open reports the
    file as it always did, naming it."""
    path = tmp_path / KEY_FILE_NAME
    if content is not None:
        path.write_bytes(content)
    derive_ahead(path, PASSPHRASE)
    derive_ahead(path, "\udcff not text")
    assert keys_module._AHEAD == {}
    with pytest.raises(KeyUnavailableError) as info:
        PassphraseKeyStore(path, PASSPHRASE).load()
    assert str(path) in info.value.message


def test_short_passphrase_is_refused(tmp_path: Path) -> None:
    """R24: a passphrase shorter than the minimum is refused before anything is written."""
    with pytest.raises(InvalidInputError) as info:
        PassphraseKeyStore(tmp_path / KEY_FILE_NAME, "x" * (MIN_PASSPHRASE - 1)).save(
            KeySet.generate()
        )
    assert info.value.field == "passphrase"
    assert not (tmp_path / KEY_FILE_NAME).exists()
    check_passphrase("x" * MIN_PASSPHRASE)


def test_atomic_write_failure_leaves_no_temp_file(tmp_path: Path) -> None:
    """R24: a failed replace keeps the old target and removes the temporary file."""
    target = tmp_path / "occupied"
    target.mkdir()
    (target / "child").write_text("keep")
    with pytest.raises(OSError):
        atomic_write(target, b"data")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["occupied"]


# --- the OS keyring --------------------------------------------------------------------


def test_keyring_key_store_round_trips(memory_keyring: type) -> None:
    """R24: the key set is kept as one secret under the store's id, not in plaintext form."""
    keys = KeySet.generate()
    store = KeyringKeyStore("abc")
    store.save(keys)
    assert store.load() == keys
    secret = keyring.get_password(KEYRING_SERVICE, "store-abc")
    assert secret is not None
    assert base64.b64encode(keys.keys[keys.active_id]).decode() not in secret
    assert "MemoryKeyring" in store.describe()


def test_keyring_without_entry_is_key_unavailable(memory_keyring: type) -> None:
    """R24: a keyring that holds no key for the store says so."""
    with pytest.raises(KeyUnavailableError, match="holds no key"):
        KeyringKeyStore("nothing-here").load()


def test_failing_keyring_is_key_unavailable(use_keyring: None) -> None:
    """R24: keyring errors (locked, unreachable) become KeyUnavailableError."""
    keyring.set_keyring(BrokenKeyring())
    store = KeyringKeyStore("abc")
    with pytest.raises(KeyUnavailableError, match="could not be read"):
        store.load()
    with pytest.raises(KeyUnavailableError, match="refused"):
        store.save(KeySet.generate())


def test_keyring_not_usable_with_fail_backend(fail_keyring: None) -> None:
    """R24: the headless fail backend never counts as a keyring."""
    assert keyring_backend_name() == "keyring.backends.fail.Keyring"
    assert keyring_usable() is False


def test_fail_backend_is_the_default_under_the_test_environment() -> None:
    """R24: the test environment selects the fail backend through PYTHON_KEYRING_BACKEND."""
    assert os.environ["PYTHON_KEYRING_BACKEND"] == "keyring.backends.fail.Keyring"
    assert keyring.core.load_env() is not None
    assert type(keyring.core.load_env()).__name__ == "Keyring"


def test_keyring_usable_with_a_working_backend(memory_keyring: type) -> None:
    """R24: a working keyring with positive priority is used."""
    assert keyring_usable() is True


@pytest.mark.parametrize(
    "backend", [ZeroPriorityKeyring, OddPriorityKeyring, PlaintextKeyring], ids=lambda c: c.__name__
)
def test_keyring_not_usable_with_unsafe_or_unranked_backend(
    use_keyring: None, backend: type[KeyringBackend]
) -> None:
    """R24: zero priority, a non-numeric priority or a plaintext backend is not trusted."""
    keyring.set_keyring(backend())
    assert keyring_usable() is False


# --- opening stores -------------------------------------------------------------------


def test_new_store_uses_keyring_when_available(
    memory_keyring: type, data_dir: Path, clock: ManualClock
) -> None:
    """R24: with a working keyring and no passphrase, the key goes into the keyring."""
    with MemoryService.open(data_dir, clock=clock) as svc:
        svc.events.append_event(_event("kept in the keyring store"))
        info = svc.status().key
        store_id = svc.status().store_id
    assert info.source == "keyring"
    assert info.keyring_backend is not None and "MemoryKeyring" in info.keyring_backend
    assert not (data_dir / KEY_FILE_NAME).exists()
    assert (KEYRING_SERVICE, f"store-{store_id}") in memory_keyring.secrets  # type: ignore[attr-defined]
    with MemoryService.open(data_dir, clock=clock) as svc:
        assert [e.text for e in svc.events.list_events()] == ["kept in the keyring store"]
        assert svc.status().key.source == "keyring"


def test_keyring_store_without_its_entry_cannot_open(
    memory_keyring: type, data_dir: Path, clock: ManualClock
) -> None:
    """R24: if the keyring loses the key, opening fails clearly and the store is kept."""
    with MemoryService.open(data_dir, clock=clock) as svc:
        svc.events.append_event(_event())
    memory_keyring.secrets.clear()  # type: ignore[attr-defined]
    with pytest.raises(KeyUnavailableError, match="holds no key"):
        MemoryService.open(data_dir, clock=clock)
    assert (data_dir / "memory-center.sqlite3").exists()


def test_keyring_store_with_corrupt_entry_fails_with_a_core_error(
    memory_keyring: type, data_dir: Path, clock: ManualClock
) -> None:
    """R24: a damaged keyring secret is reported as a Memory Center error, not a crash."""
    with MemoryService.open(data_dir, clock=clock) as svc:
        store_id = svc.status().store_id
    keyring.set_password(KEYRING_SERVICE, f"store-{store_id}", "not base64!!")
    with pytest.raises(MemoryCenterError):
        MemoryService.open(data_dir, clock=clock)


def test_prefer_keyring_false_uses_the_passphrase_file(
    memory_keyring: type, data_dir: Path, clock: ManualClock
) -> None:
    """R24: a store can be kept under a passphrase even when a keyring exists."""
    with MemoryService.open(
        data_dir, passphrase=PASSPHRASE, clock=clock, prefer_keyring=False
    ) as svc:
        assert svc.status().key.source == "passphrase"
        assert svc.status().key.keyring_backend is None
    assert (data_dir / KEY_FILE_NAME).exists()
    assert memory_keyring.secrets == {}  # type: ignore[attr-defined]


def test_key_file_of_another_store_is_refused(tmp_path: Path, clock: ManualClock) -> None:
    """R24: a key file copied from store A does not unlock store B (key check)."""
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        MemoryService.open(d, passphrase=PASSPHRASE, clock=clock, prefer_keyring=False).close()
    shutil.copyfile(a / KEY_FILE_NAME, b / KEY_FILE_NAME)
    with pytest.raises(KeyUnavailableError, match="does not belong to this store") as info:
        MemoryService.open(b, passphrase=PASSPHRASE, clock=clock)
    assert not isinstance(info.value, WrongPassphraseError)


def test_wrong_passphrase_on_open_keeps_the_store(service: MemoryService, data_dir: Path) -> None:
    """R24: a wrong passphrase fails to open, and the right one still works afterwards."""
    service.events.append_event(_event("survives a wrong passphrase"))
    service.close()
    with pytest.raises(WrongPassphraseError):
        MemoryService.open(data_dir, passphrase="not the passphrase")
    with MemoryService.open(data_dir, passphrase=PASSPHRASE) as svc:
        assert [e.text for e in svc.events.list_events()] == ["survives a wrong passphrase"]


def test_passphrase_store_opened_without_passphrase_names_the_env_var(
    service: MemoryService, data_dir: Path
) -> None:
    """R24: opening a passphrase store with no passphrase says how to give one."""
    service.close()
    with pytest.raises(KeyUnavailableError, match="MEMORY_CENTER_PASSPHRASE"):
        MemoryService.open(data_dir)


def test_missing_key_file_on_open_keeps_the_database(
    service: MemoryService, data_dir: Path
) -> None:
    """R24: a store whose key file vanished is not deleted by a failed open."""
    service.events.append_event(_event())
    service.close()
    (data_dir / KEY_FILE_NAME).unlink()
    with pytest.raises(KeyUnavailableError, match="missing"):
        MemoryService.open(data_dir, passphrase=PASSPHRASE)
    assert (data_dir / "memory-center.sqlite3").exists()


def test_new_store_without_keyring_or_passphrase_is_refused_cleanly(
    fail_keyring: None, data_dir: Path, clock: ManualClock
) -> None:
    """R24: no keyring and no passphrase: a clear error, no half-created store left behind."""
    with pytest.raises(KeyUnavailableError, match="MEMORY_CENTER_PASSPHRASE"):
        MemoryService.open(data_dir, clock=clock)
    # The failed creation is undone whole: database, key file, lock and the directory it made.
    assert not data_dir.exists()
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, clock=clock) as svc:
        assert svc.status().key.source == "passphrase"
        assert svc.events.append_event(_event()).value.position == 1


def test_new_store_with_short_passphrase_is_refused_cleanly(
    fail_keyring: None, data_dir: Path, clock: ManualClock
) -> None:
    """R24: a too-short passphrase for a new store names the field and leaves nothing."""
    with pytest.raises(InvalidInputError) as info:
        MemoryService.open(data_dir, passphrase="short", clock=clock)
    assert info.value.field == "passphrase"
    # The failed creation is undone whole: database, key file, lock and the directory it made.
    assert not data_dir.exists()
    MemoryService.open(data_dir, passphrase=PASSPHRASE, clock=clock).close()
