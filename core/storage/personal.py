"""Personal keys of team members: private `user=X` scopes on a shared store (R24).

On a team store a memory scoped `user=X` is sealed with member X's personal key, which only
X's devices hold. The key is made by X's first device, kept in that device's local key set,
and reaches X's other devices as an envelope sealed to each one's public key (the same
X25519 construction as the team envelope, `core/crypto/envelope.py`): one row per device in
`personal_keys`. Another member's device never gets a row, so neither the server operator
nor a teammate holding the team key can open X's private rows.

`sync` runs at every open of a device: it fetches this member's key from its envelope when
the local key set lacks it, makes the key when the member has none yet, and seals it to the
member's devices that joined since (their next open then picks it up).
"""

from __future__ import annotations

from sqlalchemy import Connection, Engine, select

from core.crypto.envelope import public_of
from core.crypto.keys import KeySet, KeyStore, new_personal_key
from core.crypto.membership import Trust
from core.crypto.signed_envelope import open_signed, parse, seal_signed
from core.errors import IntegrityError, KeyUnavailableError
from core.model.clock import Clock, to_iso
from core.storage import schema as s
from core.storage import trust
from core.storage.engine import translated


def _aad(device_id: str, member: str) -> bytes:
    return f"personal_keys|{device_id}|{member}".encode()


def _envelope(
    device_id: str, member: str, public_hex: str, key_id: str, key: bytes, keys: KeySet, signer: str
) -> bytes:
    """`member`'s personal key sealed to `public_hex`, signed by this device (`signer`)."""
    assert keys.signing_key is not None
    payload = key_id.encode("ascii") + b"\x1f" + key
    return seal_signed(
        bytes.fromhex(public_hex), payload, _aad(device_id, member), signer, keys.signing_key
    )


def _opened(keys: KeySet, device_id: str, member: str, envelope: bytes, replayed: Trust) -> KeySet:
    """The key set with `member`'s personal key from this device's envelope, accepted
    only when a trusted device of `member` sealed and signed it, to the X25519 key this
    device's signed registration names (a key of a teammate's or DBA's choosing is never
    adopted as the member's private key).

    Raises:
        KeyUnavailableError: the envelope is unsigned, signed by anyone else, or does not
            verify or open.
    """
    assert keys.device_key is not None
    try:
        signed = parse(envelope)
        mine = replayed.devices.get(device_id)
        if mine is None or mine.box_key != public_of(keys.device_key).hex():
            raise IntegrityError(
                "this device's signed registration names another X25519 key than the one it holds"
            )
        signer = replayed.devices.get(signed.signer)
        if signer is None or signer.member != member:
            raise IntegrityError(
                f"it is signed by device {signed.signer}, which is not a trusted device of {member}"
            )
        payload = open_signed(keys.device_key, signed, _aad(device_id, member), signer.sign_key)
    except IntegrityError as exc:
        raise KeyUnavailableError(
            f"{member}'s personal key on the server was not taken: {exc}; open the store "
            f"on another device of {member} to seal it again"
        ) from None
    key_id, _sep, key = payload.partition(b"\x1f")
    return keys.with_personal(member, key_id.decode("ascii"), key)


def sync(
    engines: tuple[Engine, Engine],
    local: KeyStore,
    keys: KeySet,
    device_id: str,
    member: str,
    clock: Clock,
    store_id: str,
) -> KeySet:
    """Bring this device's copy of `member`'s personal key up to date; seal it to the
    member's other devices that lack it. Returns the (possibly extended) key set.

    Reads first without the write lock: a device that already holds its key and whose
    member has no newer devices writes nothing.
    """
    write, read = engines
    if keys.device_key is None:
        return keys
    with translated("read personal keys"), read.connect() as conn:
        if not _work_to_do(conn, keys, member, store_id):
            return keys
    with translated("share a personal key"), write.begin() as conn:
        keys = _fetch_or_make(conn, local, keys, device_id, member, clock, store_id)
        if member in keys.personal:
            _grant(conn, keys, member, clock, store_id, device_id)
    return keys


def _work_to_do(conn: Connection, keys: KeySet, member: str, store_id: str) -> bool:
    if member not in keys.personal:
        return True
    return bool(_devices_without(conn, keys, member, store_id))


def _devices_without(
    conn: Connection, keys: KeySet, member: str, store_id: str
) -> list[tuple[str, str]]:
    """Devices of `member` whose signed registration verifies from this device's anchor
    (core/crypto/membership.py) and that hold no envelope of the member's key: (device id,
    the X25519 key its registration signs). A `devices` row alone, whoever wrote it, never
    receives a personal key; a device without an anchor seals to nobody."""
    if keys.anchor is None:
        return []
    have: set[str] = set(
        conn.execute(
            select(s.personal_keys.c.device_id).where(s.personal_keys.c.member == member)
        ).scalars()
    )
    found = trust.replay(conn, keys, store_id).of_member(member)
    return [(d.device_id, d.box_key) for d in found if d.device_id not in have]


def _fetch_or_make(
    conn: Connection,
    local: KeyStore,
    keys: KeySet,
    device_id: str,
    member: str,
    clock: Clock,
    store_id: str,
) -> KeySet:
    if member in keys.personal:
        return keys
    mine = conn.execute(
        select(s.personal_keys.c.envelope).where(
            s.personal_keys.c.device_id == device_id, s.personal_keys.c.member == member
        )
    ).scalar_one_or_none()
    if mine is not None:
        replayed = trust.replay(conn, keys, store_id)
        keys = _opened(keys, device_id, member, bytes(mine), replayed)
    elif member_has_key(conn, member):
        return keys  # another of the member's devices will seal it to this one
    else:
        key_id, key = new_personal_key()
        keys = keys.with_personal(member, key_id, key)
    # Saved locally before anything is sealed with it.
    local.save(keys)
    return keys


def member_has_key(conn: Connection, member: str) -> bool:
    """Whether `member` has a personal key on the store (some device holds it)."""
    return (
        conn.execute(
            select(s.personal_keys.c.device_id).where(s.personal_keys.c.member == member).limit(1)
        ).first()
        is not None
    )


def _grant(
    conn: Connection, keys: KeySet, member: str, clock: Clock, store_id: str, signer: str
) -> None:
    # This device too: its row records that the member's key exists.
    if keys.signing_key is None:
        return  # a device without a signing key seals to nobody (it trusts nobody either)
    key_id, key = keys.personal[member]
    for device_id, public_hex in _devices_without(conn, keys, member, store_id):
        conn.execute(
            s.personal_keys.insert().values(
                device_id=device_id,
                member=member,
                key_id=key_id,
                envelope=_envelope(device_id, member, public_hex, key_id, key, keys, signer),
                sealed_at=to_iso(clock.now()),
            )
        )


def forget_member(conn: Connection, member: str) -> int:
    """Drop every envelope of a removed member's personal key; returns how many.

    Nobody else ever needs that key: the member's private rows stay sealed with it,
    readable by nobody the store still trusts.
    """
    done = conn.execute(s.personal_keys.delete().where(s.personal_keys.c.member == member))
    return int(done.rowcount or 0)
