"""A store's key set: which key store holds it (the OS keyring or a passphrase file),
loading or creating it, and the key check that proves it belongs to the store; `Opened`, a
store opened with its keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine, select

from core.crypto.codec import Aad, Codec
from core.crypto.keys import (
    KEY_FILE_NAME,
    KeyringKeyStore,
    KeySet,
    KeyStore,
    PassphraseKeyStore,
    check_passphrase,
    keyring_usable,
)
from core.errors import (
    IntegrityError,
    KeyUnavailableError,
)
from core.storage import binding, devices
from core.storage import schema as s
from core.storage.engine import translated
from core.storage.meta import set_meta
from core.storage.store import Store

# The key check also says whether the store's memory rows carry metadata bindings (v2):
# an attacker cannot forge it, and cannot delete it (the store would not open), so the
# one-time binding of an upgraded store's rows cannot be triggered again (binding.py).
KEY_CHECK_PLAINTEXT = b"memory-center key check v2: records bound"


KEY_CHECK_UNBOUND = b"memory-center key check v1"


@dataclass(frozen=True)
class Opened:
    """What opening a store produced."""

    store: Store
    key_store: KeyStore
    keys: KeySet
    created: bool
    backup: Path | None
    dir_created: bool = False
    lock_created: bool = False


def key_check_aad(store_id: str) -> Aad:
    """AAD of the sealed value that proves a key set belongs to this store."""
    return Aad("store_meta", store_id, "key_check")


def choose_source(passphrase: str | None, prefer_keyring: bool) -> str:
    if prefer_keyring and keyring_usable():
        return "keyring"
    if passphrase is None:
        raise KeyUnavailableError(
            "no OS keyring is available to hold the store key: give a passphrase "
            "(environment variable MEMORY_CENTER_PASSPHRASE, or at the prompt) to protect it"
        )
    check_passphrase(passphrase)
    return "passphrase"


def key_store_for(source: str, store_id: str, data_dir: Path, passphrase: str | None) -> KeyStore:
    if source == "keyring":
        return KeyringKeyStore(store_id)
    if passphrase is None:
        raise KeyUnavailableError(
            "this store's key is protected by a passphrase: set MEMORY_CENTER_PASSPHRASE "
            "or enter it when asked"
        )
    return PassphraseKeyStore(data_dir / KEY_FILE_NAME, passphrase)


def load_or_create_keys(
    key_store: KeyStore, engine: Engine, store_id: str, created: bool
) -> KeySet:
    aad = key_check_aad(store_id)
    if created:
        keys = KeySet.generate()
        create_keys(key_store, keys)
        with translated("write key check"), engine.begin() as conn:
            set_meta(conn, "key_check", Codec(keys).seal(KEY_CHECK_PLAINTEXT, aad).hex())
            set_meta(conn, "active_key_id", keys.active_id)
        return keys
    keys = key_store.load()
    with translated("read key check"), engine.connect() as conn:
        sealed = conn.execute(
            select(s.store_meta.c.value).where(s.store_meta.c.key == "key_check")
        ).scalar_one_or_none()
    if sealed is None:
        raise KeyUnavailableError("the store has no key check; it was not initialised completely")
    codec = Codec(keys)
    try:
        plaintext = codec.open(bytes.fromhex(sealed), aad)
    except (IntegrityError, KeyUnavailableError, ValueError):
        raise KeyUnavailableError(
            "the available key does not belong to this store (the key check does not decrypt)"
        ) from None
    if plaintext == KEY_CHECK_UNBOUND:
        _bind_upgraded_store(engine, codec, aad)
    return keys


def create_keys(key_store: KeyStore, keys: KeySet) -> None:
    """Keep a new store's key set: a key file is never written over an existing one and is
    checked once written (`PassphraseKeyStore.create`)."""
    local = key_store.local if isinstance(key_store, devices.ServerKeyStore) else key_store
    if isinstance(local, PassphraseKeyStore):
        local.create(keys)
    else:
        key_store.save(keys)


def _bind_upgraded_store(engine: Engine, codec: Codec, aad: Aad) -> None:
    """First open after the upgrade to schema 4: bind every existing row, then say so in
    the key check, in one transaction (binding.py)."""
    with translated("bind memory metadata"), engine.begin() as conn:
        binding.bind_unbound(conn, codec)
        binding.bind_settings(conn, codec)
        set_meta(conn, "key_check", codec.seal(KEY_CHECK_PLAINTEXT, aad).hex())
