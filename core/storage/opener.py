"""Create or open a store: database, migrations, key set, key check.

A store directory holds `memory-center.sqlite3` (plus its WAL), and, when the key is
passphrase-protected, `keyfile.json`. The key set itself is in the OS keyring or that file.
A store on a PostgreSQL server keeps the same local directory for what belongs to this
machine (the key file, the derived indexes, `store.json` naming the server), while the
tables live on the server.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import BinaryIO

from sqlalchemy import Connection, Engine, inspect, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from core.crypto.codec import Aad, Codec
from core.crypto.invitation import Invitation
from core.crypto.keys import (
    KEY_FILE_NAME,
    KeyringKeyStore,
    KeySet,
    KeyStore,
    PassphraseKeyStore,
    atomic_write,
    check_passphrase,
    keyring_usable,
)
from core.crypto.membership import SELF
from core.crypto.signing import new_signing_key, verifying_key
from core.errors import (
    AuthenticationFailedError,
    IntegrityError,
    InvalidInputError,
    InvalidStateError,
    KeyUnavailableError,
    MemoryCenterError,
    ResourceUnavailableError,
    WrongPassphraseError,
)
from core.model.clock import Clock, to_iso
from core.storage import binding, devices, logins, members, personal, trust
from core.storage import schema as s
from core.storage.engine import is_postgres_url, postgres_engines, sqlite_engines, translated
from core.storage.migrations import migrate
from core.storage.store import DB_FILE_NAME, Store, set_meta

# The key check also says whether the store's memory rows carry metadata bindings (v2):
# an attacker cannot forge it, and cannot delete it (the store would not open), so the
# one-time binding of an upgraded store's rows cannot be triggered again (binding.py).
KEY_CHECK_PLAINTEXT = b"memory-center key check v2: records bound"
KEY_CHECK_UNBOUND = b"memory-center key check v1"
LOCK_FILE_NAME = ".open.lock"
# This machine's view of a server store: the database URL and the key source it uses.
LOCAL_CONFIG_NAME = "store.json"
# `store.json`'s note that the database password is sealed in this machine's key set.
SEALED_PASSWORD = "sealed in the key set"


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
    if database_url and configured and _bare(database_url) != _bare(configured):
        if _anonymous(database_url) == _anonymous(configured):
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
    _ensure_dir(data_dir)
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
    """`_open_server_store`; a first open on this machine that fails (server away, no key)
    leaves nothing behind, and never removes a key file it did not write."""
    dir_created = not data_dir.exists()
    key_file_existed = (data_dir / KEY_FILE_NAME).exists()
    try:
        return _open_server_store(data_dir, url, clock, passphrase, create, prefer_keyring, member)
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
    with _directory_lock(data_dir):
        existed = db_path.exists()
        if existed:
            check_store_file(db_path)
        else:
            _refuse_orphan_key_file(data_dir)
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


def _refuse_orphan_key_file(data_dir: Path) -> None:
    """A key file with no database beside it may be the only key to a backup of the
    store: a new store is never created over it."""
    key_file = data_dir / KEY_FILE_NAME
    if key_file.exists() or key_file.is_symlink():
        raise ResourceUnavailableError(
            f"{key_file} exists but there is no store database beside it; it may be the "
            "only key to a backup of that store. Restore the database, or move the key "
            "file elsewhere before creating a new store here"
        )


def configured_database_url(data_dir: Path) -> str | None:
    """The server URL this directory's store lives on, or None for a local SQLite store."""
    config = _local_config(data_dir)
    url = config.get("database_url")
    return url if isinstance(url, str) and url else None


def offline_codec(data_dir: Path, passphrase: str | None) -> Codec:
    """The codec of this machine's copy of a server store's key set, without the server.

    For sealing writes into the local spool when the store cannot be opened (R23).

    Raises:
        ResourceUnavailableError: not a server store, or this machine has not opened it
            since it began recording what offline writes need (the store id).
        KeyUnavailableError: the key set is not in this machine's keyring or key file.
        WrongPassphraseError: the passphrase does not unlock the key file.
    """
    config = _local_config(data_dir)
    store_id, source = config.get("store_id"), config.get("key_source")
    if not config.get("database_url") or not isinstance(store_id, str):
        raise ResourceUnavailableError(
            "writes cannot be kept for later: this machine has not opened the store on the "
            "server since it was set up (open it once while the server is reachable)"
        )
    if not isinstance(source, str):
        raise ResourceUnavailableError(f"{data_dir / LOCAL_CONFIG_NAME} names no key source")
    return Codec(_key_store(source, store_id, data_dir, passphrase).load())


def device_id(data_dir: Path) -> str:
    """This machine's device id for the server store in `data_dir` ("" for a local store)."""
    return str(_local_config(data_dir).get("device_id") or "")


def _local_config(data_dir: Path) -> dict[str, object]:
    path = data_dir / LOCAL_CONFIG_NAME
    if not path.exists():
        return {}
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ResourceUnavailableError(f"cannot read {path}: {exc}") from None
    if not isinstance(loaded, dict):
        raise ResourceUnavailableError(f"{path} is not a JSON object")
    return loaded


def _save_local_config(data_dir: Path, config: dict[str, object]) -> None:
    # Owner-only (the URL may carry a password), whole and durable: it names the key source
    # and the store id that keep a later open from taking an emptied server for a new store.
    atomic_write(data_dir / LOCAL_CONFIG_NAME, json.dumps(config, indent=2).encode("utf-8"))


def _open_server_store(
    data_dir: Path,
    url: str,
    clock: Clock,
    passphrase: str | None,
    create: bool,
    prefer_keyring: bool,
    member_name: str | None = None,
    ticket: trust.Ticket | None = None,
) -> Opened:
    """Open (or create, or join) a store whose tables are on a PostgreSQL server."""
    if not is_postgres_url(url):
        raise ResourceUnavailableError(
            f"unsupported database URL {url.split('://', 1)[0]!r}: use postgresql://..."
        )
    _ensure_dir(data_dir)
    url = _with_kept_password(url, data_dir, passphrase)
    with _directory_lock(data_dir):
        write, read = postgres_engines(url)
        try:
            with translated("open store on the server"):
                known = _local_config(data_dir).get("store_id")
                if known and _server_store_id(write) != known:
                    # Emptied or replaced: never a new store (and a new key) in its place.
                    raise IntegrityError(
                        f"the database at the server holds no store or another store than "
                        f"this machine opened before ({known}); restore it from a backup"
                    )
                if not create and _server_store_id(write) is None:
                    raise ResourceUnavailableError(
                        "no store in that database (run `memory-center init --database URL`)"
                    )
                migrate(write, now=to_iso(clock.now()), db_path=None)
            store_id, created = _server_identity(write, clock)
            config = _local_config(data_dir)
            source = config.get("key_source")
            if not isinstance(source, str):
                # Each machine chooses where it keeps its copy of the key set.
                source = _choose_source(passphrase, prefer_keyring)
            device_id = str(config.get("device_id") or devices.new_device_id())
            member = str(config.get("member") or member_name or "owner")
            local = _key_store(source, store_id, data_dir, passphrase)
            # The read engine: a key reload can happen inside a write transaction (following
            # another device's rotation), and the write engine's BEGIN takes the write lock.
            key_store = devices.ServerKeyStore(local, read, device_id)
            try:
                keys = _load_or_create_keys(key_store, write, store_id, created)
            except KeyUnavailableError as exc:
                if "key_source" in config or isinstance(exc, WrongPassphraseError):
                    raise
                raise KeyUnavailableError(
                    "this machine holds no key for the store on that server: ask a member for "
                    "an invitation (`memory-center member invite NAME`) and join with it "
                    "(`memory-center join FILE`)"
                ) from None
            password = _password_of(url)
            if password is not None and keys.db_password != password:
                keys = replace(keys, db_password=password)
                local.save(keys)
            device = _Device(store_id, device_id, member, created, ticket)
            keys = _registered_device(write, read, local, keys, device, clock)
            keys = personal.sync((write, read), local, keys, device_id, member, clock, store_id)
            _save_local_config(
                data_dir,
                {
                    # Without its password, which is sealed in the key set (keys.db_password).
                    "database_url": _bare(url),
                    "database_password": SEALED_PASSWORD if keys.db_password else None,
                    "store_id": store_id,
                    "key_source": source,
                    "device_id": device_id,
                    "member": member,
                },
            )
        except BaseException:
            write.dispose()
            read.dispose()
            raise
    codec = Codec(keys, reload=key_store.load)
    store = Store(write, read, codec, clock, None, index_dir=data_dir / "index")
    return Opened(store, key_store, keys, created, None)


def _bare(url: str) -> str:
    """`url` without its password (unchanged when it has none or cannot be parsed)."""
    try:
        parsed = make_url(url)
    except (ValueError, ArgumentError):
        return url
    if parsed.password is None:
        return url
    # URL.set ignores None; the URL is a named tuple.
    return parsed._replace(password=None).render_as_string(hide_password=False)


def _anonymous(url: str) -> str:
    """`url` without its user and password: which server and database it names."""
    try:
        parsed = make_url(url)
    except (ValueError, ArgumentError):
        return url
    return parsed._replace(username=None, password=None).render_as_string(hide_password=False)


def _password_of(url: str) -> str | None:
    try:
        password = make_url(url).password
    except (ValueError, ArgumentError):
        return None
    return None if password is None else str(password)


def _with_kept_password(url: str, data_dir: Path, passphrase: str | None) -> str:
    """`url` with the database password this machine keeps sealed in its key set, when the
    URL (from `store.json`) carries none. Without a readable key set the URL is used as it
    is: the server may not need a password, and the open reports the key problem itself."""
    if _password_of(url) is not None:
        return url
    config = _local_config(data_dir)
    store_id, source = config.get("store_id"), config.get("key_source")
    if config.get("database_password") != SEALED_PASSWORD:
        return url  # nothing kept: no second unlock of the key set on every open
    if not isinstance(store_id, str) or not isinstance(source, str):
        return url
    try:
        kept = _key_store(source, store_id, data_dir, passphrase).load().db_password
    except MemoryCenterError:
        return url
    if kept is None:
        return url
    return make_url(url).set(password=kept).render_as_string(hide_password=False)


def join_server_store(
    data_dir: Path,
    invitation: Invitation,
    clock: Clock,
    *,
    passphrase: str | None,
    prefer_keyring: bool = True,
) -> Opened:
    """Join a store on a server with an opened invitation: keep its key set on this machine.

    Raises:
        ResourceUnavailableError: `data_dir` already holds a store, or the server is away.
        KeyUnavailableError: no keyring and no passphrase to protect the key here.
        IntegrityError: the server holds another store than the invitation names.
    """
    if (data_dir / DB_FILE_NAME).exists() or (data_dir / LOCAL_CONFIG_NAME).exists():
        raise ResourceUnavailableError(
            f"{data_dir} already holds a store; join into a new data directory"
        )
    existed = data_dir.exists()
    _ensure_dir(data_dir)
    # The key file of another store is never replaced, nor removed when the join fails.
    _refuse_orphan_key_file(data_dir)
    try:
        _check_invitation_is_current(invitation, clock)
        url = _claimed_login(invitation.database_url)
        source = _choose_source(passphrase, prefer_keyring)
        key_store = _key_store(source, invitation.store_id, data_dir, passphrase)
        # Never another device's private key (invitations of older versions carried it).
        _create_keys(key_store, invitation.keys.with_device_key(None))
        _save_local_config(
            data_dir,
            {
                "database_url": invitation.database_url,
                "key_source": source,
                "member": invitation.member,
            },
        )
        ticket = trust.Ticket(invitation.invitation_id, invitation.invitation_key)
        opened = _open_server_store(
            data_dir,
            url,
            clock,
            passphrase,
            False,
            prefer_keyring,
            ticket=ticket,
        )
        if opened.store.meta("store_id") != invitation.store_id:
            opened.store.dispose()
            raise IntegrityError("the server holds another store than the invitation names")
    except BaseException:
        for name in (LOCAL_CONFIG_NAME, KEY_FILE_NAME, LOCK_FILE_NAME):
            (data_dir / name).unlink(missing_ok=True)
        if not existed:
            shutil.rmtree(data_dir, ignore_errors=True)
        raise
    return opened


def _claimed_login(url: str) -> str:
    """The invitation's URL with a password only this device knows: the invitation's login
    (a login of its own, core/storage/logins.py) is claimed with it, so the one-time
    password in the invitation opens nothing any more. An invitation that carries another
    login (made before per-device logins) is used as it is."""
    login = logins.login_of(url)
    if login is None or not login.startswith(logins.LOGIN_PREFIX):
        return url
    password = logins.new_password()
    logins.claim(url, password)
    return logins.with_login(url, login, password)


def _check_invitation_is_current(invitation: Invitation, clock: Clock) -> None:
    if invitation.expires_at and to_iso(clock.now()) > invitation.expires_at:
        raise InvalidStateError(
            f"this invitation expired at {invitation.expires_at}: ask for a new invitation"
        )
    write, read = postgres_engines(invitation.database_url)
    try:
        with translated("read the store's active key"), read.connect() as conn:
            active = conn.execute(
                select(s.store_meta.c.value).where(s.store_meta.c.key == "active_key_id")
            ).scalar_one_or_none()
    except AuthenticationFailedError:
        login = logins.login_of(invitation.database_url) or ""
        if not login.startswith(logins.LOGIN_PREFIX):
            raise
        # The invitation's own login: claimed by the device that used it, or disabled.
        raise InvalidStateError(
            "this invitation was used already, cancelled or expired: the server refuses "
            "its one-time login; ask for a new invitation"
        ) from None
    finally:
        write.dispose()
        read.dispose()
    if active is not None and active not in invitation.keys.keys:
        raise KeyUnavailableError(
            "this invitation was made before the store's key was rotated: ask for a new one"
        )


@dataclass(frozen=True)
class _Device:
    """This device as its first open registers it."""

    store_id: str
    device_id: str
    member: str
    created: bool  # this open created the store: the device is its anchor
    ticket: trust.Ticket | None  # joining with an invitation


def _registered_device(
    write: Engine, read: Engine, local: KeyStore, keys: KeySet, device: _Device, clock: Clock
) -> KeySet:
    """Give this device its keys and a signed registration on the server, once; refuse if
    it was removed.

    The creator's first device signs its own registration and becomes every device's
    trust anchor; a joining device signs its registration with the invitation's one-time
    key (core/storage/trust.py). The check reads without the store's write lock: every
    open of a registered device (each CLI call) stops there.
    """
    with translated("check this device"), read.connect() as conn:
        if _device_current(conn, device, keys):
            return keys
    with translated("register this device"), write.begin() as conn:
        if _device_current(conn, device, keys):  # registered meanwhile by another process
            return keys
        keys = devices.ensure_device_key(keys)
        signing_key = keys.signing_key or new_signing_key()
        keys = replace(keys, signing_key=signing_key)
        root = device.created or (keys.anchor is None and _may_claim_root(conn, device.member))
        if root:
            keys = replace(keys, anchor=verifying_key(signing_key))
        registered = _registration_recorded(conn, device.device_id)
        if device.ticket is not None and not registered:
            trust.register_joined(
                conn,
                keys,
                device.store_id,
                device.device_id,
                device.member,
                device.ticket,
                clock.now(),
            )
        elif root and not registered:
            trust.register_root(
                conn, keys, device.store_id, device.device_id, device.member, clock.now()
            )
        if device.created:
            logins.record_owner(conn, device.member)  # this login owns the tables
        # Saved before the transaction commits: a registration the server keeps is never
        # signed by a key this device lost.
        local.save(keys)
        devices.register(conn, device.device_id, device.member, keys, clock.now())
    return keys


def _registration_recorded(conn: Connection, device_id: str) -> bool:
    found = conn.execute(
        select(s.team_records.c.id).where(
            s.team_records.c.id == device_id, s.team_records.c.kind == "device"
        )
    ).first()
    return found is not None


def _may_claim_root(conn: Connection, member: str) -> bool:
    """A store made before signed membership: its creator's device (never invited, its
    devices registered) anchors it at its first open, if nobody did."""
    anchored = conn.execute(
        select(s.team_records.c.id).where(s.team_records.c.signer == SELF).limit(1)
    ).first()
    return anchored is None and members.founder(conn, member)


def _device_current(conn: Connection, device: _Device, keys: KeySet) -> bool:
    """True when the server holds this device's envelope for the active key.

    Raises:
        KeyUnavailableError: the device was removed from the store (a signed removal;
            a `revoked_at` written by anyone else is ignored).
    """
    row = conn.execute(
        select(s.devices.c.key_id, s.devices.c.revoked_at).where(
            s.devices.c.device_id == device.device_id
        )
    ).first()
    if row is not None and row.revoked_at is not None:
        replayed = trust.replay(conn, keys, device.store_id)
        if device.device_id not in replayed.devices or keys.anchor is None:
            raise KeyUnavailableError(
                "this device was removed from the store; ask a member for a new invitation"
            )
    return (
        row is not None
        and row.key_id == keys.active_id
        and keys.device_key is not None
        and keys.signing_key is not None
    )


def _server_store_id(engine: Engine) -> str | None:
    with engine.connect() as conn:
        if not inspect(conn).has_table("store_meta"):
            return None
        found = conn.execute(
            select(s.store_meta.c.value).where(s.store_meta.c.key == "store_id")
        ).scalar_one_or_none()
        return str(found) if found else None


def _server_identity(engine: Engine, clock: Clock) -> tuple[str, bool]:
    with translated("read store identity"), engine.begin() as conn:
        found = conn.execute(
            select(s.store_meta.c.value).where(s.store_meta.c.key == "store_id")
        ).scalar_one_or_none()
        if found:
            return str(found), False
        store_id = uuid.uuid4().hex
        set_meta(conn, "store_id", store_id)
        set_meta(conn, "key_source", "per-device")
        set_meta(conn, "created_at", to_iso(clock.now()))
        return store_id, True


@contextlib.contextmanager
def _directory_lock(data_dir: Path) -> Iterator[None]:
    """An exclusive advisory lock on the store directory (POSIX; a no-op elsewhere)."""
    try:
        import fcntl
    except ImportError:  # Windows: SQLite's own locking still protects the data
        yield
        return
    path = data_dir / LOCK_FILE_NAME
    while True:
        handle = _open_lock_file(path)
        with handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                # A failed first `init` removes the lock file it made: a process that waited
                # on that file would hold a lock nobody else sees, and two creations would
                # run at once. Held only while the name still points at the locked file.
                if not _same_file(handle, path):
                    continue
                yield
                return
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _open_lock_file(path: Path) -> BinaryIO:
    if path.is_dir() or (path.exists() and not path.is_file()):
        raise ResourceUnavailableError(
            f"the store's lock file is not a regular file: {path} (remove it; it is "
            "recreated empty)"
        )
    try:
        return open(path, "a+b")  # closed by the caller's `with`
    except OSError as exc:
        raise ResourceUnavailableError(f"cannot open the store's lock file {path}: {exc}") from None


def _same_file(handle: BinaryIO, path: Path) -> bool:
    try:
        named = path.stat()
    except OSError:
        return False
    held = os.fstat(handle.fileno())
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


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
        _create_keys(key_store, keys)
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


def _create_keys(key_store: KeyStore, keys: KeySet) -> None:
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


def _remove_new_store(data_dir: Path) -> None:
    """Undo a store creation that failed half-way, so a retry starts clean. Called only
    when this open created the database; a key file is there only if it wrote it too
    (`_refuse_orphan_key_file` refuses to create a store beside an older one)."""
    for name in (DB_FILE_NAME, DB_FILE_NAME + "-wal", DB_FILE_NAME + "-shm", KEY_FILE_NAME):
        (data_dir / name).unlink(missing_ok=True)


def discard_new_store(
    data_dir: Path, *, remove_lock: bool, remove_dir: bool, files: bool = True
) -> None:
    """Undo the creation of a store that was never usable (a failed `init`): its files
    (when `files`: only a caller that knows it created them asks), and the lock file and
    directory when this creation made them. A directory that holds anything else is left
    alone."""
    if files:
        _remove_new_store(data_dir)
    if remove_lock:
        (data_dir / LOCK_FILE_NAME).unlink(missing_ok=True)
    if not remove_dir:
        return
    with contextlib.suppress(OSError):
        data_dir.rmdir()
