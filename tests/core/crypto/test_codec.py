"""The codec every content value passes through: AES-GCM bound to its row (R24)."""

from __future__ import annotations

import os

import pytest

from core.crypto.codec import (
    COMPRESS_THRESHOLD,
    FLAG_COMPRESSED,
    FORMAT_VERSION,
    MAGIC,
    NONCE_BYTES,
    Aad,
    Codec,
    read_header,
)
from core.crypto.keys import KeySet
from core.errors import IntegrityError, KeyUnavailableError

AAD = Aad("event_payloads", "ev_1", "ciphertext")


@pytest.fixture
def keys() -> KeySet:
    """A fresh real key set."""
    return KeySet.generate()


@pytest.fixture
def codec(keys: KeySet) -> Codec:
    """A codec over a fresh key set."""
    return Codec(keys)


def test_small_value_round_trips_uncompressed(codec: Codec) -> None:
    """R24: a short value seals and opens to the same bytes, without compression."""
    blob = codec.seal(b"hello", AAD)
    assert codec.open(blob, AAD) == b"hello"
    assert read_header(blob).flags & FLAG_COMPRESSED == 0
    assert b"hello" not in blob


def test_empty_value_round_trips(codec: Codec) -> None:
    """R24: even an empty value is sealed and authenticated."""
    assert codec.open(codec.seal(b"", AAD), AAD) == b""


def test_large_compressible_value_is_compressed_and_round_trips(codec: Codec) -> None:
    """R24: a large repetitive value is compressed before encryption and opens intact."""
    data = ("記憶 memory center " * 5_000).encode()
    blob = codec.seal(data, AAD)
    assert read_header(blob).flags & FLAG_COMPRESSED
    assert len(blob) < len(data) // 10
    assert codec.open(blob, AAD) == data


def test_incompressible_large_value_is_stored_uncompressed(codec: Codec) -> None:
    """R24: random bytes above the threshold are not compressed (zlib would not win)."""
    data = os.urandom(COMPRESS_THRESHOLD * 4)
    blob = codec.seal(data, AAD)
    assert read_header(blob).flags & FLAG_COMPRESSED == 0
    assert codec.open(blob, AAD) == data


def test_sealing_twice_gives_different_ciphertexts(codec: Codec) -> None:
    """R24: a fresh nonce per value, so equal plaintexts are not recognisable."""
    assert codec.seal(b"same", AAD) != codec.seal(b"same", AAD)


def test_json_and_text_helpers_round_trip(codec: Codec) -> None:
    """R24: JSON and text values (including Chinese) survive sealing."""
    value = {"text": "用户喜欢用 pnpm", "data": {"n": 1, "list": [1, "二"]}}
    assert codec.open_json(codec.seal_json(value, AAD), AAD) == value
    assert codec.open_text(codec.seal_text("记住：周五发布", AAD), AAD) == "记住：周五发布"
    assert "用户".encode() not in codec.seal_json(value, AAD)


@pytest.mark.parametrize("region", ["nonce", "ciphertext", "tag"])
def test_tampered_byte_fails_integrity(codec: Codec, region: str) -> None:
    """R24: flipping one byte of nonce, ciphertext or tag fails to open."""
    blob = bytearray(codec.seal(b"some secret content", AAD))
    start = read_header(bytes(blob)).length
    index = {"nonce": start, "ciphertext": start + NONCE_BYTES + 3, "tag": len(blob) - 1}[region]
    blob[index] ^= 0x01
    with pytest.raises(IntegrityError, match="integrity check failed"):
        codec.open(bytes(blob), AAD)


def test_tampered_compression_flag_fails_integrity(codec: Codec) -> None:
    """R24: the header is authenticated, so flipping the compression flag is detected."""
    blob = bytearray(codec.seal(b"x" * 1000, AAD))
    blob[3] ^= FLAG_COMPRESSED
    with pytest.raises(IntegrityError):
        codec.open(bytes(blob), AAD)


@pytest.mark.parametrize(
    "other",
    [
        Aad("event_payloads", "ev_2", "ciphertext"),
        Aad("event_payloads", "ev_1", "other_field"),
        Aad("decisions", "ev_1", "ciphertext"),
    ],
    ids=["other-row", "other-field", "other-table"],
)
def test_value_moved_to_another_place_fails_integrity(codec: Codec, other: Aad) -> None:
    """R24: a ciphertext copied into another row, field or table does not open."""
    blob = codec.seal(b"belongs to ev_1", AAD)
    with pytest.raises(IntegrityError, match="altered, moved"):
        codec.open(blob, other)


def test_aad_encoding_is_unambiguous() -> None:
    """R24: AADs whose parts concatenate to the same string still differ."""
    assert Aad("ab", "c", "d").encode() != Aad("a", "bc", "d").encode()


def test_value_sealed_with_unknown_key_raises_key_unavailable(codec: Codec) -> None:
    """R24: a value under a key the set does not hold names the missing key id."""
    foreign = Codec(KeySet.generate())
    blob = foreign.seal(b"from another store", AAD)
    with pytest.raises(KeyUnavailableError, match=foreign.active_key_id):
        codec.open(blob, AAD)


def test_sealing_with_unknown_key_id_raises_key_unavailable(codec: Codec) -> None:
    """R24: asking to seal under a key the set lacks is refused."""
    with pytest.raises(KeyUnavailableError, match="knope"):
        codec.seal(b"x", AAD, key_id="knope")


def test_wrong_key_with_same_id_fails_integrity(keys: KeySet) -> None:
    """R24: a different key under the same id fails the tag check."""
    impostor = KeySet({keys.active_id: os.urandom(32)}, keys.active_id, os.urandom(32))
    blob = Codec(keys).seal(b"secret", AAD)
    with pytest.raises(IntegrityError):
        Codec(impostor).open(blob, AAD)


def test_header_key_id_is_readable_without_decrypting(codec: Codec) -> None:
    """R24: the key id in the clear header tells rotation which key sealed a value."""
    blob = codec.seal(b"x", AAD)
    head = read_header(blob)
    assert head.key_id == codec.active_key_id
    assert head.version == FORMAT_VERSION
    assert head.length == 5 + len(codec.active_key_id)
    assert blob[: len(MAGIC)] == MAGIC


@pytest.mark.parametrize(
    "blob",
    [b"", b"MC", b"XX\x01\x00\x02k1" + bytes(40), b"mc\x01\x00\x02k1" + bytes(40)],
    ids=["empty", "magic-only", "bad-magic", "lowercase-magic"],
)
def test_bad_magic_or_too_short_is_an_integrity_error(codec: Codec, blob: bytes) -> None:
    """R24: bytes that are not a sealed value are refused as corrupt."""
    with pytest.raises(IntegrityError):
        read_header(blob)
    with pytest.raises(IntegrityError):
        codec.open(blob, AAD)


def test_unknown_format_version_is_an_integrity_error(codec: Codec) -> None:
    """R24: a value of a format this code does not know is refused, naming the version."""
    blob = bytearray(codec.seal(b"x", AAD))
    blob[2] = 99
    with pytest.raises(IntegrityError, match="99"):
        codec.open(bytes(blob), AAD)


def test_truncated_value_is_an_integrity_error(codec: Codec) -> None:
    """R24: a value cut short (no room for nonce and tag) is refused as truncated."""
    blob = codec.seal(b"x", AAD)
    head = read_header(blob)
    with pytest.raises(IntegrityError, match="truncated"):
        codec.open(blob[: head.length + NONCE_BYTES + 15], AAD)


def test_truncated_ciphertext_fails_integrity(codec: Codec) -> None:
    """R24: dropping the last byte of a longer value breaks the tag."""
    blob = codec.seal(b"a longer secret value", AAD)
    with pytest.raises(IntegrityError):
        codec.open(blob[:-1], AAD)


def test_non_ascii_key_id_in_header_is_an_integrity_error(codec: Codec) -> None:
    """R24: a corrupted key id byte in the header is reported as corruption, not a crash."""
    blob = bytearray(codec.seal(b"x", AAD))
    blob[6] = 0xFF
    with pytest.raises(IntegrityError):
        read_header(bytes(blob))


def test_reseal_moves_value_to_active_key(keys: KeySet) -> None:
    """R24: rotation re-encrypts under the new active key; the old key set cannot open it."""
    old = Codec(keys)
    blob = old.seal(b"carried over", AAD)
    rotated = Codec(keys.with_new_key())
    resealed = rotated.reseal(blob, AAD)
    assert read_header(resealed).key_id == rotated.active_key_id != old.active_key_id
    assert rotated.open(resealed, AAD) == b"carried over"
    with pytest.raises(KeyUnavailableError):
        old.open(resealed, AAD)


def test_codec_opens_values_of_every_key_it_holds(keys: KeySet) -> None:
    """R24: during a rotation both the old and the new key open their values."""
    old_blob = Codec(keys).seal(b"old", AAD)
    both = Codec(keys.with_new_key())
    assert both.open(old_blob, AAD) == b"old"
    assert both.open(both.seal(b"new", AAD), AAD) == b"new"
