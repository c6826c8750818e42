"""Contract of the key-store seam: every place a key set can live (R24).

`KEY_STORES` builds each implementation at a location in a temporary directory; the OS
keyring runs on the in-process backend selected the way a user selects one, through
PYTHON_KEYRING_BACKEND. A new key store (a hardware token, a cloud KMS) joins by adding one
entry with its constructor and a way to damage what it stored.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import keyring
import keyring.core
import pytest

from core.crypto.keys import (
    KEY_FILE_NAME,
    KEYRING_SERVICE,
    KeyringKeyStore,
    KeySet,
    KeyStore,
    PassphraseKeyStore,
)
from core.errors import IntegrityError, KeyUnavailableError, WrongPassphraseError
from tests.support.memory_keyring import MemoryKeyring

TEST_BACKEND = f"{MemoryKeyring.__module__}.{MemoryKeyring.__name__}"
PASSPHRASE = "correct horse battery staple"


@dataclass(frozen=True)
class Kind:
    """How to build one key store implementation and how to spoil what it stored."""

    source: str
    build: Callable[[Path, str], KeyStore]  # (directory, store id) -> key store
    damage: Callable[[Path, str], None]


def _damage_keyring(_directory: Path, store_id: str) -> None:
    keyring.set_password(KEYRING_SERVICE, f"store-{store_id}", "not base64 at all!")


def _damage_key_file(directory: Path, _store_id: str) -> None:
    path = directory / KEY_FILE_NAME
    doc = json.loads(path.read_text(encoding="utf-8"))
    raw = bytearray(base64.b64decode(doc["ciphertext"]))
    raw[3] ^= 0xFF
    doc["ciphertext"] = base64.b64encode(bytes(raw)).decode()
    path.write_text(json.dumps(doc), encoding="utf-8")


KEY_STORES: dict[str, Kind] = {
    "os-keyring": Kind("keyring", lambda _d, sid: KeyringKeyStore(sid), _damage_keyring),
    "passphrase-file": Kind(
        "passphrase",
        lambda d, _sid: PassphraseKeyStore(d / KEY_FILE_NAME, PASSPHRASE),
        _damage_key_file,
    ),
}


@pytest.fixture(autouse=True)
def _test_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Select the in-process keyring through the environment, as a user would."""
    previous = keyring.get_keyring()
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", TEST_BACKEND)
    keyring.core.init_backend()
    MemoryKeyring.secrets.clear()
    yield
    MemoryKeyring.secrets.clear()
    keyring.set_keyring(previous)


@pytest.fixture(params=list(KEY_STORES), ids=list(KEY_STORES))
def kind(request: pytest.FixtureRequest) -> Kind:
    return KEY_STORES[request.param]


def test_the_environment_selected_the_test_backend() -> None:
    assert isinstance(keyring.get_keyring(), MemoryKeyring)


def test_saved_keys_load_back_equal(kind: Kind, tmp_path: Path) -> None:
    keys = KeySet.generate()
    kind.build(tmp_path, "s1").save(keys)
    assert kind.build(tmp_path, "s1").load() == keys


def test_rotation_states_survive_a_round_trip(kind: Kind, tmp_path: Path) -> None:
    store = kind.build(tmp_path, "s1")
    rotating = KeySet.generate().with_new_key()
    store.save(rotating)
    loaded = store.load()
    assert loaded.pending_id == rotating.active_id and len(loaded.keys) == 2
    store.save(loaded.retire_others())
    assert list(store.load().keys) == [rotating.active_id]


def test_a_later_save_replaces_the_earlier_one(kind: Kind, tmp_path: Path) -> None:
    first, second = KeySet.generate(), KeySet.generate()
    kind.build(tmp_path, "s1").save(first)
    kind.build(tmp_path, "s1").save(second)
    assert kind.build(tmp_path, "s1").load() == second


def test_nothing_saved_is_a_clear_key_error(kind: Kind, tmp_path: Path) -> None:
    with pytest.raises(KeyUnavailableError) as caught:
        kind.build(tmp_path, "never-saved").load()
    assert "\n" not in str(caught.value)


def test_damage_is_detected_not_decoded(kind: Kind, tmp_path: Path) -> None:
    kind.build(tmp_path, "s1").save(KeySet.generate())
    kind.damage(tmp_path, "s1")
    with pytest.raises((KeyUnavailableError, IntegrityError)):
        kind.build(tmp_path, "s1").load()


def test_it_names_its_source_and_describes_itself(kind: Kind, tmp_path: Path) -> None:
    store = kind.build(tmp_path, "s1")
    assert store.source == kind.source
    description = store.describe()
    assert description and "\n" not in description


def test_the_key_never_appears_in_plaintext(kind: Kind, tmp_path: Path) -> None:
    keys = KeySet.generate()
    kind.build(tmp_path, "s1").save(keys)
    raw_key = keys.keys[keys.active_id]
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
    stored += "".join(MemoryKeyring.secrets.values()).encode()
    for form in (raw_key, base64.b64encode(raw_key)):
        assert form not in stored


def test_a_wrong_passphrase_is_named_as_such(tmp_path: Path) -> None:
    PassphraseKeyStore(tmp_path / KEY_FILE_NAME, PASSPHRASE).save(KeySet.generate())
    with pytest.raises(WrongPassphraseError, match="wrong passphrase"):
        PassphraseKeyStore(tmp_path / KEY_FILE_NAME, "not the passphrase").load()
