"""Invitations: hand a store's key set to another device or member (R24, team stores).

An invitation file carries the key set, the store id, the server URL and the member's name,
sealed with AES-GCM under a key derived (scrypt) from a one-time code that the inviter reads
out or sends by another channel. The file alone is useless; the code alone is useless. The
code has 100 bits of randomness, so the work factor of scrypt is a second line of defence,
not the first.
"""

from __future__ import annotations

import base64
import binascii
import json
import secrets
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from core.crypto.keys import KeySet
from core.errors import IntegrityError, InvalidInputError, WrongPassphraseError

FORMAT = "memory-center-invitation"
# Version 2 carries the invitation's one-time signing key (#41); version 1 files, which
# did not, are refused with a request for a new invitation.
VERSION = 2
_N, _R, _P = 2**14, 8, 1
_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTVWXYZ23456789"  # no look-alikes (0/O, 1/I/L, U/V)
_CODE_GROUPS, _GROUP_LEN = 4, 5
_AAD = b"memory-center invitation v1"
MAX_INVITATION_BYTES = 64 * 1024


@dataclass(frozen=True)
class Invitation:
    """What an opened invitation carries."""

    store_id: str
    database_url: str
    member: str
    keys: KeySet
    # The one-time key that signs this device's registration (core/storage/trust.py), the
    # invitation's id on the server, the role it grants and when it expires (ISO UTC).
    invitation_id: str = ""
    invitation_key: bytes = b""
    role: str = "member"
    expires_at: str = ""


def new_code() -> str:
    """A one-time code such as `K7QXM-2PRTA-9WZHC-MN3FE` (about 98 bits)."""
    groups = (
        "".join(secrets.choice(_CODE_ALPHABET) for _ in range(_GROUP_LEN))
        for _ in range(_CODE_GROUPS)
    )
    return "-".join(groups)


def _normalised(code: str) -> str:
    return "".join(ch for ch in code.upper() if ch.isalnum())


def _kek(code: str, salt: bytes) -> bytes:
    return Scrypt(salt=salt, length=32, n=_N, r=_R, p=_P).derive(_normalised(code).encode())


def seal_invitation(invitation: Invitation, code: str) -> bytes:
    """The invitation file's bytes, sealed with `code`."""
    salt, nonce = secrets.token_bytes(16), secrets.token_bytes(12)
    body = json.dumps(
        {
            "store_id": invitation.store_id,
            "database_url": invitation.database_url,
            "member": invitation.member,
            "keys": invitation.keys.to_bytes().decode(),
            "invitation_id": invitation.invitation_id,
            "invitation_key": base64.b64encode(invitation.invitation_key).decode(),
            "role": invitation.role,
            "expires_at": invitation.expires_at,
        }
    ).encode()
    sealed = AESGCM(_kek(code, salt)).encrypt(nonce, body, _AAD)
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "salt": base64.b64encode(salt).decode(),
        "nonce": base64.b64encode(nonce).decode(),
        "ciphertext": base64.b64encode(sealed).decode(),
    }
    return json.dumps(doc, indent=2).encode()


def open_invitation(raw: bytes, code: str) -> Invitation:
    """Open an invitation file with its one-time code.

    Raises:
        InvalidInputError: the file is not an invitation (or is damaged).
        WrongPassphraseError: the code does not open it.
    """
    if len(raw) > MAX_INVITATION_BYTES:
        raise InvalidInputError("invitation", "the file is too large to be an invitation")
    try:
        doc = json.loads(raw)
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ValueError("not a Memory Center invitation")
        if doc.get("version") == 1:
            raise ValueError(
                "it was made by an older version, without the key that lets one device "
                "register itself: ask for a new invitation"
            )
        if doc.get("version") != VERSION:
            raise ValueError(f"unsupported invitation version {doc.get('version')!r}")
        salt = base64.b64decode(doc["salt"], validate=True)
        nonce = base64.b64decode(doc["nonce"], validate=True)
        sealed = base64.b64decode(doc["ciphertext"], validate=True)
    except (ValueError, KeyError, TypeError, binascii.Error, RecursionError) as exc:
        raise InvalidInputError("invitation", f"unreadable invitation file: {exc}") from None
    if len(_normalised(code)) != _CODE_GROUPS * _GROUP_LEN:
        raise WrongPassphraseError("the invitation code has the wrong length")
    try:
        body = json.loads(AESGCM(_kek(code, salt)).decrypt(nonce, sealed, _AAD))
    except (InvalidTag, ValueError):
        raise WrongPassphraseError("the invitation code does not open this invitation") from None
    try:
        keys = KeySet.from_bytes(body["keys"].encode())
        return Invitation(
            body["store_id"],
            body["database_url"],
            body["member"],
            keys,
            str(body["invitation_id"]),
            base64.b64decode(body["invitation_key"], validate=True),
            str(body["role"]),
            str(body["expires_at"]),
        )
    except (KeyError, TypeError, AttributeError, IntegrityError, binascii.Error) as exc:
        raise InvalidInputError("invitation", f"damaged invitation: {exc}") from None
