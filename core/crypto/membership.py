"""Who belongs to a team store, decided by signatures, not by rows (R24, #41).

The server holds signed membership records (`team_records`); every device replays them
itself, from a trust anchor it already holds: the signing key of the device that created
the store (kept in each device's own key set, handed over inside the sealed invitation).
A record counts only when its signature verifies under a key the replay already trusts
and its signer was entitled to it:

- `device` signed by the anchor itself: the creator's first device; its member is the owner.
- `invite` signed by a trusted device: for a new member, the signer's member must be an
  owner (who may invite admins and members) or an admin (members only), and the name must
  not belong to a current member; for the signer's own member (another device of theirs),
  anyone may. It names a one-time public key whose private half is in the invitation file.
- `device` signed by an invitation's one-time key: the device that joined with it; at most
  one per invitation, and not after the invitation expired or was cancelled.
- `remove` signed by an owner's or admin's device: the member and all their devices leave.
  Nobody removes the owner; an admin does not remove another admin.
- `cancel` signed by an owner's or admin's device, or the inviter's: the invitation is void.

Records are replayed in the order of the times they sign. Everything that does not count
is kept as a problem (record, reason), for `status`, `member list` and `verify` to report.
The replay never trusts a column outside a signed body: the X25519 key that envelopes are
sealed to is the one the device's signed record names.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from core.crypto.signing import verifies

OWNER, ADMIN, MEMBER = "owner", "admin", "member"
ROLES = (OWNER, ADMIN, MEMBER)
SELF = "self"
INVITATION_PREFIX = "invitation:"
# Replay order of records signed at the same instant: a device joins after its invitation.
_ORDER = {"device": 1, "invite": 0, "remove": 2, "cancel": 0}


@dataclass(frozen=True)
class SignedRecord:
    """One row of `team_records` as read: nothing in it is believed before verification."""

    id: str
    kind: str
    signer: str
    body: str
    signature: bytes


@dataclass(frozen=True)
class TrustedDevice:
    """A device whose registration verifies: its member and the keys its record signs."""

    device_id: str
    member: str
    box_key: str  # X25519 public key, hex: what envelopes are sealed to
    sign_key: str  # Ed25519 public key, hex: what its records are verified with
    joined_at: str


@dataclass
class _Invite:
    id: str
    member: str
    role: str
    key: str
    expires_at: str
    by_member: str
    at: str
    used_by: str | None = None
    cancelled: bool = False


@dataclass(frozen=True)
class Problem:
    """A record that does not count, and why (one line)."""

    record_id: str
    kind: str
    member: str
    reason: str

    def line(self) -> str:
        """`kind record_id (member): reason`."""
        return f"{self.kind} {self.record_id} ({self.member or '?'}): {self.reason}"


@dataclass(frozen=True)
class InviteState:
    """An invitation as the replay sees it."""

    id: str
    member: str
    role: str
    by_member: str
    created_at: str
    expires_at: str
    used_by: str | None
    cancelled: bool


@dataclass
class Trust:
    """The outcome of a replay: trusted devices, members' roles, invitations, problems."""

    devices: dict[str, TrustedDevice] = field(default_factory=dict)
    roles: dict[str, str] = field(default_factory=dict)
    removed: dict[str, str] = field(default_factory=dict)  # member -> removal time
    invites: dict[str, InviteState] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    anchored: bool = False
    # Removals of members invited but not joined yet, by the removal's signed time:
    # member -> [(at, remover's role)] (see `_apply`).
    deferred: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    def of_member(self, member: str) -> list[TrustedDevice]:
        """The trusted devices of `member`."""
        return [d for d in self.devices.values() if d.member == member]

    def role_of_device(self, device_id: str) -> str | None:
        """The role of the member of a trusted device (None: not trusted)."""
        found = self.devices.get(device_id)
        return self.roles.get(found.member) if found else None

    def untrusted_devices(self, device_ids: Iterable[str]) -> list[str]:
        """Those of `device_ids` (rows of the devices table) that do not verify."""
        return sorted(d for d in device_ids if d not in self.devices)


def may_invite(inviter_role: str | None, role: str) -> bool:
    """Whether a member with `inviter_role` may invite a new member with `role`."""
    if inviter_role == OWNER:
        return role in (ADMIN, MEMBER)
    return inviter_role == ADMIN and role == MEMBER


def may_remove(remover_role: str | None, target_role: str | None) -> bool:
    """Whether a member with `remover_role` may remove one with `target_role`."""
    if target_role is None or target_role == OWNER:
        return False
    if remover_role == OWNER:
        return True
    return remover_role == ADMIN and target_role == MEMBER


def evaluate(anchor: str | None, store_id: str, records: Iterable[SignedRecord]) -> Trust:
    """Replay the signed records from `anchor` (the creator's device signing key, hex)."""
    trust = Trust(anchored=anchor is not None)
    invites: dict[str, _Invite] = {}
    parsed: list[tuple[str, int, str, SignedRecord, dict[str, Any]]] = []
    for record in records:
        body = _body(record)
        if body is None or body.get("store") != store_id or body.get("kind") != record.kind:
            trust.problems.append(_problem(record, body, "unreadable, or not of this store"))
            continue
        if body.get("signer") != record.signer or record.kind not in _ORDER:
            trust.problems.append(_problem(record, body, "its signer is not the one it names"))
            continue
        parsed.append((str(body.get("at", "")), _ORDER[record.kind], record.id, record, body))
    parsed.sort(key=lambda p: p[:3])
    for at in sorted({p[0] for p in parsed}):
        # Records signed at one instant may depend on each other in any order (a device
        # that joined, then invited a device of its own): applied until nothing changes.
        pending = [(record, body) for a, _o, _i, record, body in parsed if a == at]
        reasons: dict[str, str] = {}
        while pending:
            left = []
            for record, body in pending:
                reason = _apply(trust, invites, anchor, record, body)
                if reason is not None:
                    reasons[record.id] = reason
                    left.append((record, body))
            if len(left) == len(pending):
                break
            pending = left
        trust.problems += [_problem(r, b, reasons[r.id]) for r, b in pending]
    trust.invites = {
        i.id: InviteState(
            i.id, i.member, i.role, i.by_member, i.at, i.expires_at, i.used_by, i.cancelled
        )
        for i in invites.values()
    }
    return trust


def _body(record: SignedRecord) -> dict[str, Any] | None:
    try:
        body = json.loads(record.body)
    except (ValueError, RecursionError):
        return None
    return body if isinstance(body, dict) else None


def _problem(record: SignedRecord, body: dict[str, Any] | None, reason: str) -> Problem:
    member = str((body or {}).get("member", ""))
    return Problem(record.id, record.kind, member, reason)


def _signed_by_trusted(trust: Trust, record: SignedRecord) -> TrustedDevice | None:
    signer = trust.devices.get(record.signer)
    if signer is None or not verifies(signer.sign_key, record.body, record.signature):
        return None
    return signer


def _apply(
    trust: Trust,
    invites: dict[str, _Invite],
    anchor: str | None,
    record: SignedRecord,
    body: dict[str, Any],
) -> str | None:
    """Apply one record; the reason it does not count, or None."""
    if record.kind == "device":
        return _device(trust, invites, anchor, record, body)
    signer = _signed_by_trusted(trust, record)
    if signer is None:
        return "not signed by a device this one trusts"
    role = trust.roles.get(signer.member)
    if record.kind == "invite":
        return _invite(trust, invites, signer, role, record, body)
    if record.kind == "remove":
        member, at = str(body.get("member", "")), str(body.get("at", ""))
        target = trust.roles.get(member)
        if target is None and any(i.member == member for i in invites.values()):
            # Invited, and (by the joining device's clock) not joined yet: the removal
            # waits for a device joining through an invitation made before it.
            trust.deferred.setdefault(member, []).append((at, role or ""))
            return None
        if not may_remove(role, target):
            return f"{signer.member} ({role}) may not remove {member}"
        _remove(trust, member, at)
        return None
    # cancel
    invite = invites.get(str(body.get("invitation", "")))
    if invite is None:
        return "cancels no invitation this device knows"
    if signer.member != invite.by_member and role not in (OWNER, ADMIN):
        return f"{signer.member} may not cancel an invitation made by {invite.by_member}"
    invite.cancelled = True
    return None


def _invite(
    trust: Trust,
    invites: dict[str, _Invite],
    signer: TrustedDevice,
    role: str | None,
    record: SignedRecord,
    body: dict[str, Any],
) -> str | None:
    member, wanted = str(body.get("member", "")), str(body.get("role", ""))
    if member == signer.member:
        if wanted != role:
            return "an invitation for another device of one's own must keep one's role"
    elif member in trust.roles:
        return f"{member} is a member already: only their own devices may add a device"
    elif not may_invite(role, wanted):
        return f"{signer.member} ({role}) may not invite a new {wanted or '?'}"
    invites[record.id] = _Invite(
        record.id,
        member,
        wanted,
        str(body.get("key", "")),
        str(body.get("expires_at", "")),
        signer.member,
        str(body.get("at", "")),
    )
    return None


def _device(
    trust: Trust,
    invites: dict[str, _Invite],
    anchor: str | None,
    record: SignedRecord,
    body: dict[str, Any],
) -> str | None:
    member, sign_key, at = (str(body.get(k, "")) for k in ("member", "sign", "at"))
    device = TrustedDevice(record.id, member, str(body.get("box", "")), sign_key, at)
    if body.get("device") != record.id:
        return "the record names another device"
    if record.signer == SELF:
        if anchor is None or sign_key != anchor or trust.roles:
            return "signs itself but is not the store's creator"
        if not verifies(anchor, record.body, record.signature):
            return "its signature does not verify"
        trust.devices[record.id] = device
        trust.roles[member] = OWNER
        return None
    invite = invites.get(record.signer.removeprefix(INVITATION_PREFIX))
    if not record.signer.startswith(INVITATION_PREFIX) or invite is None:
        return "not registered through an invitation this device trusts"
    if not verifies(invite.key, record.body, record.signature):
        return "its signature does not verify under the invitation's key"
    refusal = _invitation_refusal(trust, invite, member, at)
    if refusal is not None:
        return refusal
    invite.used_by = record.id
    trust.devices[record.id] = device
    trust.roles.setdefault(member, invite.role)
    # A removal signed after the invitation was made applies, whatever the joining
    # device's clock said about when it joined (clocks of machines differ).
    for removed_at, remover_role in trust.deferred.get(member, []):
        if removed_at >= invite.at and may_remove(remover_role, trust.roles.get(member)):
            _remove(trust, member, removed_at)
            break
    return None


def _remove(trust: Trust, member: str, at: str) -> None:
    trust.roles.pop(member, None)
    trust.removed[member] = at
    for device_id in [d.device_id for d in trust.of_member(member)]:
        del trust.devices[device_id]


def _invitation_refusal(trust: Trust, invite: _Invite, member: str, at: str) -> str | None:
    """Why a correctly signed registration still does not count under its invitation."""
    if invite.member != member:
        return f"the invitation was for {invite.member}, not {member}"
    if invite.used_by is not None:
        return f"the invitation was used already (by device {invite.used_by})"
    if invite.cancelled:
        return "the invitation was cancelled"
    if at > invite.expires_at:
        return "the invitation had expired"
    if invite.by_member not in trust.roles:
        return f"the inviter {invite.by_member} is no longer a member"
    if member != invite.by_member and member in trust.roles:
        return f"{member} is a member already"
    return None
