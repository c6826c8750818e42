"""Sealing and opening files piece by piece: the same bytes as one-shot sealing, the same
refusals (R24), without holding the whole file twice (#13)."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from core.crypto import stream
from core.crypto.codec import FLAG_COMPRESSED, Aad, Codec, read_header
from core.crypto.keys import KeySet
from core.errors import IntegrityError, KeyUnavailableError

AAD = Aad("index_files", "vectors.mcidx", "vector")


@pytest.fixture(autouse=True)
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces of 1 KiB, so a 10 KiB value crosses many piece boundaries."""
    monkeypatch.setattr(stream, "CHUNK_BYTES", 1024)


@pytest.fixture
def codec() -> Codec:
    """A codec over a fresh real key set."""
    return Codec(KeySet.generate())


def _sealed_file(codec: Codec, pieces: list[bytes], path: Path) -> Path:
    with path.open("wb") as handle:
        codec.seal_to(pieces, AAD, handle)
    return path


def _open(codec: Codec, path: Path, aad: Aad = AAD) -> bytearray:
    with path.open("rb") as handle:
        return codec.open_from(handle, path.stat().st_size, aad)


def test_pieces_seal_to_what_one_shot_open_reads(codec: Codec, tmp_path: Path) -> None:
    """A streamed file is an ordinary sealed value; pieces of any size join seamlessly."""
    pieces = [os.urandom(n) for n in (0, 1, 1023, 1024, 5000, 3)]
    path = _sealed_file(codec, pieces, tmp_path / "f")
    assert codec.open(path.read_bytes(), AAD) == b"".join(pieces)
    assert _open(codec, path) == b"".join(pieces)


def test_one_shot_sealed_values_open_in_pieces(codec: Codec, tmp_path: Path) -> None:
    """The reader also takes values `seal` wrote, compressed ones included."""
    plain = os.urandom(10_000)
    (tmp_path / "raw").write_bytes(codec.seal(plain, AAD, compress=False))
    assert _open(codec, tmp_path / "raw") == plain
    text = b"the same words again " * 2000
    sealed = codec.seal(text, AAD)
    assert read_header(sealed).flags & FLAG_COMPRESSED
    (tmp_path / "packed").write_bytes(sealed)
    assert _open(codec, tmp_path / "packed") == text


@pytest.mark.parametrize("where", [0.1, 0.5, 0.99])
def test_a_changed_byte_anywhere_is_refused_naming_the_place(
    codec: Codec, tmp_path: Path, where: float
) -> None:
    path = _sealed_file(codec, [os.urandom(10_000)], tmp_path / "f")
    blob = bytearray(path.read_bytes())
    blob[int(len(blob) * where)] ^= 0x01
    path.write_bytes(bytes(blob))
    with pytest.raises(IntegrityError, match=r"index_files\.vector of vectors\.mcidx"):
        _open(codec, path)
    with pytest.raises(IntegrityError), path.open("rb") as handle:
        codec.check_from(handle, path.stat().st_size, AAD)


@pytest.mark.parametrize("packed", [False, True], ids=["flag-set", "flag-cleared"])
def test_a_changed_compression_flag_is_the_tag_failure_not_a_zlib_error(
    codec: Codec, tmp_path: Path, packed: bool
) -> None:
    """A streamed read inflates before the tag (it comes last) is checked: bytes that do
    not inflate are reported as the file's integrity failure, naming the place, by every
    reader (whole, in pieces, check only)."""
    text = b"the same words again " * 2000
    blob = bytearray(codec.seal(text, AAD) if packed else codec.seal(os.urandom(9000), AAD))
    assert bool(read_header(bytes(blob)).flags & FLAG_COMPRESSED) == packed
    blob[3] ^= FLAG_COMPRESSED  # magic (2 bytes), format version, flags
    path = tmp_path / "f"
    path.write_bytes(bytes(blob))
    with pytest.raises(IntegrityError, match=r"index_files\.vector of vectors\.mcidx"):
        _open(codec, path)
    with path.open("rb") as handle:
        pieces = codec.pieces_from(handle, path.stat().st_size, AAD)
        with pytest.raises(IntegrityError, match=r"index_files\.vector of vectors\.mcidx"):
            list(pieces)
    with pytest.raises(IntegrityError), path.open("rb") as handle:
        codec.check_from(handle, path.stat().st_size, AAD)


def test_truncated_or_moved_files_are_refused(codec: Codec, tmp_path: Path) -> None:
    path = _sealed_file(codec, [os.urandom(5000)], tmp_path / "f")
    with pytest.raises(IntegrityError):
        _open(codec, path, Aad("index_files", "keywords.mcidx", "vector"))
    blob = path.read_bytes()
    path.write_bytes(blob[:-100])
    with pytest.raises(IntegrityError):
        _open(codec, path)
    path.write_bytes(blob[:20])
    with pytest.raises(IntegrityError, match="truncated"):
        _open(codec, path)


def test_a_file_sealed_under_another_key_is_unavailable(codec: Codec, tmp_path: Path) -> None:
    path = _sealed_file(Codec(KeySet.generate()), [b"x" * 3000], tmp_path / "f")
    with pytest.raises(KeyUnavailableError):
        _open(codec, path)


def test_a_reader_that_stops_early_is_caught() -> None:
    """A file shorter than its length claims ends the read with an error, not a short value."""
    pieces = stream.decrypt_pieces(bytes(32), bytes(12), bytes(16), b"", io.BytesIO(bytes(10)), 100)
    with pytest.raises(IntegrityError, match="truncated"):
        list(pieces)
    with pytest.raises(IntegrityError, match="truncated"):
        stream.decrypt_into(bytes(32), bytes(12), bytes(16), b"", io.BytesIO(bytes(10)), 100)


def test_check_passes_an_intact_file(codec: Codec, tmp_path: Path) -> None:
    path = _sealed_file(codec, [os.urandom(4000)], tmp_path / "f")
    with path.open("rb") as handle:
        codec.check_from(handle, path.stat().st_size, AAD)
