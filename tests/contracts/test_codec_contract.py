"""Contract of the codec seam: what every way of sealing values must guarantee (R24).

Each entry of `CODECS` builds a codec over a key set; a new codec (another format version,
another cipher) joins by adding one entry, and every test below then runs against it.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from core.crypto.codec import Aad, Codec, read_header
from core.crypto.keys import KeySet
from core.errors import IntegrityError, KeyUnavailableError

CodecFactory = Callable[[KeySet], Codec]


def _reloading(keys: KeySet) -> Codec:
    # A codec that starts with an older key set and must fetch the current one on demand,
    # as a second process does after another one rotated the key.
    stale = KeySet({}, keys.active_id, keys.fingerprint_key)
    return Codec(stale, reload=lambda: keys)


CODECS: dict[str, CodecFactory] = {
    "aes-gcm": Codec,
    "aes-gcm, keys fetched on demand": _reloading,
}

HERE = Aad("memories", "m1", "content")
TEXTS = ("", "short", "数据库密码在保险箱里" * 40, "x" * 10_000)


@pytest.fixture(params=list(CODECS), ids=list(CODECS))
def make(request: pytest.FixtureRequest) -> CodecFactory:
    return CODECS[request.param]


@pytest.fixture
def keys() -> KeySet:
    return KeySet.generate()


@pytest.mark.parametrize("text", TEXTS, ids=["empty", "short", "chinese-long", "long"])
def test_round_trip(make: CodecFactory, keys: KeySet, text: str) -> None:
    codec = make(keys)
    blob = codec.seal_text(text, HERE)
    assert codec.open_text(blob, HERE) == text
    assert text.encode() not in blob or not text


def test_json_round_trip_is_canonical(make: CodecFactory, keys: KeySet) -> None:
    codec = make(keys)
    value = {"b": [1, 2, {"c": "三"}], "a": None}
    assert codec.open_json(codec.seal_json(value, HERE), HERE) == value


def test_every_seal_is_fresh(make: CodecFactory, keys: KeySet) -> None:
    codec = make(keys)
    assert codec.seal(b"same", HERE) != codec.seal(b"same", HERE)


@pytest.mark.parametrize(
    "elsewhere",
    [
        Aad("memories", "m2", "content"),
        Aad("memories", "m1", "reason"),
        Aad("events", "m1", "content"),
    ],
    ids=["other-row", "other-field", "other-table"],
)
def test_a_value_moved_elsewhere_does_not_open(
    make: CodecFactory, keys: KeySet, elsewhere: Aad
) -> None:
    codec = make(keys)
    blob = codec.seal_text("the garage code", HERE)
    with pytest.raises(IntegrityError, match="altered, moved"):
        codec.open_text(blob, elsewhere)


def test_any_flipped_byte_is_detected(make: CodecFactory, keys: KeySet) -> None:
    codec = make(keys)
    blob = codec.seal_text("a value long enough to compress " * 20, HERE)
    for position in range(5, len(blob), max(1, len(blob) // 40)):
        damaged = bytearray(blob)
        damaged[position] ^= 0x01
        with pytest.raises((IntegrityError, KeyUnavailableError)):
            codec.open(bytes(damaged), HERE)


@pytest.mark.parametrize(
    "blob",
    [b"", b"XX\x01\x00\x00", b"MC\x09\x00\x00" + b"\x00" * 40, b"MC\x01\x00\x08abc"],
    ids=["empty", "bad-magic", "unknown-version", "truncated"],
)
def test_foreign_bytes_are_refused_with_a_reason(
    make: CodecFactory, keys: KeySet, blob: bytes
) -> None:
    with pytest.raises(IntegrityError):
        make(keys).open(blob, HERE)


def test_another_stores_key_cannot_open(make: CodecFactory, keys: KeySet) -> None:
    blob = make(keys).seal_text("private", HERE)
    with pytest.raises(KeyUnavailableError, match="does not hold"):
        make(KeySet.generate()).open_text(blob, HERE)


def test_rotation_reseals_under_the_new_key_and_old_values_still_open(
    make: CodecFactory, keys: KeySet
) -> None:
    old = make(keys).seal_text("before rotation", HERE)
    rotated = keys.with_new_key()
    codec = make(rotated)
    assert read_header(old).key_id == keys.active_id
    assert codec.open_text(old, HERE) == "before rotation"
    new = codec.reseal(old, HERE)
    assert read_header(new).key_id == rotated.active_id == codec.active_key_id
    retired = make(rotated.retire_others())
    assert retired.open_text(new, HERE) == "before rotation"
    with pytest.raises(KeyUnavailableError):
        retired.open_text(old, HERE)


def test_incompressible_data_may_skip_compression(make: CodecFactory, keys: KeySet) -> None:
    codec = make(keys)
    data = bytes(range(256)) * 8
    plain = codec.seal(data, HERE, compress=False)
    assert read_header(plain).flags == 0
    assert codec.open(plain, HERE) == data
    packed = codec.seal(b"a" * 4096, HERE)
    assert read_header(packed).flags != 0 and len(packed) < 4096
    assert codec.open(packed, HERE) == b"a" * 4096


def test_header_names_the_key_but_not_the_content(make: CodecFactory, keys: KeySet) -> None:
    blob = make(keys).seal_text("secret words", HERE)
    head = read_header(blob)
    assert head.key_id == keys.active_id and head.version == 1
    assert b"secret" not in blob
