"""The replay of signed membership records, on records built here with real Ed25519 keys
(#41, R24): what counts, what is a problem, whatever order the rows come in."""

from __future__ import annotations

import itertools
from typing import Any

from core.crypto.membership import SignedRecord, evaluate
from core.crypto.signing import canonical, new_signing_key, sign, verifying_key

STORE = "store1"


class Team:
    """Signs records as the devices of a small team would."""

    def __init__(self) -> None:
        self.keys: dict[str, bytes] = {}
        self.records: list[SignedRecord] = []
        self.root = self.device_key("d-ana")

    def device_key(self, device: str) -> bytes:
        return self.keys.setdefault(device, new_signing_key())

    def add(self, rid: str, key: bytes, body: dict[str, Any]) -> None:
        text = canonical({"store": STORE, **body})
        self.records.append(SignedRecord(rid, body["kind"], body["signer"], text, sign(key, text)))

    def founder(self, at: str = "t00") -> None:
        self.add("d-ana", self.root, self._device("d-ana", "ana", "self", at))

    def _device(self, device: str, member: str, signer: str, at: str) -> dict[str, Any]:
        sign_key = verifying_key(self.device_key(device))
        return {"kind": "device", "device": device, "member": member, "box": "00" * 32,
                "sign": sign_key, "signer": signer, "at": at}  # fmt: skip

    def invite(self, rid: str, by: str, member: str, role: str, at: str, until: str) -> bytes:
        one_time = new_signing_key()
        self.keys[rid] = one_time
        body = {"kind": "invite", "member": member, "role": role, "signer": by, "at": at,
                "key": verifying_key(one_time), "expires_at": until}  # fmt: skip
        self.add(rid, self.keys[by], body)
        return one_time

    def join(self, device: str, member: str, invitation: str, at: str) -> None:
        body = self._device(device, member, "invitation:" + invitation, at)
        self.add(device, self.keys[invitation], body)

    def remove(self, rid: str, by: str, member: str, at: str) -> None:
        self.add(rid, self.keys[by], {"kind": "remove", "member": member, "signer": by, "at": at})

    def replay(self, anchor: str | None = None) -> Any:
        return evaluate(anchor or verifying_key(self.root), STORE, self.records)


def test_the_founder_invites_and_a_device_joins_once() -> None:
    team = Team()
    team.founder()
    team.invite("i1", "d-ana", "ben", "member", "t01", "t99")
    team.join("d-ben", "ben", "i1", "t02")
    team.join("d-ben2", "ben", "i1", "t03")  # the same invitation again
    trust = team.replay()
    assert set(trust.devices) == {"d-ana", "d-ben"}
    assert trust.roles == {"ana": "owner", "ben": "member"}
    assert any("used already" in p.reason for p in trust.problems)


def test_order_of_rows_does_not_matter() -> None:
    team = Team()
    team.founder()
    team.invite("i1", "d-ana", "ben", "member", "t01", "t99")
    team.join("d-ben", "ben", "i1", "t02")
    team.invite("i2", "d-ben", "ben", "member", "t02", "t99")  # same instant as his join
    team.join("d-ben-laptop", "ben", "i2", "t03")
    for order in itertools.permutations(team.records):
        trust = evaluate(verifying_key(team.root), STORE, list(order))
        assert set(trust.devices) == {"d-ana", "d-ben", "d-ben-laptop"}


def test_another_anchor_trusts_nothing_and_late_joins_do_not_count() -> None:
    team = Team()
    team.founder()
    team.invite("i1", "d-ana", "ben", "member", "t01", "t05")
    team.join("d-ben", "ben", "i1", "t06")  # after the invitation expired
    assert set(team.replay().devices) == {"d-ana"}
    assert not evaluate(verifying_key(new_signing_key()), STORE, team.records).devices


def test_a_removal_signed_before_a_skewed_join_still_removes() -> None:
    """The joining machine's clock ran ahead of the owner's: the removal still applies,
    because it was signed after the invitation was made."""
    team = Team()
    team.founder()
    team.invite("i1", "d-ana", "ben", "member", "t01", "t99")
    team.remove("r1", "d-ana", "ben", "t03")
    team.join("d-ben", "ben", "i1", "t05")  # skewed clock
    trust = team.replay()
    assert "ben" not in trust.roles and "d-ben" not in trust.devices
    # Invited again after the removal: a fresh start.
    team.invite("i2", "d-ana", "ben", "member", "t06", "t99")
    team.join("d-ben-2", "ben", "i2", "t07")
    assert "d-ben-2" in team.replay().devices


def test_members_cannot_remove_or_invite_and_nobody_removes_the_owner() -> None:
    team = Team()
    team.founder()
    team.invite("i1", "d-ana", "ben", "member", "t01", "t99")
    team.join("d-ben", "ben", "i1", "t02")
    team.remove("r1", "d-ben", "ana", "t03")
    team.invite("i2", "d-ben", "eve", "member", "t03", "t99")
    team.invite("i3", "d-ben", "ana", "owner", "t03", "t99")  # a device for ana, by ben
    team.join("d-eve", "eve", "i2", "t04")
    team.join("d-fake-ana", "ana", "i3", "t04")
    team.remove("r2", "d-ana", "ana", "t05")
    trust = team.replay()
    assert set(trust.devices) == {"d-ana", "d-ben"}
    assert trust.roles == {"ana": "owner", "ben": "member"}
    reasons = " | ".join(p.reason for p in trust.problems)
    assert "may not remove ana" in reasons and "may not invite" in reasons
    assert "only their own devices" in reasons
