"""Signed membership on the server: write records, read them back, replay them (R24, #41).

The rows live in `team_records`; what they mean is decided on each device by
`core/crypto/membership.py`, from the trust anchor in the device's own key set. The server
adds what it can enforce for honest clients: one device per invitation (a unique index),
and a join refused once the invitation expired, was used or was cancelled.
"""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, select

from core.crypto.envelope import public_of
from core.crypto.keys import KeySet
from core.crypto.membership import (
    INVITATION_PREFIX,
    SELF,
    InviteState,
    SignedRecord,
    Trust,
    evaluate,
)
from core.crypto.signing import canonical, new_signing_key, sign, verifying_key
from core.errors import InvalidStateError, KeyUnavailableError
from core.model.clock import to_iso
from core.storage import schema as s

DEFAULT_INVITATION_HOURS = 72


@dataclass(frozen=True)
class Ticket:
    """What an invitation file carries to let one device register itself."""

    invitation_id: str
    signing_key: bytes  # the invitation's one-time Ed25519 private key


def replay(conn: Connection, keys: KeySet, store_id: str) -> Trust:
    """Every signed record of the store, replayed from this device's anchor."""
    rows = conn.execute(
        select(
            s.team_records.c.id,
            s.team_records.c.kind,
            s.team_records.c.signer,
            s.team_records.c.body,
            s.team_records.c.signature,
        )
    ).all()
    records = [
        SignedRecord(str(r.id), str(r.kind), str(r.signer), str(r.body), bytes(r.signature))
        for r in rows
    ]
    return evaluate(keys.anchor, store_id, records)


def _append(
    conn: Connection,
    record_id: str,
    body: dict[str, Any],
    signing_key: bytes,
    *,
    invitation: str | None = None,
) -> None:
    text = canonical(body)
    conn.execute(
        s.team_records.insert().values(
            id=record_id,
            kind=body["kind"],
            member=body["member"],
            signer=body["signer"],
            body=text,
            signature=sign(signing_key, text),
            invitation=invitation,
            created_at=body["at"],
        )
    )


def _device_body(
    keys: KeySet, store_id: str, device_id: str, member: str, signer: str, now: dt.datetime
) -> dict[str, Any]:
    assert keys.device_key is not None and keys.signing_key is not None
    return {
        "kind": "device",
        "store": store_id,
        "device": device_id,
        "member": member,
        "box": public_of(keys.device_key).hex(),
        "sign": verifying_key(keys.signing_key),
        "signer": signer,
        "at": to_iso(now),
    }


def register_root(
    conn: Connection, keys: KeySet, store_id: str, device_id: str, member: str, now: dt.datetime
) -> None:
    """The creator's first device: signed by itself, with its key as everyone's anchor."""
    assert keys.signing_key is not None
    body = _device_body(keys, store_id, device_id, member, SELF, now)
    _append(conn, device_id, body, keys.signing_key)


def register_joined(
    conn: Connection,
    keys: KeySet,
    store_id: str,
    device_id: str,
    member: str,
    ticket: Ticket,
    now: dt.datetime,
) -> None:
    """A device joining with an invitation: refused (clearly) when the invitation is not
    usable any more; otherwise its registration, signed with the invitation's key.

    Raises:
        InvalidStateError: the invitation is unknown, used, expired or cancelled.
    """
    state = replay(conn, keys, store_id).invites.get(ticket.invitation_id)
    if state is None:
        raise InvalidStateError(
            "this invitation is not among those the store's signed membership trusts (its "
            "inviter was removed, or no member the store trusts made it): ask for a new one"
        )
    refusal = unusable(state, now)
    if refusal:
        raise InvalidStateError(f"{refusal}: ask for a new invitation")
    body = _device_body(keys, store_id, device_id, member, INVITATION_PREFIX + state.id, now)
    _append(conn, device_id, body, ticket.signing_key, invitation=state.id)


def unusable(state: InviteState, now: dt.datetime) -> str | None:
    """Why an invitation cannot be used any more (None: it can)."""
    if state.used_by is not None:
        return f"this invitation was used already (by device {state.used_by})"
    if state.cancelled:
        return "this invitation was cancelled"
    if to_iso(now) > state.expires_at:
        return f"this invitation expired at {state.expires_at}"
    return None


def invite(
    conn: Connection,
    keys: KeySet,
    store_id: str,
    signer_device: str,
    member: str,
    role: str,
    now: dt.datetime,
    hours: float = DEFAULT_INVITATION_HOURS,
) -> Ticket:
    """Record an invitation signed by this device; the ticket goes into the file."""
    if keys.signing_key is None:
        raise KeyUnavailableError(_NO_SIGNING_KEY)
    one_time = new_signing_key()
    invitation_id = "inv_" + secrets.token_hex(8)
    body = {
        "kind": "invite",
        "store": store_id,
        "member": member,
        "role": role,
        "key": verifying_key(one_time),
        "expires_at": to_iso(now + dt.timedelta(hours=hours)),
        "signer": signer_device,
        "at": to_iso(now),
    }
    _append(conn, invitation_id, body, keys.signing_key)
    return Ticket(invitation_id, one_time)


def remove(
    conn: Connection, keys: KeySet, store_id: str, signer_device: str, member: str, now: dt.datetime
) -> None:
    """Record a member's removal, signed by this device."""
    if keys.signing_key is None:
        raise KeyUnavailableError(_NO_SIGNING_KEY)
    body = {
        "kind": "remove",
        "store": store_id,
        "member": member,
        "signer": signer_device,
        "at": to_iso(now),
    }
    _append(conn, "rm_" + secrets.token_hex(8), body, keys.signing_key)


def cancel(
    conn: Connection,
    keys: KeySet,
    store_id: str,
    signer_device: str,
    state: InviteState,
    now: dt.datetime,
) -> None:
    """Record that an invitation is void, signed by this device."""
    if keys.signing_key is None:
        raise KeyUnavailableError(_NO_SIGNING_KEY)
    body = {
        "kind": "cancel",
        "store": store_id,
        "member": state.member,
        "invitation": state.id,
        "signer": signer_device,
        "at": to_iso(now),
    }
    _append(conn, "cx_" + secrets.token_hex(8), body, keys.signing_key)


_NO_SIGNING_KEY = (
    "this device predates signed membership and holds no signing key: join the store again "
    "with a new invitation"
)
