"""The one codec every content-bearing value passes through (R24).

Layout of a sealed value::

    b"MC" | version (1) | flags (1) | key-id length (1) | key id | nonce (12) | ciphertext+tag

The header is authenticated along with an `Aad` (table, row id, field), so a ciphertext
copied into another row or field fails to open instead of decrypting to the wrong data.
"""

from __future__ import annotations

import hmac
import json
import os
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from core.crypto.keys import PERSONAL_PREFIX, KeySet
from core.crypto.stream import TAG_BYTES, decrypt_into, decrypt_pieces, encrypt_pieces
from core.errors import IntegrityError, KeyUnavailableError, PrivateScopeError

MAGIC = b"MC"
FORMAT_VERSION = 1
FLAG_COMPRESSED = 0x01
NONCE_BYTES = 12
# Below this size zlib rarely wins and costs a little time on every event.
COMPRESS_THRESHOLD = 256
# Domain label of the MAC key: the fingerprint key itself keys content fingerprints, so the
# binding MACs use a key derived from it for this one purpose.
MAC_KEY_LABEL = b"memory-center record binding v1"
# Domain label of a member's personal fingerprint key, derived from their personal key.
PERSONAL_FINGERPRINT_LABEL = b"memory-center personal fingerprint v1"


@dataclass(frozen=True)
class Aad:
    """Where a ciphertext belongs; authenticated, not encrypted."""

    table: str
    row_id: str
    field: str

    def encode(self) -> bytes:
        """Unambiguous byte form (the unit separator cannot occur in our ids)."""
        return "\x1f".join((self.table, self.row_id, self.field)).encode("utf-8")


@dataclass(frozen=True)
class Header:
    """The clear part of a sealed value."""

    version: int
    flags: int
    key_id: str
    length: int


def read_header(blob: bytes, total: int | None = None) -> Header:
    """Parse the header of a sealed value without decrypting it.

    Args:
        blob: the sealed value, or at least its first bytes when `total` is given.
        total: the whole value's length, when `blob` is only its beginning (a file).

    Raises:
        IntegrityError: the bytes are not a sealed value of a known format.
    """
    if len(blob) < 5 or blob[:2] != MAGIC:
        raise IntegrityError("not an encrypted Memory Center value (bad magic)")
    version, flags, key_len = blob[2], blob[3], blob[4]
    if version != FORMAT_VERSION:
        raise IntegrityError(f"unknown encryption format version {version}")
    end = 5 + key_len
    if (len(blob) if total is None else total) < end + NONCE_BYTES + TAG_BYTES:
        raise IntegrityError("encrypted value is truncated")
    try:
        key_id = blob[5:end].decode("ascii", errors="strict")
    except UnicodeDecodeError:
        raise IntegrityError("encrypted value has a damaged key id in its header") from None
    return Header(version, flags, key_id, end)


class Codec:
    """Seal and open values with the store's key set.

    Args:
        keys: the key set; new values use its active key, old ones any key it holds.
    """

    def __init__(self, keys: KeySet, reload: Callable[[], KeySet] | None = None) -> None:
        self._keys = keys
        self._ciphers = _ciphers(keys)
        self._keys_by_id = _raw_keys(keys)
        self._reload = reload
        # Rotation keeps the fingerprint key, so this never changes for a store.
        self._mac_key = hmac.digest(keys.fingerprint_key, MAC_KEY_LABEL, "sha256")

    def mac(self, data: bytes) -> str:
        """A keyed MAC (HMAC-SHA256, hex) that binds clear metadata to the store's keys.

        Its key is derived from the fingerprint key, which rotation keeps, so MACs written
        before a data-key rotation stay valid after it.
        """
        return hmac.digest(self._mac_key, data, "sha256").hex()

    def mac_ok(self, data: bytes, expected: str | None) -> bool:
        """True when `expected` is the MAC of `data` (constant-time comparison)."""
        return expected is not None and hmac.compare_digest(self.mac(data), expected)

    @property
    def active_key_id(self) -> str:
        """The key id that new values are sealed with."""
        return self._keys.active_id

    def holds(self, key_id: str) -> bool:
        """True when this key set can open values sealed with `key_id`."""
        return key_id in self._ciphers

    @property
    def shared(self) -> bool:
        """True on a device of a team store, where `user=X` scopes can be private."""
        return self._keys.shared

    def key_for(self, user: str | None) -> str | None:
        """The personal key id this device holds for `user` (None: not held, or no user).

        A local single-user store has no personal keys: everything uses the one key set.
        Whether a `user=X` scope this device holds no key for is another member's private
        scope is the write transaction's question (`WriteTx.key_for`).
        """
        if user is None or not self._keys.shared:
            return None
        own = self._keys.personal.get(user)
        return own[0] if own is not None else None

    def fingerprint_key_for(self, user: str | None) -> bytes:
        """The key of content fingerprints (duplicates, deletion fences) in a scope of `user`.

        A member's private scope uses a key derived from their personal key, so a teammate
        holding the team keys cannot test a guessed text against it (#12); everything else,
        and every single-user store, uses the store's fingerprint key.
        """
        own = self._keys.personal.get(user) if user is not None and self.shared else None
        if own is None:
            return self._keys.fingerprint_key
        return hmac.digest(own[1], PERSONAL_FINGERPRINT_LABEL, "sha256")

    def fingerprint_keys(self) -> tuple[bytes, ...]:
        """Every fingerprint key this device can check with: the store's, then each personal
        one it holds (a fence stood under one of them is met under the same key)."""
        members = sorted(self._keys.personal) if self.shared else []
        return (
            self._keys.fingerprint_key,
            *(self.fingerprint_key_for(member) for member in members),
        )

    def seal(
        self, data: bytes, aad: Aad, *, key_id: str | None = None, compress: bool = True
    ) -> bytes:
        """Compress (when it helps) and encrypt `data` for the place `aad` names.

        `compress=False` is for data that does not shrink (float vectors), where zlib would
        only cost time.
        """
        kid = key_id or self._keys.active_id
        flags = 0
        body = data
        if compress and len(data) >= COMPRESS_THRESHOLD:
            packed = zlib.compress(data, 6)
            if len(packed) < len(data):
                body, flags = packed, FLAG_COMPRESSED
        header = _header(kid, flags)
        nonce = os.urandom(NONCE_BYTES)
        cipher = self._cipher(kid)
        return header + nonce + cipher.encrypt(nonce, body, header + aad.encode())

    def open(self, blob: bytes, aad: Aad) -> bytes:
        """Decrypt and decompress a sealed value.

        Raises:
            IntegrityError: the tag does not verify (tampered, or moved from another row).
            KeyUnavailableError: the value was sealed with a key this key set lacks.
        """
        head = read_header(blob)
        header = blob[: head.length]
        nonce = blob[head.length : head.length + NONCE_BYTES]
        try:
            body = self._cipher(head.key_id).decrypt(
                nonce, blob[head.length + NONCE_BYTES :], header + aad.encode()
            )
        except InvalidTag:
            raise _failed(aad) from None
        if head.flags & FLAG_COMPRESSED:
            return zlib.decompress(body)
        return body

    def seal_to(self, pieces: Iterable[bytes | memoryview], aad: Aad, handle: BinaryIO) -> None:
        """Seal the concatenation of `pieces` into an open file, piece by piece.

        The file holds the same layout `seal(..., compress=False)` gives, so `open` reads it
        too; neither the whole plaintext nor the whole ciphertext is ever in memory.
        """
        header = _header(self._keys.active_id, 0)
        nonce = os.urandom(NONCE_BYTES)
        handle.write(header + nonce)
        key = self._key(self._keys.active_id)
        encrypt_pieces(key, nonce, header + aad.encode(), pieces, handle.write)

    def open_from(self, handle: BinaryIO, size: int, aad: Aad) -> bytearray:
        """Open a sealed value of `size` bytes stored in a seekable file, reading it in pieces.

        Raises:
            IntegrityError, KeyUnavailableError: as `open`.
        """
        sealed = self._sealed_file(handle, size, aad)
        if not sealed.head.flags & FLAG_COMPRESSED:
            try:
                return decrypt_into(*sealed.secrets, handle, sealed.length)
            except IntegrityError:
                raise _failed(aad) from None
        out = bytearray()
        for piece in _plain_pieces(sealed, handle, aad):
            out += piece
        return out

    def check_from(self, handle: BinaryIO, size: int, aad: Aad) -> None:
        """Verify a sealed file's tag without keeping its plaintext (for `verify`).

        Raises:
            IntegrityError, KeyUnavailableError: as `open`.
        """
        for _ in self.pieces_from(handle, size, aad):
            pass

    def pieces_from(self, handle: BinaryIO, size: int, aad: Aad) -> Iterator[bytes]:
        """The plaintext of a sealed file as it is decrypted, piece by piece, never whole.

        The pieces are authentic only once the iterator ends without an error (the tag is
        checked last): a caller may keep what it derives from them only then.

        Raises:
            IntegrityError, KeyUnavailableError: as `open`.
        """
        return _plain_pieces(self._sealed_file(handle, size, aad), handle, aad)

    def seal_json(self, value: Any, aad: Aad, *, key_id: str | None = None) -> bytes:
        """Seal a JSON-serialisable value."""
        return self.seal(_dump(value), aad, key_id=key_id)

    def open_json(self, blob: bytes, aad: Aad) -> Any:
        """Open a value sealed by `seal_json`."""
        return json.loads(self.open(blob, aad))

    def seal_text(self, text: str, aad: Aad, *, key_id: str | None = None) -> bytes:
        """Seal a string."""
        return self.seal(text.encode("utf-8"), aad, key_id=key_id)

    def open_text(self, blob: bytes, aad: Aad) -> str:
        """Open a value sealed by `seal_text`."""
        return self.open(blob, aad).decode("utf-8")

    def reseal(self, blob: bytes, aad: Aad) -> bytes:
        """Re-encrypt under the active key (key rotation); the plaintext never leaves this call."""
        return self.seal(self.open(blob, aad), aad)

    def _sealed_file(self, handle: BinaryIO, size: int, aad: Aad) -> _SealedFile:
        """A sealed file's header and secrets; `handle` is left at the ciphertext."""
        start = handle.read(5)
        start += handle.read(start[4] + NONCE_BYTES if len(start) == 5 else 0)
        head = read_header(start, size)
        header, nonce = start[: head.length], start[head.length : head.length + NONCE_BYTES]
        key = self._key(head.key_id)
        handle.seek(size - TAG_BYTES)
        tag = handle.read(TAG_BYTES)
        handle.seek(head.length + NONCE_BYTES)
        length = size - head.length - NONCE_BYTES - TAG_BYTES
        return _SealedFile(head, (key, nonce, tag, header + aad.encode()), length)

    def _key(self, key_id: str) -> bytes:
        self._cipher(key_id)  # the same errors, and a reload after another process rotated
        return self._keys_by_id[key_id]

    def _cipher(self, key_id: str) -> AESGCM:
        if key_id not in self._ciphers and key_id.startswith(PERSONAL_PREFIX):
            # Another member's private row: no reload would bring their key here.
            raise PrivateScopeError(
                f"sealed with a member's personal key ({key_id}); not readable with this "
                "device's keys"
            )
        if key_id not in self._ciphers and self._reload is not None:
            # Another process rotated the key: fetch the key set once and look again.
            self._keys = self._reload()
            self._ciphers = _ciphers(self._keys)
            self._keys_by_id = _raw_keys(self._keys)
        try:
            return self._ciphers[key_id]
        except KeyError:
            raise KeyUnavailableError(
                f"the data was encrypted with key {key_id!r}, which this key set does not hold"
            ) from None


def is_personal(blob: bytes) -> bool:
    """True when a sealed value is under a personal key (a member's private scope)."""
    return read_header(blob).key_id.startswith(PERSONAL_PREFIX)


def _ciphers(keys: KeySet) -> dict[str, AESGCM]:
    found = {kid: AESGCM(raw) for kid, raw in keys.keys.items()}
    found.update({kid: AESGCM(raw) for kid, raw in keys.personal.values()})
    return found


def _raw_keys(keys: KeySet) -> dict[str, bytes]:
    return {**keys.keys, **dict(keys.personal.values())}


@dataclass(frozen=True)
class _SealedFile:
    """What opening a sealed file needs: its header, (key, nonce, tag, associated data) and
    the ciphertext's length."""

    head: Header
    secrets: tuple[bytes, bytes, bytes, bytes]
    length: int


def _header(key_id: str, flags: int) -> bytes:
    kid = key_id.encode("ascii")
    return MAGIC + bytes((FORMAT_VERSION, flags, len(kid))) + kid


def _failed(aad: Aad) -> IntegrityError:
    """The one message for a value that does not open: it names the place."""
    return IntegrityError(
        f"integrity check failed for {aad.table}.{aad.field} of {aad.row_id}: "
        "the ciphertext was altered, moved, or sealed with a different key"
    )


def _plain_pieces(sealed: _SealedFile, handle: BinaryIO, aad: Aad) -> Iterator[bytes]:
    pieces = _named_failure(decrypt_pieces(*sealed.secrets, handle, sealed.length), aad)
    return _inflated(pieces, aad) if sealed.head.flags & FLAG_COMPRESSED else pieces


def _inflated(pieces: Iterator[bytes], aad: Aad) -> Iterator[bytes]:
    """Decompressed `pieces`. They are inflated before the tag is checked (it comes last),
    so a flag or body changed on disk can fail here first: that is the tag's failure."""
    inflate = zlib.decompressobj()
    try:
        for piece in pieces:
            yield inflate.decompress(piece)
        yield inflate.flush()
    except zlib.error:
        raise _failed(aad) from None


def _named_failure(pieces: Iterator[bytes], aad: Aad) -> Iterator[bytes]:
    """`pieces`, with a failed tag reported as `open` reports it (naming the place)."""
    try:
        yield from pieces
    except IntegrityError:
        raise _failed(aad) from None


def _dump(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()
