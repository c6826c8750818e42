"""Invitations and key envelopes: the crypto that hands a store's keys to another device."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core import IntegrityError, InvalidInputError, WrongPassphraseError
from core.crypto.envelope import new_device_key, open_with, public_of, seal_to
from core.crypto.invitation import Invitation, new_code, open_invitation, seal_invitation
from core.crypto.keys import KeySet


def _invitation() -> Invitation:
    return Invitation("store123", "postgresql://kim@db/mem", "kim-laptop", KeySet.generate())


def test_invitation_round_trip_and_code_format() -> None:
    inv = _invitation()
    code = new_code()
    assert len(code) == 23 and code.count("-") == 3
    opened = open_invitation(seal_invitation(inv, code), code.lower().replace("-", " "))
    assert opened.store_id == "store123" and opened.member == "kim-laptop"
    assert opened.database_url == inv.database_url
    assert opened.keys.keys == inv.keys.keys and opened.keys.device_key is None


def test_invitation_refuses_wrong_codes_and_bad_files() -> None:
    code = new_code()
    raw = seal_invitation(_invitation(), code)
    other = next(c for c in (new_code(), new_code()) if c != code)
    with pytest.raises(WrongPassphraseError, match="does not open"):
        open_invitation(raw, other)
    with pytest.raises(WrongPassphraseError, match="wrong length"):
        open_invitation(raw, "ABC")
    doc = json.loads(raw)
    bad_docs = [
        b"x" * 70_000,
        b"not json",
        b"[]",
        json.dumps({**doc, "format": "other"}).encode(),
        json.dumps({**doc, "version": 9}).encode(),
        json.dumps({**doc, "salt": "%%%"}).encode(),
        json.dumps({k: v for k, v in doc.items() if k != "nonce"}).encode(),
    ]
    for bad in bad_docs:
        with pytest.raises(InvalidInputError):
            open_invitation(bad, code)


def test_invitation_with_a_damaged_body_is_refused() -> None:
    """A well-sealed body that is not a key set (a crafted file) is a clear error."""
    import base64
    import os

    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    from core.crypto import invitation as mod

    code = new_code()
    salt, nonce = os.urandom(16), os.urandom(12)
    body = json.dumps({"store_id": "s", "database_url": "u", "member": "m", "keys": "{}"})
    sealed = AESGCM(mod._kek(code, salt)).encrypt(nonce, body.encode(), mod._AAD)
    doc = {
        "format": mod.FORMAT,
        "version": mod.VERSION,
        "salt": base64.b64encode(salt).decode(),
        "nonce": base64.b64encode(nonce).decode(),
        "ciphertext": base64.b64encode(sealed).decode(),
    }
    with pytest.raises(InvalidInputError, match="damaged"):
        open_invitation(json.dumps(doc).encode(), code)


def test_envelope_opens_only_for_its_device() -> None:
    mine, other = new_device_key(), new_device_key()
    sealed = seal_to(public_of(mine), b"the key set", b"aad")
    assert open_with(mine, sealed, b"aad") == b"the key set"
    with pytest.raises(IntegrityError, match="does not open"):
        open_with(other, sealed, b"aad")
    with pytest.raises(IntegrityError, match="does not open"):
        open_with(mine, sealed, b"other aad")
    with pytest.raises(IntegrityError, match="truncated"):
        open_with(mine, sealed[:40], b"aad")


def test_key_set_keeps_its_device_key_through_rotation_steps() -> None:
    keys = KeySet.generate().with_device_key(new_device_key())
    rotated = keys.with_new_key().retire_others()
    assert rotated.device_key == keys.device_key
    assert KeySet.from_bytes(rotated.to_bytes()).device_key == keys.device_key
    assert KeySet.from_bytes(keys.with_device_key(None).to_bytes()).device_key is None


def test_a_key_file_that_cannot_be_read_is_named(tmp_path: Path) -> None:
    """A directory (or any OS error) where the key file should be: one clear line."""
    from core import KeyUnavailableError
    from core.crypto.keys import PassphraseKeyStore

    (tmp_path / "keyfile.json").mkdir()
    with pytest.raises(KeyUnavailableError, match="key file unreadable"):
        PassphraseKeyStore(tmp_path / "keyfile.json", "long enough passphrase").load()
