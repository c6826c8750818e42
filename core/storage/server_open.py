"""Opening a store whose tables live on a PostgreSQL server, and joining one with an
invitation: the URL and its kept password, the store's identity on the server, and this
device's registration as a member's device.
"""

from __future__ import annotations

import shutil
import uuid
from dataclasses import dataclass, replace
from pathlib import Path

from sqlalchemy import Connection, Engine, inspect, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from core.crypto.codec import Codec
from core.crypto.invitation import Invitation
from core.crypto.keys import (
    KEY_FILE_NAME,
    KeySet,
    KeyStore,
)
from core.crypto.membership import SELF
from core.crypto.signing import new_signing_key, verifying_key
from core.errors import (
    AuthenticationFailedError,
    IntegrityError,
    InvalidStateError,
    KeyUnavailableError,
    MemoryCenterError,
    ResourceUnavailableError,
    WrongPassphraseError,
)
from core.model.clock import Clock, to_iso
from core.storage import devices, logins, members, personal, trust
from core.storage import schema as s
from core.storage.engine import is_postgres_url, postgres_engines, translated
from core.storage.meta import set_meta
from core.storage.migrations import migrate
from core.storage.store import DB_FILE_NAME, Store
from core.storage.store_dir import (
    LOCAL_CONFIG_NAME,
    LOCK_FILE_NAME,
    directory_lock,
    ensure_dir,
    local_config,
    refuse_orphan_key_file,
    save_local_config,
)
from core.storage.store_keys import (
    Opened,
    choose_source,
    create_keys,
    key_store_for,
    load_or_create_keys,
)

# `store.json`'s note that the database password is sealed in this machine's key set.
SEALED_PASSWORD = "sealed in the key set"


def open_server_store(
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
    ensure_dir(data_dir)
    url = _with_kept_password(url, data_dir, passphrase)
    with directory_lock(data_dir):
        write, read = postgres_engines(url)
        try:
            with translated("open store on the server"):
                known = local_config(data_dir).get("store_id")
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
            config = local_config(data_dir)
            source = config.get("key_source")
            if not isinstance(source, str):
                # Each machine chooses where it keeps its copy of the key set.
                source = choose_source(passphrase, prefer_keyring)
            device_id = str(config.get("device_id") or devices.new_device_id())
            member = str(config.get("member") or member_name or "owner")
            local = key_store_for(source, store_id, data_dir, passphrase)
            # The read engine: a key reload can happen inside a write transaction (following
            # another device's rotation), and the write engine's BEGIN takes the write lock.
            key_store = devices.ServerKeyStore(local, read, device_id)
            try:
                keys = load_or_create_keys(key_store, write, store_id, created)
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
            save_local_config(
                data_dir,
                {
                    # Without its password, which is sealed in the key set (keys.db_password).
                    "database_url": bare_url(url),
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


def bare_url(url: str) -> str:
    """`url` without its password (unchanged when it has none or cannot be parsed)."""
    try:
        parsed = make_url(url)
    except (ValueError, ArgumentError):
        return url
    if parsed.password is None:
        return url
    # URL.set ignores None; the URL is a named tuple.
    return parsed._replace(password=None).render_as_string(hide_password=False)


def anonymous_url(url: str) -> str:
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
    config = local_config(data_dir)
    store_id, source = config.get("store_id"), config.get("key_source")
    if config.get("database_password") != SEALED_PASSWORD:
        return url  # nothing kept: no second unlock of the key set on every open
    if not isinstance(store_id, str) or not isinstance(source, str):
        return url
    try:
        kept = key_store_for(source, store_id, data_dir, passphrase).load().db_password
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
    ensure_dir(data_dir)
    # The key file of another store is never replaced, nor removed when the join fails.
    refuse_orphan_key_file(data_dir)
    try:
        _check_invitation_is_current(invitation, clock)
        url = _claimed_login(invitation.database_url)
        source = choose_source(passphrase, prefer_keyring)
        key_store = key_store_for(source, invitation.store_id, data_dir, passphrase)
        # Never another device's private key (invitations of older versions carried it).
        create_keys(key_store, invitation.keys.with_device_key(None))
        save_local_config(
            data_dir,
            {
                "database_url": invitation.database_url,
                "key_source": source,
                "member": invitation.member,
            },
        )
        ticket = trust.Ticket(invitation.invitation_id, invitation.invitation_key)
        opened = open_server_store(
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
