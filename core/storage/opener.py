"""Create or open a store: database, migrations, key set, key check.

A store directory holds `memory-center.sqlite3` (plus its WAL), and, when the key is
passphrase-protected, `keyfile.json`. The key set itself is in the OS keyring or that file.
A store on a PostgreSQL server keeps the same local directory for what belongs to this
machine (the key file, the derived indexes, `store.json` naming the server), while the
tables live on the server.
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from dataclasses import replace
from pathlib import Path

from sqlalchemy import Engine, select

from core.crypto.codec import Codec
from core.crypto.keys import (
    KEY_FILE_NAME,
)
from core.errors import (
    IntegrityError,
    InvalidInputError,
    ResourceUnavailableError,
)
from core.model.clock import Clock, to_iso
from core.storage import governed as _governed  # noqa: F401  installs a write's commit steps
from core.storage import logins
from core.storage import schema as s
from core.storage.engine import sqlite_engines, translated
from core.storage.meta import set_meta
from core.storage.migrations import migrate
from core.storage.server_open import (
    anonymous_url,
    bare_url,
    join_server_store,
    open_server_store,
)
from core.storage.store import DB_FILE_NAME, Store
from core.storage.store_dir import (
    LOCAL_CONFIG_NAME,
    LOCK_FILE_NAME,
    configured_database_url,
    device_id,
    directory_lock,
    discard_new_store,
    ensure_dir,
    local_config,
    refuse_orphan_key_file,
    remove_new_store,
)
from core.storage.store_keys import (
    KEY_CHECK_PLAINTEXT,
    KEY_CHECK_UNBOUND,
    Opened,
    choose_source,
    key_check_aad,
    key_store_for,
    load_or_create_keys,
)


def open_store(
    data_dir: Path,
    clock: Clock,
    *,
    passphrase: str | None = None,
    create: bool = True,
    prefer_keyring: bool = True,
    database_url: str | None = None,
    member: str | None = None,
) -> Opened:
    """Open the store in `data_dir`, creating it if allowed.

    Args:
        data_dir: the store directory (created with mode 0700 if missing).
        clock: the store's clock.
        passphrase: unlocks (or, for a new store, protects) the key file.
        create: create a new store when none exists.
        prefer_keyring: for a new store, use the OS keyring when it works.
        database_url: a PostgreSQL server to hold the tables; remembered in the
            directory's `store.json`, so later opens need only the directory.
        member: on a server store, the member this device belongs to when it is not
            known yet (first open; default "owner"): its `user=NAME` scope is private.

    Raises:
        KeyUnavailableError: no key, or a key that does not belong to this store.
        WrongPassphraseError: the passphrase does not unlock the key file.
        StoreVersionError: the store is newer than this code.
        ResourceUnavailableError: the directory or file cannot be used.
    """
    if database_url is not None and not database_url.strip():
        # An unset variable in `--database "$URL"` must not make a local store instead.
        raise InvalidInputError(
            "database_url",
            "is empty: give a postgresql:// URL, or none for a local SQLite store",
        )
    configured = configured_database_url(data_dir)
    if database_url and (data_dir / DB_FILE_NAME).exists():
        raise ResourceUnavailableError(
            f"{data_dir} already holds a local store; choose another data directory for "
            "a store on a database server"
        )
    if database_url and configured and bare_url(database_url) != bare_url(configured):
        if anonymous_url(database_url) == anonymous_url(configured):
            raise ResourceUnavailableError(
                f"{data_dir} logs in to that server as {logins.login_of(configured)} (a "
                "login of its own): open it without a database URL, or give that login"
            )
        raise ResourceUnavailableError(
            f"{data_dir} belongs to a store on another database server; choose another "
            "data directory"
        )
    url = database_url or configured
    if url:
        return _open_server_dir(
            data_dir, url, clock, passphrase, create, prefer_keyring, member, configured is None
        )
    db_path = data_dir / DB_FILE_NAME
    if not db_path.exists() and not create:
        raise ResourceUnavailableError(f"no store at {data_dir} (run `memory-center init` first)")
    dir_created = not data_dir.exists()
    lock_created = not (data_dir / LOCK_FILE_NAME).exists()
    ensure_dir(data_dir)
    try:
        opened = _open_locked(data_dir, db_path, clock, passphrase, prefer_keyring)
    except BaseException:
        # Only what this call made is undone: a store that was there (copied from a backup
        # without its lock file, opened with a wrong passphrase) is never touched.
        if lock_created and not db_path.exists():
            discard_new_store(data_dir, remove_lock=True, remove_dir=dir_created, files=False)
        raise
    return replace(opened, dir_created=dir_created, lock_created=lock_created)


def _open_server_dir(
    data_dir: Path,
    url: str,
    clock: Clock,
    passphrase: str | None,
    create: bool,
    prefer_keyring: bool,
    member: str | None,
    fresh: bool,
) -> Opened:
    """`open_server_store`; a first open on this machine that fails (server away, no key)
    leaves nothing behind, and never removes a key file it did not write."""
    dir_created = not data_dir.exists()
    key_file_existed = (data_dir / KEY_FILE_NAME).exists()
    try:
        return open_server_store(data_dir, url, clock, passphrase, create, prefer_keyring, member)
    except BaseException:
        if fresh:
            (data_dir / LOCAL_CONFIG_NAME).unlink(missing_ok=True)
            if not key_file_existed:
                (data_dir / KEY_FILE_NAME).unlink(missing_ok=True)
            discard_new_store(data_dir, remove_lock=True, remove_dir=dir_created, files=False)
        raise


def _open_locked(
    data_dir: Path, db_path: Path, clock: Clock, passphrase: str | None, prefer_keyring: bool
) -> Opened:
    # Creation and migration run under an exclusive lock on the directory, so several
    # processes opening a new store at once create it exactly once.
    with directory_lock(data_dir):
        existed = db_path.exists()
        if existed:
            check_store_file(db_path)
        else:
            refuse_orphan_key_file(data_dir)
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
            key_store = key_store_for(source, store_id, data_dir, passphrase)
            keys = load_or_create_keys(key_store, write, store_id, created)
        except BaseException:
            write.dispose()
            read.dispose()
            if not existed:
                remove_new_store(data_dir)
            raise
    store = Store(write, read, Codec(keys, reload=key_store.load), clock, db_path)
    return Opened(store, key_store, keys, created, backup)


def check_store_file(db_path: Path) -> None:
    """Refuse a database file that holds no store before anything is written to it.

    An emptied or damaged file must never be taken for a new store: opening it as one would
    write a new store id and a new key set over the old key file, and a backup of the
    database could then never be opened again. The file is read with a plain connection
    that changes nothing (no journal-mode switch, no migration).

    Raises:
        IntegrityError: the file is empty, not a database, or a database without a store.
    """
    damaged = IntegrityError(
        f"the store file is empty or damaged: {db_path} (restore it from a backup; if a "
        "first `init` was interrupted, remove it and run `init` again)"
    )
    try:
        conn = sqlite3.connect(f"{db_path.resolve().as_uri()}?mode=rw", uri=True, timeout=15)
    except sqlite3.Error as exc:
        raise ResourceUnavailableError(f"cannot open the store file {db_path}: {exc}") from None
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        if "store_meta" not in tables:
            raise damaged
        found = conn.execute("SELECT value FROM store_meta WHERE key = 'store_id'").fetchone()
        if not found or not found[0]:
            raise damaged
    except sqlite3.OperationalError as exc:
        text = str(exc)
        if "locked" in text or "busy" in text:
            return  # another process writes it: a store, and the open will wait its turn
        raise damaged from None
    except sqlite3.DatabaseError:  # "file is not a database", "malformed"
        raise damaged from None
    finally:
        conn.close()


def offline_codec(data_dir: Path, passphrase: str | None) -> Codec:
    """The codec of this machine's copy of a server store's key set, without the server.

    For sealing writes into the local spool when the store cannot be opened (R23).

    Raises:
        ResourceUnavailableError: not a server store, or this machine has not opened it
            since it began recording what offline writes need (the store id).
        KeyUnavailableError: the key set is not in this machine's keyring or key file.
        WrongPassphraseError: the passphrase does not unlock the key file.
    """
    config = local_config(data_dir)
    store_id, source = config.get("store_id"), config.get("key_source")
    if not config.get("database_url") or not isinstance(store_id, str):
        raise ResourceUnavailableError(
            "writes cannot be kept for later: this machine has not opened the store on the "
            "server since it was set up (open it once while the server is reachable)"
        )
    if not isinstance(source, str):
        raise ResourceUnavailableError(f"{data_dir / LOCAL_CONFIG_NAME} names no key source")
    return Codec(key_store_for(source, store_id, data_dir, passphrase).load())


def _identity(
    engine: Engine, data_dir: Path, passphrase: str | None, prefer_keyring: bool, clock: Clock
) -> tuple[str, str, bool]:
    with translated("read store identity"), engine.begin() as conn:
        meta: dict[str, str] = dict(
            conn.execute(select(s.store_meta.c.key, s.store_meta.c.value)).all()
        )
        if "store_id" in meta:
            return meta["store_id"], meta["key_source"], False
        source = choose_source(passphrase, prefer_keyring)
        store_id = uuid.uuid4().hex
        set_meta(conn, "store_id", store_id)
        set_meta(conn, "key_source", source)
        set_meta(conn, "created_at", to_iso(clock.now()))
        return store_id, source, True


# Imported from here by callers.
__all__ = [
    "KEY_CHECK_PLAINTEXT",
    "KEY_CHECK_UNBOUND",
    "LOCK_FILE_NAME",
    "Opened",
    "check_store_file",
    "configured_database_url",
    "device_id",
    "discard_new_store",
    "join_server_store",
    "key_check_aad",
    "offline_codec",
    "open_store",
]
