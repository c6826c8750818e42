"""Create or open a store directory: database, migrations, key set, key check.

A store directory holds `memory-center.sqlite3` (plus its WAL), and, when the key is
passphrase-protected, `keyfile.json`. The key set itself is in the OS keyring or that file.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, replace
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
from core.errors import IntegrityError, KeyUnavailableError, ResourceUnavailableError
from core.model.clock import Clock, to_iso
from core.storage import schema as s
from core.storage.engine import sqlite_engines, translated
from core.storage.migrations import migrate
from core.storage.store import DB_FILE_NAME, Store, set_meta

KEY_CHECK_PLAINTEXT = b"memory-center key check v1"
LOCK_FILE_NAME = ".open.lock"


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


def open_store(
    data_dir: Path,
    clock: Clock,
    *,
    passphrase: str | None = None,
    create: bool = True,
    prefer_keyring: bool = True,
) -> Opened:
    """Open the store in `data_dir`, creating it if allowed.

    Args:
        data_dir: the store directory (created with mode 0700 if missing).
        clock: the store's clock.
        passphrase: unlocks (or, for a new store, protects) the key file.
        create: create a new store when none exists.
        prefer_keyring: for a new store, use the OS keyring when it works.

    Raises:
        KeyUnavailableError: no key, or a key that does not belong to this store.
        WrongPassphraseError: the passphrase does not unlock the key file.
        StoreVersionError: the store is newer than this code.
        ResourceUnavailableError: the directory or file cannot be used.
    """
    db_path = data_dir / DB_FILE_NAME
    if not db_path.exists() and not create:
        raise ResourceUnavailableError(f"no store at {data_dir} (run `memory-center init` first)")
    dir_created = not data_dir.exists()
    lock_created = not (data_dir / LOCK_FILE_NAME).exists()
    _ensure_dir(data_dir)
    try:
        opened = _open_locked(data_dir, db_path, clock, passphrase, prefer_keyring)
    except BaseException:
        if lock_created:
            discard_new_store(data_dir, remove_lock=True, remove_dir=dir_created)
        raise
    return replace(opened, dir_created=dir_created, lock_created=lock_created)


def _open_locked(
    data_dir: Path, db_path: Path, clock: Clock, passphrase: str | None, prefer_keyring: bool
) -> Opened:
    # Creation and migration run under an exclusive lock on the directory, so several
    # processes opening a new store at once create it exactly once.
    with _directory_lock(data_dir):
        existed = db_path.exists()
        if not existed:
            # Owner-only from the first byte: SQLite gives the WAL the database's mode.
            os.close(os.open(db_path, os.O_WRONLY | os.O_CREAT, 0o600))
        write, read = sqlite_engines(str(db_path))
        created = False
        try:
            with translated("open store"):
                backup = migrate(write, now=to_iso(clock.now()), db_path=db_path)
            store_id, source, created = _identity(
                write, data_dir, passphrase, prefer_keyring, clock
            )
            key_store = _key_store(source, store_id, data_dir, passphrase)
            keys = _load_or_create_keys(key_store, write, store_id, created)
        except BaseException:
            write.dispose()
            read.dispose()
            if not existed:
                _remove_new_store(data_dir)
            raise
    store = Store(write, read, Codec(keys, reload=key_store.load), clock, db_path)
    return Opened(store, key_store, keys, created, backup)


@contextlib.contextmanager
def _directory_lock(data_dir: Path) -> Iterator[None]:
    """An exclusive advisory lock on the store directory (POSIX; a no-op elsewhere)."""
    try:
        import fcntl
    except ImportError:  # Windows: SQLite's own locking still protects the data
        yield
        return
    with open(data_dir / LOCK_FILE_NAME, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _ensure_dir(data_dir: Path) -> None:
    try:
        data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise ResourceUnavailableError(
            f"cannot create the store directory {data_dir}: {exc}"
        ) from None
    if not os.access(data_dir, os.W_OK):
        raise ResourceUnavailableError(f"the store directory is not writable: {data_dir}")


def _identity(
    engine: Engine, data_dir: Path, passphrase: str | None, prefer_keyring: bool, clock: Clock
) -> tuple[str, str, bool]:
    with translated("read store identity"), engine.begin() as conn:
        meta: dict[str, str] = dict(
            conn.execute(select(s.store_meta.c.key, s.store_meta.c.value)).all()
        )
        if "store_id" in meta:
            return meta["store_id"], meta["key_source"], False
        source = _choose_source(passphrase, prefer_keyring)
        store_id = uuid.uuid4().hex
        set_meta(conn, "store_id", store_id)
        set_meta(conn, "key_source", source)
        set_meta(conn, "created_at", to_iso(clock.now()))
        return store_id, source, True


def _choose_source(passphrase: str | None, prefer_keyring: bool) -> str:
    if prefer_keyring and keyring_usable():
        return "keyring"
    if passphrase is None:
        raise KeyUnavailableError(
            "no OS keyring is available to hold the store key: give a passphrase "
            "(environment variable MEMORY_CENTER_PASSPHRASE, or at the prompt) to protect it"
        )
    check_passphrase(passphrase)
    return "passphrase"


def _key_store(source: str, store_id: str, data_dir: Path, passphrase: str | None) -> KeyStore:
    if source == "keyring":
        return KeyringKeyStore(store_id)
    if passphrase is None:
        raise KeyUnavailableError(
            "this store's key is protected by a passphrase: set MEMORY_CENTER_PASSPHRASE "
            "or enter it when asked"
        )
    return PassphraseKeyStore(data_dir / KEY_FILE_NAME, passphrase)


def _load_or_create_keys(
    key_store: KeyStore, engine: Engine, store_id: str, created: bool
) -> KeySet:
    aad = key_check_aad(store_id)
    if created:
        keys = KeySet.generate()
        key_store.save(keys)
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
    try:
        Codec(keys).open(bytes.fromhex(sealed), aad)
    except (IntegrityError, KeyUnavailableError):
        raise KeyUnavailableError(
            "the available key does not belong to this store (the key check does not decrypt)"
        ) from None
    return keys


def _remove_new_store(data_dir: Path) -> None:
    """Undo a store creation that failed half-way, so a retry starts clean."""
    for name in (DB_FILE_NAME, DB_FILE_NAME + "-wal", DB_FILE_NAME + "-shm", KEY_FILE_NAME):
        (data_dir / name).unlink(missing_ok=True)


def discard_new_store(data_dir: Path, *, remove_lock: bool, remove_dir: bool) -> None:
    """Undo the creation of a store that was never usable (a failed `init`): its files, and
    the lock file and directory when this creation made them. A directory that holds
    anything else is left alone."""
    _remove_new_store(data_dir)
    if remove_lock:
        (data_dir / LOCK_FILE_NAME).unlink(missing_ok=True)
    if not remove_dir:
        return
    with contextlib.suppress(OSError):
        data_dir.rmdir()
