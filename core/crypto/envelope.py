"""Seal a key set to one device's public key (X25519 + HKDF-SHA256 + AES-256-GCM).

In a store shared by several devices each device holds an X25519 private key next to its key
set; the server keeps only public keys and, per device, the current key set sealed to that
device. A rotation seals the new key set to every device that is still a member, so a
removed device never learns it.
"""

from __future__ import annotations

import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from core.errors import IntegrityError

_INFO = b"memory-center key envelope v1"
_PUBLIC = 32
_NONCE = 12


def new_device_key() -> bytes:
    """A fresh X25519 private key (32 raw bytes)."""
    from cryptography.hazmat.primitives.serialization import NoEncryption, PrivateFormat

    return X25519PrivateKey.generate().private_bytes(
        Encoding.Raw, PrivateFormat.Raw, NoEncryption()
    )


def public_of(device_key: bytes) -> bytes:
    """The raw public key of a device's private key."""
    return (
        X25519PrivateKey.from_private_bytes(device_key)
        .public_key()
        .public_bytes(Encoding.Raw, PublicFormat.Raw)
    )


def _kek(shared: bytes, ephemeral_public: bytes, recipient_public: bytes) -> bytes:
    salt = ephemeral_public + recipient_public
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=_INFO).derive(shared)


def seal_to(recipient_public: bytes, payload: bytes, aad: bytes) -> bytes:
    """Encrypt `payload` so that only the holder of the matching private key opens it."""
    ephemeral = X25519PrivateKey.generate()
    eph_public = ephemeral.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    shared = ephemeral.exchange(X25519PublicKey.from_public_bytes(recipient_public))
    nonce = os.urandom(_NONCE)
    sealed = AESGCM(_kek(shared, eph_public, recipient_public)).encrypt(nonce, payload, aad)
    return eph_public + nonce + sealed


def open_with(device_key: bytes, envelope: bytes, aad: bytes) -> bytes:
    """Open an envelope sealed to this device.

    Raises:
        IntegrityError: the envelope is damaged or was sealed to another device.
    """
    if len(envelope) < _PUBLIC + _NONCE + 16:
        raise IntegrityError("the key envelope is truncated")
    eph_public, nonce = envelope[:_PUBLIC], envelope[_PUBLIC : _PUBLIC + _NONCE]
    private = X25519PrivateKey.from_private_bytes(device_key)
    own_public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    shared = private.exchange(X25519PublicKey.from_public_bytes(eph_public))
    try:
        return AESGCM(_kek(shared, eph_public, own_public)).decrypt(
            nonce, envelope[_PUBLIC + _NONCE :], aad
        )
    except InvalidTag:
        raise IntegrityError("the key envelope does not open with this device's key") from None
