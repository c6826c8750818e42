"""Key envelopes signed by the device that sealed them (R24, #41: key substitution).

An envelope (`core/crypto/envelope.py`) is sealed to a public key, so anyone who can write
the `devices` or `personal_keys` table could seal a key of their own choosing to a device
and have it adopted: the device would then write content under a key the attacker knows.
So every envelope carries the sealing device's id and its Ed25519 signature over what was
sealed and to whom: the envelope's purpose (its AAD), the recipient's X25519 key and a
digest of the ciphertext. The opener decides whose signature it accepts (a trusted device
entitled to share that key) and checks that the recipient key is its own, the one its
signed registration names.

Layout: `MCS1` | signer id length (1 byte) | signer id | signature (64 bytes) | sealed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from core.crypto.envelope import open_with, public_of, seal_to
from core.crypto.signing import canonical, sign, verifies
from core.errors import IntegrityError

MAGIC = b"MCS1"
_SIGNATURE = 64


@dataclass(frozen=True)
class SignedEnvelope:
    """An envelope as read from the server: nothing in it is believed before `open`."""

    signer: str  # the sealing device's id
    signature: bytes
    sealed: bytes


def statement(aad: bytes, recipient_public: bytes, sealed: bytes) -> str:
    """The text the sealing device signs."""
    return canonical(
        {
            "aad": aad.decode("utf-8"),
            "to": recipient_public.hex(),
            "sealed": hashlib.sha256(sealed).hexdigest(),
        }
    )


def seal_signed(
    recipient_public: bytes, payload: bytes, aad: bytes, signer: str, signing_key: bytes
) -> bytes:
    """Seal `payload` to `recipient_public` and sign it as device `signer`."""
    sealed = seal_to(recipient_public, payload, aad)
    name = signer.encode("ascii")
    if not 0 < len(name) < 256:
        raise IntegrityError("a device id must be 1 to 255 ASCII characters")
    signature = sign(signing_key, statement(aad, recipient_public, sealed))
    return MAGIC + bytes([len(name)]) + name + signature + sealed


def parse(envelope: bytes) -> SignedEnvelope:
    """The parts of a signed envelope.

    Raises:
        IntegrityError: unsigned (an envelope of an older version, or one written by hand)
            or truncated.
    """
    data = bytes(envelope)
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 1:
        raise IntegrityError("the key envelope is not signed by the device that sealed it")
    size = data[len(MAGIC)]
    start = len(MAGIC) + 1
    name, rest = data[start : start + size], data[start + size :]
    if len(name) != size or len(rest) <= _SIGNATURE:
        raise IntegrityError("the signed key envelope is truncated")
    try:
        signer = name.decode("ascii")
    except UnicodeDecodeError:
        raise IntegrityError("the signed key envelope names no readable device") from None
    return SignedEnvelope(signer, rest[:_SIGNATURE], rest[_SIGNATURE:])


def open_signed(device_key: bytes, envelope: SignedEnvelope, aad: bytes, signer_key: str) -> bytes:
    """Open an envelope whose signer the caller has accepted, with `signer_key` (hex
    Ed25519) as that signer's verifying key. The signature must cover this device's own
    public key: an envelope sealed to another key, or re-signed for another purpose, is
    refused.

    Raises:
        IntegrityError: the signature does not verify, or the envelope does not open.
    """
    own = public_of(device_key)
    if not verifies(signer_key, statement(aad, own, envelope.sealed), envelope.signature):
        raise IntegrityError(
            f"the key envelope's signature by device {envelope.signer} does not verify for "
            "this device's key: ignored"
        )
    return open_with(device_key, envelope.sealed, aad)
