"""Ed25519 signatures of membership records (R24, #41).

A device of a team store holds an Ed25519 signing key beside its X25519 device key. What it
signs is a small JSON body in canonical form (sorted keys, no spaces), so every reader
verifies the very bytes that were signed, whatever the database did to its whitespace.
"""

from __future__ import annotations

import json
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)


def new_signing_key() -> bytes:
    """A fresh Ed25519 private key (32 raw bytes)."""
    return Ed25519PrivateKey.generate().private_bytes(
        Encoding.Raw, PrivateFormat.Raw, NoEncryption()
    )


def verifying_key(signing_key: bytes) -> str:
    """The public half of a signing key, hex."""
    public = Ed25519PrivateKey.from_private_bytes(signing_key).public_key()
    return public.public_bytes(Encoding.Raw, PublicFormat.Raw).hex()


def canonical(body: dict[str, Any]) -> str:
    """The one text form of a record body that is signed and stored."""
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def sign(signing_key: bytes, text: str) -> bytes:
    """The signature of `text` (a canonical body)."""
    return Ed25519PrivateKey.from_private_bytes(signing_key).sign(text.encode("utf-8"))


def verifies(public_hex: str, text: str, signature: bytes) -> bool:
    """True when `signature` is `public_hex`'s signature of `text`; False for anything
    malformed (a bad key, a truncated signature): a reader only needs yes or no."""
    try:
        public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_hex))
        public.verify(bytes(signature), text.encode("utf-8"))
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True
