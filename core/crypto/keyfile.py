"""The passphrase key file's envelope, checked before any key derivation runs.

The file is outside the database and anyone who can write the store directory can edit it.
scrypt allocates `128 * n * r` bytes and runs `n * r * p` rounds, so a file naming `n = 2**40`
would make opening the store allocate a terabyte (or spin for hours) before the passphrase
is even tried. Every parameter is bounded here, and a file outside the bounds is refused as
malformed with one line naming the field.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from pathlib import Path

from core.errors import InvalidInputError, KeyUnavailableError
from core.model.jsonsafe import parse_json

MAX_KEY_FILE_BYTES = 64 * 1024
# Ranges wide enough for every file this code (or a stronger future default) writes.
N_RANGE = (2**10, 2**20)
R_RANGE = (1, 32)
P_RANGE = (1, 16)
MAX_SCRYPT_MEMORY = 256 * 1024 * 1024  # 128 * n * r bytes
SALT_BYTES = (16, 64)
NONCE_BYTES = 12
MAX_CIPHERTEXT_BYTES = 16 * 1024


@dataclass(frozen=True)
class SealedKeyFile:
    """The decoded, range-checked fields of a key file."""

    n: int
    r: int
    p: int
    salt: bytes
    nonce: bytes
    ciphertext: bytes


def parse_key_file(raw: bytes, path: Path) -> SealedKeyFile:
    """Decode and bound-check a key file's bytes.

    Raises:
        KeyUnavailableError: the file is malformed (the message names the field).
    """
    try:
        if len(raw) > MAX_KEY_FILE_BYTES:
            raise ValueError(f"larger than {MAX_KEY_FILE_BYTES} bytes")
        doc = parse_json(raw, "key file", max_depth=4)
        if not isinstance(doc, dict):
            raise ValueError("not a JSON object")
        if doc.get("kdf", "scrypt") != "scrypt":
            raise ValueError("unknown kdf (only scrypt is supported)")
        n, r, p = (_int(doc, k, rng) for k, rng in (("n", N_RANGE), ("r", R_RANGE), ("p", P_RANGE)))
        if n & (n - 1):
            raise ValueError(f"n = {n} is not a power of two")
        if 128 * n * r > MAX_SCRYPT_MEMORY:
            raise ValueError(f"n * r asks scrypt for more than {MAX_SCRYPT_MEMORY} bytes")
        sealed = SealedKeyFile(
            n,
            r,
            p,
            _bytes(doc, "salt", *SALT_BYTES),
            _bytes(doc, "nonce", NONCE_BYTES, NONCE_BYTES),
            _bytes(doc, "ciphertext", 17, MAX_CIPHERTEXT_BYTES),
        )
    except (ValueError, InvalidInputError) as exc:
        raise KeyUnavailableError(f"key file is malformed: {path}: {exc}") from None
    return sealed


def _int(doc: dict[str, object], key: str, bounds: tuple[int, int]) -> int:
    value = doc.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key} must be an integer")
    low, high = bounds
    if not low <= value <= high:
        raise ValueError(f"{key} = {value} is outside {low}..{high}")
    return value


def _bytes(doc: dict[str, object], key: str, low: int, high: int) -> bytes:
    value = doc.get(key)
    if not isinstance(value, str) or len(value) > 2 * high:
        raise ValueError(f"{key} must be a base64 string of at most {high} bytes")
    try:
        decoded = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(f"{key} is not base64") from None
    if not low <= len(decoded) <= high:
        raise ValueError(f"{key} is {len(decoded)} bytes; expected {low}..{high}")
    return decoded
