"""Personal keys in the key set and the codec (R24): what a device holds, which key a
`user=X` value is sealed with, and what another member's device can tell about it."""

from __future__ import annotations

import os

import pytest

from core.crypto.codec import Aad, Codec, is_personal
from core.crypto.keys import PERSONAL_PREFIX, KeySet, new_personal_key
from core.errors import KeyUnavailableError, PrivateScopeError

AAD = Aad("memory_revisions", "mem_1", "content")


def _device(keys: KeySet) -> KeySet:
    return keys.with_device_key(os.urandom(32))


def test_a_local_store_has_no_personal_keys_and_seals_everything_with_the_team_key() -> None:
    codec = Codec(KeySet.generate())
    assert not codec.shared
    assert codec.key_for("ana") is None and codec.key_for(None) is None
    blob = codec.seal(b"Ana's note", AAD)
    assert not is_personal(blob) and codec.holds(codec.active_key_id)


def test_a_member_device_seals_its_own_scope_with_its_personal_key() -> None:
    kid, raw = new_personal_key()
    assert kid.startswith(PERSONAL_PREFIX) and len(raw) == 32
    ana = _device(KeySet.generate()).with_personal("ana", kid, raw)
    codec = Codec(ana)
    assert codec.shared and codec.key_for("ana") == kid
    assert codec.key_for("ben") is None  # not held here: the write transaction decides
    blob = codec.seal(b"Ana's private note", AAD, key_id=codec.key_for("ana"))
    assert is_personal(blob) and codec.holds(kid)
    assert codec.open(blob, AAD) == b"Ana's private note"


def test_another_members_device_is_told_the_row_is_private_not_that_a_key_is_lost() -> None:
    team = KeySet.generate()
    kid, raw = new_personal_key()
    ana = Codec(_device(team).with_personal("ana", kid, raw))
    reloads: list[int] = []

    def reload() -> KeySet:
        reloads.append(1)
        return _device(team)

    ben = Codec(_device(team), reload=reload)
    blob = ana.seal(b"Ana's private note", AAD, key_id=kid)
    with pytest.raises(PrivateScopeError, match="personal key"):
        ben.open(blob, AAD)
    assert reloads == []  # no key reload could bring another member's personal key
    assert not ben.holds(kid)
    # A team key it does not hold is still the rotation case: one reload, then a clear error.
    stranger = Codec(KeySet.generate()).seal(b"x", AAD)
    with pytest.raises(KeyUnavailableError, match="does not hold"):
        ben.open(stranger, AAD)
    assert reloads == [1]


def test_what_may_be_shared_with_another_member_is_the_team_keys_only() -> None:
    kid, raw = new_personal_key()
    ana = _device(KeySet.generate()).with_personal("ana", kid, raw)
    shared = ana.team_only()
    assert shared.device_key is None and shared.personal == {} and not shared.shared
    assert shared.keys == ana.keys and shared.fingerprint_key == ana.fingerprint_key


def test_device_and_personal_keys_survive_the_key_store_round_trip() -> None:
    kid, raw = new_personal_key()
    ana = _device(KeySet.generate()).with_personal("ana", kid, raw)
    back = KeySet.from_bytes(ana.to_bytes())
    assert back.device_key == ana.device_key and back.personal == {"ana": (kid, raw)}
    assert back.shared


def test_fingerprints_of_a_private_scope_use_a_key_only_its_member_holds() -> None:
    """#12: a teammate holding the team keys cannot recompute a private scope's
    fingerprints; a local store keeps its one fingerprint key everywhere."""
    team = KeySet.generate()
    kid, raw = new_personal_key()
    ana = Codec(_device(team).with_personal("ana", kid, raw))
    ben = Codec(_device(team))
    private = ana.fingerprint_key_for("ana")
    assert private not in (team.fingerprint_key, raw)  # derived, never the sealing key
    assert ana.fingerprint_key_for("ben") == ana.fingerprint_key_for(None) == team.fingerprint_key
    assert ben.fingerprint_key_for("ana") == team.fingerprint_key  # ben cannot derive ana's
    assert ana.fingerprint_keys() == (team.fingerprint_key, private)
    assert ben.fingerprint_keys() == (team.fingerprint_key,)
    local = Codec(KeySet.generate().with_personal("ana", kid, raw))  # not a team store
    assert local.fingerprint_keys() == (local.fingerprint_key_for("ana"),)
