"""Devices of a store shared through a server, and how they learn new key sets (R24).

Each device keeps its key set, with its own X25519 private key, in its local key store
(keyring or passphrase file). The `devices` table holds every device's public key and the
current key set sealed to it. `ServerKeyStore` wraps the local key store: when the store has
moved to a key this device does not hold (another device rotated), it opens its envelope,
keeps the new key set locally and carries on. A revoked device gets no new envelope, so
content sealed after the rotation that revoked it stays unreadable to it.
"""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import replace

from sqlalchemy import Connection, Engine, select, update

from core.crypto.envelope import new_device_key, public_of
from core.crypto.keys import KeySet, KeyStore
from core.crypto.membership import ADMIN, OWNER, Trust
from core.crypto.signed_envelope import open_signed, parse, seal_signed
from core.errors import IntegrityError, KeyUnavailableError
from core.model.clock import to_iso
from core.storage import schema as s
from core.storage import trust
from core.storage.engine import translated


def new_device_id() -> str:
    """A random device id, kept in the device's local `store.json`."""
    return "dev_" + secrets.token_hex(8)


def _aad(device_id: str) -> bytes:
    return f"devices|{device_id}|envelope".encode()


def _envelope(device_id: str, public_hex: str, keys: KeySet, signer: str) -> bytes:
    """The team key set sealed to `public_hex` and signed by this device (`signer`)."""
    if keys.signing_key is None:
        raise KeyUnavailableError(
            "this device holds no signing key and cannot share the store's key: join the "
            "store again with a new invitation"
        )
    shareable = keys.team_only().to_bytes()
    return seal_signed(
        bytes.fromhex(public_hex), shareable, _aad(device_id), signer, keys.signing_key
    )


def register(conn: Connection, device_id: str, member: str, keys: KeySet, now: dt.datetime) -> None:
    """Record this device (its public key and its own envelope), or refresh its envelope."""
    if keys.device_key is None:
        raise IntegrityError("a device of a shared store needs a device key")
    public_hex = public_of(keys.device_key).hex()
    values = {
        "member": member,
        "public_key": public_hex,
        "envelope": _envelope(device_id, public_hex, keys, device_id),
        "key_id": keys.active_id,
    }
    found = conn.execute(
        select(s.devices.c.device_id).where(s.devices.c.device_id == device_id)
    ).first()
    if found:
        conn.execute(update(s.devices).where(s.devices.c.device_id == device_id).values(**values))
    else:
        conn.execute(
            s.devices.insert().values(device_id=device_id, registered_at=to_iso(now), **values)
        )


def publish(conn: Connection, keys: KeySet, store_id: str, signer: str) -> int:
    """Seal `keys` to every device whose signed registration this device's replay of the
    membership trusts (core/crypto/membership.py), to the X25519 key that registration
    signs; returns how many. A row nobody trusted signed (planted by hand, or of a removed
    member) gets nothing, whatever its columns say.

    Raises:
        KeyUnavailableError: this device holds no trust anchor (it predates signed
            membership), so it cannot tell whom to seal to.
    """
    if keys.anchor is None:
        raise KeyUnavailableError(
            "this device predates signed membership and cannot tell which devices to share "
            "the new key with: join the store again with a new invitation"
        )
    trusted = trust.replay(conn, keys, store_id).devices
    for device in trusted.values():
        conn.execute(
            update(s.devices)
            .where(s.devices.c.device_id == device.device_id)
            .values(
                envelope=_envelope(device.device_id, device.box_key, keys, signer),
                key_id=keys.active_id,
            )
        )
    return len(trusted)


def listed(conn: Connection) -> list[tuple[str, str]]:
    """(device id, member) of every row of the devices table, trusted or not."""
    rows = conn.execute(select(s.devices.c.device_id, s.devices.c.member)).all()
    return [(str(r.device_id), str(r.member)) for r in rows]


def revoke_member(conn: Connection, member: str, now: dt.datetime) -> int:
    """Revoke every device of `member`; returns how many."""
    done = conn.execute(
        update(s.devices)
        .where(s.devices.c.member == member, s.devices.c.revoked_at.is_(None))
        .values(revoked_at=to_iso(now))
    )
    return int(done.rowcount or 0)


class ServerKeyStore:
    """The local key store of one device of a shared store, kept current from the server.

    Args:
        local: where this device keeps its key set (keyring or passphrase file).
        engine: the server's read engine (never the write engine: a reload may run inside
            a write transaction, which holds the store's write lock).
        device_id: this device's id.
    """

    def __init__(self, local: KeyStore, engine: Engine, device_id: str) -> None:
        self.local = local
        self.source = local.source
        self._engine = engine
        self.device_id = device_id

    def load(self) -> KeySet:
        """The local key set, first brought up to the store's active key if needed.

        Raises:
            KeyUnavailableError: this device was removed, or holds no key at all.
        """
        keys = self.local.load()
        with translated("read the store's active key"), self._engine.connect() as conn:
            active = conn.execute(
                select(s.store_meta.c.value).where(s.store_meta.c.key == "active_key_id")
            ).scalar_one_or_none()
            if not active or active in keys.keys:
                return keys
            row = conn.execute(
                select(s.devices.c.envelope, s.devices.c.key_id, s.devices.c.revoked_at).where(
                    s.devices.c.device_id == self.device_id
                )
            ).first()
            store_id = conn.execute(
                select(s.store_meta.c.value).where(s.store_meta.c.key == "store_id")
            ).scalar_one_or_none()
            replayed = trust.replay(conn, keys, str(store_id or ""))
        # `revoked_at` alone decides nothing (anyone with the database login can set it):
        # a device the signed membership trusts gets the new key's envelope, a removed one
        # never does (`publish`).
        if row is None or keys.device_key is None:
            raise KeyUnavailableError(
                "this device was removed from the store (or never registered): ask a member "
                "for a new invitation"
            )
        if row.key_id != active:
            if row.revoked_at is not None:
                raise KeyUnavailableError(
                    "this device was removed from the store: ask a member for a new invitation"
                )
            raise KeyUnavailableError(
                "the store's key changed and this device's copy is not ready yet; try again"
            )
        fresh = KeySet.from_bytes(
            open_team_envelope(keys.device_key, self.device_id, bytes(row.envelope), replayed)
        )
        # The envelope holds team keys only; this device's personal and signing keys stay
        # its own, and so does its anchor (whoever sealed the envelope cannot change it).
        merged = replace(
            fresh,
            device_key=keys.device_key,
            personal=keys.personal,
            signing_key=keys.signing_key,
            anchor=keys.anchor,
            db_password=keys.db_password,
        )
        self.local.save(merged)
        return merged

    def save(self, keys: KeySet) -> None:
        """Keep the key set on this device (rotation publishes it to the others)."""
        self.local.save(keys)

    def describe(self) -> str:
        """The local key store, as a device of a shared store."""
        return f"{self.local.describe()}, device {self.device_id}"


def open_team_envelope(
    device_key: bytes, device_id: str, envelope: bytes, replayed: Trust
) -> bytes:
    """The key set in this device's team envelope, if a device entitled to share the
    store's key sealed it: an owner's or admin's trusted device (a rotation), or this
    device itself; and only to the X25519 key this device's signed registration names.

    Raises:
        KeyUnavailableError: the envelope is unsigned, signed by a device the signed
            membership does not trust or does not entitle, sealed to another key than the
            registered one, or does not verify (a substituted key is never adopted).
    """
    try:
        signed = parse(envelope)
        mine = replayed.devices.get(device_id)
        if mine is None or mine.box_key != public_of(device_key).hex():
            raise IntegrityError(
                "this device's signed registration names another X25519 key than the one it holds"
            )
        signer = replayed.devices.get(signed.signer)
        entitled = signed.signer == device_id or replayed.role_of_device(signed.signer) in (
            OWNER,
            ADMIN,
        )
        if signer is None or not entitled:
            raise IntegrityError(
                f"the key envelope is signed by device {signed.signer}, which may not share "
                "the store's key (only an owner's or admin's trusted device rotates it)"
            )
        return open_signed(device_key, signed, _aad(device_id), signer.sign_key)
    except IntegrityError as exc:
        raise KeyUnavailableError(
            f"the store's new key was not taken: {exc}; ask an owner or admin to rotate "
            "the key again (`memory-center key rotate`)"
        ) from None


def ensure_device_key(keys: KeySet) -> KeySet:
    """The key set with a device key (a new one if it had none)."""
    return keys if keys.device_key is not None else keys.with_device_key(new_device_key())
