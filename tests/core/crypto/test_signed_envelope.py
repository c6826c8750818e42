"""Signed key envelopes (#41): what the opener refuses, byte by byte."""

from __future__ import annotations

import pytest

from core.crypto.envelope import new_device_key, public_of
from core.crypto.signed_envelope import MAGIC, open_signed, parse, seal_signed
from core.crypto.signing import new_signing_key, verifying_key
from core.errors import IntegrityError

AAD = b"devices|dev_1|envelope"


def _sealed() -> tuple[bytes, bytes, bytes]:
    device, signer = new_device_key(), new_signing_key()
    return device, signer, seal_signed(public_of(device), b"the key set", AAD, "dev_0", signer)


def test_an_envelope_opens_with_its_signers_key_only() -> None:
    device, signer, envelope = _sealed()
    parsed = parse(envelope)
    assert parsed.signer == "dev_0"
    assert open_signed(device, parsed, AAD, verifying_key(signer)) == b"the key set"
    with pytest.raises(IntegrityError, match="does not verify"):
        open_signed(device, parsed, AAD, verifying_key(new_signing_key()))
    with pytest.raises(IntegrityError, match="does not verify"):  # another purpose
        open_signed(device, parsed, b"personal_keys|dev_1|ana", verifying_key(signer))
    with pytest.raises(IntegrityError, match="does not verify"):  # another recipient
        open_signed(new_device_key(), parsed, AAD, verifying_key(signer))


@pytest.mark.parametrize(
    "raw, reason",
    [
        (b"", "not signed"),
        (b"\x00" * 80, "not signed"),
        (MAGIC, "not signed"),
        (MAGIC + b"\x05dev", "truncated"),
        (MAGIC + b"\x03dev" + b"\x00" * 64, "truncated"),
        (MAGIC + b"\x02\xff\xfe" + b"\x00" * 90, "no readable device"),
    ],
)
def test_bad_envelopes_are_refused_clearly(raw: bytes, reason: str) -> None:
    with pytest.raises(IntegrityError, match=reason):
        parse(raw)


def test_a_device_id_must_fit_the_layout() -> None:
    with pytest.raises(IntegrityError, match="1 to 255"):
        seal_signed(public_of(new_device_key()), b"k", AAD, "", new_signing_key())
