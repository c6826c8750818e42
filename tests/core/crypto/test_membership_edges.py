"""The edges of the membership replay (#41, R24), on records signed here with real Ed25519
keys: each record that must not count is refused with its own reason, and refusing it
neither loses nor spoils what the other records establish."""

from __future__ import annotations

from typing import Any

import pytest

from core.crypto.membership import SignedRecord, Trust, evaluate
from core.crypto.signing import canonical, new_signing_key, sign, verifies, verifying_key
from tests.core.crypto.test_membership import STORE, Team


class EdgeTeam(Team):
    """A `Team` that can also cancel invitations and write records as it pleases."""

    def cancel(self, rid: str, by: str, invitation: str, at: str) -> None:
        body = {"kind": "cancel", "invitation": invitation, "signer": by, "at": at}
        self.add(rid, self.keys[by], body)

    def device_body(self, device: str, member: str, signer: str, at: str) -> dict[str, Any]:
        return self._device(device, member, signer, at)

    def raw(self, rid: str, kind: str, signer: str, text: str, key: bytes | None = None) -> None:
        """A row exactly as given: `text` is stored (and signed) unchanged."""
        self.records.append(SignedRecord(rid, kind, signer, text, sign(key or self.root, text)))


def reasons_of(trust: Trust, record_id: str) -> list[str]:
    return [p.reason for p in trust.problems if p.record_id == record_id]


def founded_with_ben() -> EdgeTeam:
    """ana owns the store; ben joined as a member through ana's invitation i1."""
    team = EdgeTeam()
    team.founder()
    team.invite("i1", "d-ana", "ben", "member", "t01", "t99")
    team.join("d-ben", "ben", "i1", "t02")
    return team


# --- signatures -------------------------------------------------------------------------


def test_a_good_signature_verifies() -> None:
    key = new_signing_key()
    assert verifies(verifying_key(key), "text", sign(key, "text"))


@pytest.mark.parametrize(
    ("public_hex", "text", "signature"),
    [
        pytest.param(None, "tampered", None, id="other-text"),
        pytest.param("other-key", "text", None, id="other-key"),
        pytest.param(None, "text", "truncated", id="truncated-signature"),
        pytest.param("not hex", "text", None, id="key-not-hex"),
        pytest.param("abcd", "text", None, id="key-too-short"),
        pytest.param(None, "text", "none", id="signature-not-bytes"),
    ],
)
def test_a_bad_or_malformed_signature_is_a_plain_no(
    public_hex: str | None, text: str, signature: str | None
) -> None:
    key = new_signing_key()
    good = sign(key, "text")
    public = {None: verifying_key(key), "other-key": verifying_key(new_signing_key())}.get(
        public_hex, public_hex
    )
    given: Any = {None: good, "truncated": good[:32], "none": None}[signature]
    assert verifies(str(public), text, given) is False


# --- rows that cannot be read as a record of this store ----------------------------------


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        pytest.param("invite", "{not json", id="not-json"),
        pytest.param("invite", "[1, 2]", id="not-an-object"),
        pytest.param("invite", "[" * 100_000, id="nested-too-deep"),
        pytest.param("invite", canonical({"store": "store2", "kind": "invite"}), id="other-store"),
        pytest.param("invite", canonical({"kind": "invite"}), id="no-store"),
        pytest.param("invite", canonical({"store": STORE, "kind": "remove"}), id="kind-differs"),
    ],
)
def test_an_unreadable_or_foreign_row_is_a_problem_and_harms_nothing(kind: str, text: str) -> None:
    team = founded_with_ben()
    team.raw("bad", kind, "d-ana", text)
    trust = team.replay()
    assert reasons_of(trust, "bad") == ["unreadable, or not of this store"]
    assert [p.line() for p in trust.problems] == [
        "invite bad (?): unreadable, or not of this store"
    ]
    assert trust.roles == {"ana": "owner", "ben": "member"}
    assert set(trust.devices) == {"d-ana", "d-ben"}


def test_a_record_of_an_unknown_kind_does_not_count() -> None:
    """A well signed record of a kind the replay does not know (here: a promotion) is
    refused, not skipped silently, and gives nobody a role."""
    team = founded_with_ben()
    body = {"kind": "promote", "member": "ben", "role": "admin", "signer": "d-ana", "at": "t03"}
    team.add("p1", team.keys["d-ana"], body)
    trust = team.replay()
    assert reasons_of(trust, "p1") == ["its signer is not the one it names"]
    assert trust.problems[0].member == "ben"
    assert trust.roles == {"ana": "owner", "ben": "member"}


def test_a_record_naming_another_signer_than_its_row_does_not_count() -> None:
    """ben signs a removal of a member, but its body says ana's device signed it."""
    team = founded_with_ben()
    team.invite("i2", "d-ana", "cara", "member", "t03", "t99")
    team.join("d-cara", "cara", "i2", "t04")
    text = canonical(
        {"store": STORE, "kind": "remove", "member": "cara", "signer": "d-ana", "at": "t05"}
    )
    team.raw("r1", "remove", "d-ben", text, team.keys["d-ben"])
    trust = team.replay()
    assert reasons_of(trust, "r1") == ["its signer is not the one it names"]
    assert trust.roles["cara"] == "member" and "d-cara" in trust.devices


# --- device registrations -----------------------------------------------------------------


def test_a_device_record_naming_another_device_does_not_count() -> None:
    team = founded_with_ben()
    team.invite("i2", "d-ana", "cara", "member", "t03", "t99")
    body = team.device_body("d-cara-real", "cara", "invitation:i2", "t04")
    team.add("d-cara", team.keys["i2"], body)
    trust = team.replay()
    assert reasons_of(trust, "d-cara") == ["the record names another device"]
    assert "d-cara" not in trust.devices and "d-cara-real" not in trust.devices
    assert trust.invites["i2"].used_by is None


def test_a_founder_record_whose_signature_does_not_verify_trusts_nothing() -> None:
    """The record names the anchor's key but was signed by another key."""
    team = EdgeTeam()
    team.add("d-ana", new_signing_key(), team.device_body("d-ana", "ana", "self", "t00"))
    trust = team.replay()
    assert trust.anchored
    assert reasons_of(trust, "d-ana") == ["its signature does not verify"]
    assert not trust.devices and not trust.roles


def test_a_join_not_signed_by_the_invitations_key_does_not_use_the_invitation() -> None:
    team = founded_with_ben()
    team.invite("i2", "d-ana", "cara", "member", "t03", "t99")
    forged = team.device_body("d-mallory", "cara", "invitation:i2", "t04")
    team.add("d-mallory", new_signing_key(), forged)
    team.join("d-cara", "cara", "i2", "t05")  # the holder of the invitation still can
    trust = team.replay()
    assert reasons_of(trust, "d-mallory") == [
        "its signature does not verify under the invitation's key"
    ]
    assert "d-mallory" not in trust.devices
    assert trust.invites["i2"].used_by == "d-cara"
    assert trust.roles["cara"] == "member"


def test_an_invitation_is_only_for_the_member_it_names() -> None:
    team = founded_with_ben()
    team.invite("i2", "d-ana", "cara", "member", "t03", "t99")
    team.join("d-carl", "carl", "i2", "t04")
    trust = team.replay()
    assert reasons_of(trust, "d-carl") == ["the invitation was for cara, not carl"]
    assert "carl" not in trust.roles and trust.invites["i2"].used_by is None


def test_a_second_invitation_for_someone_who_joined_meanwhile_does_not_add_a_device() -> None:
    """Two invitations for ben, made before he joined: once he is a member, only his own
    devices may add a device of his; the second invitation of ana's does not."""
    team = EdgeTeam()
    team.founder()
    team.invite("i1", "d-ana", "ben", "member", "t01", "t99")
    team.invite("i2", "d-ana", "ben", "admin", "t01", "t99")
    team.join("d-ben", "ben", "i1", "t02")
    team.join("d-ben-2", "ben", "i2", "t03")
    trust = team.replay()
    assert reasons_of(trust, "d-ben-2") == ["ben is a member already"]
    assert trust.roles["ben"] == "member"
    assert set(trust.devices) == {"d-ana", "d-ben"}


# --- invitations ------------------------------------------------------------------------


def test_an_invitation_for_ones_own_device_keeps_ones_role() -> None:
    team = founded_with_ben()
    team.invite("i2", "d-ben", "ben", "admin", "t03", "t99")
    team.join("d-ben-laptop", "ben", "i2", "t04")
    trust = team.replay()
    assert reasons_of(trust, "i2") == [
        "an invitation for another device of one's own must keep one's role"
    ]
    assert "i2" not in trust.invites
    assert reasons_of(trust, "d-ben-laptop") == [
        "not registered through an invitation this device trusts"
    ]
    assert trust.roles["ben"] == "member"


def test_a_join_through_an_inviter_who_was_removed_does_not_count() -> None:
    """bob (an admin) invited cara, then the owner removed bob: cara's join comes too late."""
    team = EdgeTeam()
    team.founder()
    team.invite("i1", "d-ana", "bob", "admin", "t01", "t99")
    team.join("d-bob", "bob", "i1", "t02")
    team.invite("i2", "d-bob", "cara", "member", "t03", "t99")
    team.remove("r1", "d-ana", "bob", "t04")
    team.join("d-cara", "cara", "i2", "t05")
    trust = team.replay()
    assert trust.removed == {"bob": "t04"}
    assert "d-bob" not in trust.devices and "bob" not in trust.roles
    assert reasons_of(trust, "d-cara") == ["the inviter bob is no longer a member"]
    assert "cara" not in trust.roles


# --- cancellations ----------------------------------------------------------------------


def test_a_cancelled_invitation_can_no_longer_be_used() -> None:
    team = founded_with_ben()
    team.invite("i2", "d-ana", "cara", "member", "t03", "t99")
    team.cancel("c1", "d-ana", "i2", "t04")
    team.join("d-cara", "cara", "i2", "t05")
    trust = team.replay()
    assert reasons_of(trust, "c1") == []
    assert trust.invites["i2"].cancelled and trust.invites["i2"].used_by is None
    assert reasons_of(trust, "d-cara") == ["the invitation was cancelled"]
    assert "cara" not in trust.roles


def test_a_member_cancels_only_their_own_invitations() -> None:
    team = founded_with_ben()
    team.invite("i2", "d-ana", "cara", "member", "t03", "t99")
    team.invite("i3", "d-ben", "ben", "member", "t03", "t99")  # a device of his own
    team.cancel("c1", "d-ben", "i2", "t04")
    team.cancel("c2", "d-ben", "i3", "t04")
    team.join("d-cara", "cara", "i2", "t05")
    trust = team.replay()
    assert reasons_of(trust, "c1") == ["ben may not cancel an invitation made by ana"]
    assert not trust.invites["i2"].cancelled and trust.invites["i2"].used_by == "d-cara"
    assert reasons_of(trust, "c2") == [] and trust.invites["i3"].cancelled


def test_a_cancel_of_an_unknown_invitation_or_by_an_untrusted_device_does_not_count() -> None:
    team = founded_with_ben()
    team.invite("i2", "d-ana", "cara", "member", "t03", "t99")
    team.cancel("c1", "d-ana", "i-none", "t04")
    team.keys["d-eve"] = new_signing_key()
    team.cancel("c2", "d-eve", "i2", "t04")
    trust = team.replay()
    assert reasons_of(trust, "c1") == ["cancels no invitation this device knows"]
    assert reasons_of(trust, "c2") == ["not signed by a device this one trusts"]
    assert not trust.invites["i2"].cancelled


# --- removals by an admin ---------------------------------------------------------------


def test_an_admin_removes_members_but_not_another_admin() -> None:
    team = EdgeTeam()
    team.founder()
    team.invite("i1", "d-ana", "bob", "admin", "t01", "t99")
    team.invite("i2", "d-ana", "dan", "admin", "t01", "t99")
    team.join("d-bob", "bob", "i1", "t02")
    team.join("d-dan", "dan", "i2", "t02")
    team.invite("i3", "d-bob", "cara", "member", "t03", "t99")
    team.join("d-cara", "cara", "i3", "t04")
    team.remove("r1", "d-bob", "cara", "t05")
    team.remove("r2", "d-bob", "dan", "t05")
    trust = team.replay()
    assert trust.removed == {"cara": "t05"}
    assert "d-cara" not in trust.devices and "cara" not in trust.roles
    assert reasons_of(trust, "r2") == ["bob (admin) may not remove dan"]
    assert trust.roles == {"ana": "owner", "bob": "admin", "dan": "admin"}


# --- questions asked of the outcome -----------------------------------------------------


def test_roles_of_devices_and_untrusted_device_rows() -> None:
    team = founded_with_ben()
    team.invite("i2", "d-ana", "cara", "member", "t03", "t99")
    team.join("d-cara", "cara", "i2", "t04")
    team.remove("r1", "d-ana", "cara", "t05")
    trust = team.replay()
    assert trust.role_of_device("d-ana") == "owner"
    assert trust.role_of_device("d-ben") == "member"
    assert trust.role_of_device("d-cara") is None  # removed with its member
    assert trust.role_of_device("d-ghost") is None
    rows = ["d-ghost", "d-ben", "d-cara", "d-ana", "a-row"]
    assert trust.untrusted_devices(rows) == ["a-row", "d-cara", "d-ghost"]
    assert trust.untrusted_devices([]) == []


def test_without_an_anchor_even_a_well_signed_founder_is_not_trusted() -> None:
    team = founded_with_ben()
    trust = evaluate(None, STORE, team.records)
    assert not trust.anchored and not trust.devices and not trust.roles
    assert reasons_of(trust, "d-ana") == ["signs itself but is not the store's creator"]
