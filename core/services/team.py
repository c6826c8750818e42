"""`service.team`: team stores on a server: invitations, removals, roles, the member list
(R24, #41).

Every decision about membership is made on this device from the signed records
(core/crypto/membership.py), replayed from this device's own trust anchor: who may invite,
remove or rotate, which devices count, which invitations are still usable. The rows of the
`devices` and `members` tables are bookkeeping; they grant nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import replace as dc_replace
from typing import Protocol

from sqlalchemy import Connection

from core.crypto.invitation import Invitation, seal_invitation
from core.crypto.invitation import new_code as new_invitation_code
from core.crypto.membership import ADMIN, MEMBER, OWNER, ROLES, Trust, may_invite, may_remove
from core.errors import InvalidInputError, InvalidStateError, NotFoundError, NotPermittedError
from core.model.clock import from_iso, to_iso
from core.model.enums import ChangeKind
from core.model.records import InvitationInfo, MemberInfo, Result, RotationProgress, RotationReport
from core.model.validate import identifier
from core.services.context import Engine
from core.storage import devices, logins, members, personal, trust
from core.storage.store import changes_of

MAX_INVITATION_HOURS = 24 * 30
Progress = Callable[[int], None] | None
Stop = Callable[[], bool] | None
Watch = Callable[[RotationProgress], None] | None


class KeyRotation(Protocol):
    """The key rotation a removal ends with (`service.keys`)."""

    def rotate(
        self, *, progress: Progress = None, should_stop: Stop = None, watch: Watch = None
    ) -> Result[RotationReport]: ...

    def rotation_pending(self) -> bool: ...


class TeamAdmin:
    """Membership of a team store, checked on this device at every step.

    Args:
        engine: the shared engine.
        keys: the key rotation that removing a member ends with.
    """

    def __init__(self, engine: Engine, keys: KeyRotation) -> None:
        self._e = engine
        self._keys = keys

    # --- who this device is ---------------------------------------------------------

    @property
    def device_id(self) -> str:
        """This device's id on the server ("" for a local store)."""
        return str(getattr(self._e.key_store, "device_id", ""))

    def _store_id(self) -> str:
        return self._e.store.meta("store_id") or ""

    def replay(self, conn: Connection) -> Trust:
        """The signed membership, replayed from this device's anchor."""
        return trust.replay(conn, self._e.keys, self._store_id())

    def _my_role(self, replayed: Trust) -> tuple[str, str]:
        """(member, role) of this device.

        Raises:
            NotPermittedError: the signed membership does not trust this device.
        """
        mine = replayed.devices.get(self.device_id)
        if mine is None or self._e.keys.anchor is None:
            raise NotPermittedError(
                "this device is not one the store's signed membership trusts (it predates "
                "signed membership, or it was removed): join again with a new invitation"
            )
        return mine.member, replayed.roles[mine.member]

    def _server_only(self) -> None:
        if not self._e.store.is_server:
            raise InvalidStateError(
                "members and invitations exist only in stores on a database server; this "
                "store is a local file"
            )

    # --- invitations ----------------------------------------------------------------

    def invite_member(
        self,
        name: str,
        *,
        by: str | None = None,
        role: str | None = None,
        expires_hours: float | None = None,
    ) -> Result[tuple[bytes, str]]:
        """Write an invitation for a member's device: the file's bytes and its one-time code.

        Single use, expiring after `expires_hours` (default 72). For a new member, the
        inviter must be an owner (admins, members) or an admin (members); a new member
        gets `role` (member by default). For the inviter's own name it adds a device of
        theirs, with their role. An existing member's name is refused to anyone else: only
        their own devices may add a device of theirs.

        Raises:
            InvalidStateError: a local store.
            NotPermittedError: this device's role does not allow it, or the name belongs
                to a current member.
            InvalidInputError: a bad role or lifetime.
        """
        hours = expires_hours
        who = identifier(name, "name")
        self._server_only()
        wanted = (role or "").strip().lower() or None
        if wanted is not None and wanted not in ROLES:
            raise InvalidInputError("role", f"must be one of {', '.join(ROLES)}; got {role!r}")
        life = trust.DEFAULT_INVITATION_HOURS if hours is None else hours
        if not 0 < life <= MAX_INVITATION_HOURS:
            raise InvalidInputError(
                "expires", f"must be more than 0 and at most {MAX_INVITATION_HOURS} hours"
            )
        store, keys = self._e.store, self._e.keys
        code = new_invitation_code()
        with store.write("record an invitation") as tx:
            replayed = self.replay(tx.conn)
            me, my_role = self._my_role(replayed)
            if who == me:
                if wanted not in (None, my_role):
                    raise NotPermittedError(f"a device of your own keeps your role ({my_role})")
                granted = my_role
            else:
                granted = wanted or MEMBER
                if who in replayed.roles:
                    raise NotPermittedError(
                        f"{who} is a member already: only a device of {who}'s own can invite "
                        f"another device of theirs (on it: `memory-center member invite {who}`)"
                    )
                if not may_invite(my_role, granted):
                    raise NotPermittedError(
                        f"you are {a_role(my_role)} of this store and may not invite "
                        f"{a_role(granted)} (owners invite admins and members; admins invite "
                        "members; members invite only devices of their own)"
                    )
            ticket = trust.invite(
                tx.conn, keys, self._store_id(), self.device_id, who, granted, tx.now, life
            )
            expires = tx.now + dt.timedelta(hours=life)
            # A login of the new device's own, usable with the invitation's one-time
            # password until it expires; the device replaces the password when it joins.
            password = logins.new_password()
            login = logins.create(tx.conn, who, granted, ticket.invitation_id, password, life)
            if who != me:
                members.invited(tx, who, by)
            tx.touch(ChangeKind.SETTINGS)
        # Team keys and the anchor; a member's own personal key only in an invitation to
        # themselves.
        shared = keys.team_only()
        if who == me and who in keys.personal:
            shared = shared.with_personal(who, *keys.personal[who])
        invitation = Invitation(
            self._store_id(),
            logins.with_login(store.server_url(hide_password=False), login, password),
            who,
            shared,
            ticket.invitation_id,
            ticket.signing_key,
            granted,
            to_iso(expires),
        )
        return Result((seal_invitation(invitation, code), code), changes_of(tx))

    def invitations(self) -> list[InvitationInfo]:
        """Invitations of a team store, newest first, with their state (open, used, expired,
        cancelled), as the signed membership records them."""
        if not self._e.store.is_server:
            return []
        now = to_iso(self._e.store.clock.now())
        with self._e.store.read("list invitations") as conn:
            replayed = self.replay(conn)
        out = [
            InvitationInfo(
                i.id,
                i.member,
                i.role,
                i.by_member,
                from_iso(i.created_at),
                from_iso(i.expires_at),
                _state(i.used_by, i.cancelled, i.expires_at, now),
                i.used_by,
            )
            for i in replayed.invites.values()
        ]
        return sorted(out, key=lambda i: (i.created_at, i.id), reverse=True)

    def cancel_invitation(self, invitation_id: str) -> Result[InvitationInfo]:
        """Cancel an open invitation: the server refuses it from now on, and every device
        ignores a device that would still register with it.

        Raises:
            NotFoundError: no such invitation.
            InvalidStateError: it was used already, or is cancelled or expired.
            NotPermittedError: neither its inviter nor an owner or admin.
        """
        self._server_only()
        with self._e.store.write("cancel an invitation") as tx:
            replayed = self.replay(tx.conn)
            state = replayed.invites.get(invitation_id.strip())
            if state is None:
                raise NotFoundError("invitation", invitation_id)
            refusal = trust.unusable(state, tx.now)
            if refusal:
                raise InvalidStateError(f"{refusal}; there is nothing to cancel")
            me, my_role = self._my_role(replayed)
            if me != state.by_member and my_role not in (OWNER, ADMIN):
                raise NotPermittedError(
                    f"only {state.by_member}, an owner or an admin may cancel this invitation"
                )
            trust.cancel(tx.conn, self._e.keys, self._store_id(), self.device_id, state, tx.now)
            logins.disable_invitation(tx.conn, state.id)
            tx.touch(ChangeKind.SETTINGS)
        found = next(i for i in self.invitations() if i.id == state.id)
        return Result(found, changes_of(tx))

    # --- removal and rotation -------------------------------------------------------

    def remove_member(
        self,
        name: str,
        *,
        progress: Progress = None,
        should_stop: Stop = None,
        watch: Watch = None,
    ) -> Result[RotationReport]:
        """Remove a member: a signed removal record, their devices revoked, then the key
        rotated past them (resumable).

        Content written after the rotation is sealed under a key the removed devices never
        receive; rows re-sealed by the rotation are unreadable to them too. What they copied
        before removal cannot be taken back. For a member already removed whose rotation did
        not finish (stopped, crashed), calling it again finishes the rotation.

        Raises:
            NotFoundError: no such member (or removed, with no rotation left to finish).
            NotPermittedError: this device's role may not remove them (nobody removes the
                owner; admins remove members only).
            InvalidStateError: the store is a local file.
            RotationInterruptedError: `should_stop` said stop; call again to resume."""
        who = identifier(name, "name")
        if not self._e.store.is_server:
            raise InvalidStateError("members exist only in stores on a database server")
        if watch:
            watch(RotationProgress("revoking", 0, 0, 0))
        fresh = self.authorize_removal(who)
        if not fresh and not self._keys.rotation_pending():
            raise NotFoundError("member", who)
        with self._e.store.write("revoke a removed member's devices") as tx:
            devices.revoke_member(tx.conn, who, tx.now)
            # Nobody needs the removed member's personal key: their private rows stay
            # sealed with it, readable by no device the store still trusts.
            personal.forget_member(tx.conn, who)
            tx.touch(ChangeKind.SETTINGS)
        return self._keys.rotate(progress=progress, should_stop=should_stop, watch=watch)

    def remove_member_tracked(
        self,
        name: str,
        *,
        on_progress: Callable[[RotationProgress], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> Result[RotationReport]:
        """`remove_member`, reporting a `RotationProgress` (phase, values visited of total)
        after each batch, for a progress bar. Resumable: for a member already removed whose
        rotation did not finish (stopped, crashed), calling it again finishes the rotation.

        Raises:
            NotFoundError: no such member (or removed, with no rotation left to finish).
            RotationInterruptedError: `should_stop` said stop; call again to resume.
        """
        return self.remove_member(name, watch=on_progress, should_stop=should_stop)

    def record_joined(self, member: str) -> None:
        """Record that a device of `member` joined (the bookkeeping row of `members`)."""
        with self._e.store.write("record a joined device") as tx:
            members.joined(tx, member)
            tx.touch(ChangeKind.SETTINGS)

    def authorize_removal(self, name: str) -> bool:
        """Record `name`'s removal, signed by this device; False when it was removed
        before (the caller may still finish its rotation).

        Raises:
            NotFoundError: no such member.
            NotPermittedError: this device's role does not allow it (nobody removes the
                owner; admins remove members only).
        """
        with self._e.store.write("remove a member") as tx:
            replayed = self.replay(tx.conn)
            _me, my_role = self._my_role(replayed)
            target = replayed.roles.get(name)
            if target is None:
                if name in replayed.removed:
                    return False
                raise NotFoundError("member", name)
            if target == OWNER:
                raise NotPermittedError(
                    f"{name!r} created this store (its owner) and cannot be removed"
                )
            if not may_remove(my_role, target):
                raise NotPermittedError(
                    f"you are {a_role(my_role)} and may not remove {name} "
                    f"({a_role(target)}): nobody removes the owner, and admins remove "
                    "members only"
                )
            trust.remove(tx.conn, self._e.keys, self._store_id(), self.device_id, name, tx.now)
            # The server stops taking the member's logins (and ends their sessions) in the
            # same transaction as the signed removal.
            logins.disable_member(tx.conn, name)
            members.removed(tx, name)
            tx.touch(ChangeKind.SETTINGS)
        return True

    def authorize_rotation(self) -> None:
        """On a team store, only an owner or admin rotates the key (it decides which devices
        receive it).

        Raises:
            NotPermittedError: this device's member is not an owner or admin.
        """
        if not self._e.store.is_server:
            return
        with self._e.store.read("check the right to rotate") as conn:
            _me, my_role = self._my_role(self.replay(conn))
        if my_role not in (OWNER, ADMIN):
            raise NotPermittedError(
                f"you are {a_role(my_role)} of this store: only an owner or an admin rotates "
                "its key"
            )

    # --- listing --------------------------------------------------------------------

    def members(self) -> list[MemberInfo]:
        """The members of a team store (empty for a local store).

        Current members, from the signed records: role, and devices counted from the
        trusted devices (a planted or removed row does not count); then those invited
        who have not joined yet (an open invitation, no devices), and those removed
        (`removed_at` set, no devices)."""
        if not self._e.store.is_server:
            return []
        with self._e.store.read("list members") as conn:
            replayed = self.replay(conn)
            listed = {m.name: m for m in members.listed(conn)}
        out = []
        for name, role in replayed.roles.items():
            own = replayed.of_member(name)
            first = min(d.joined_at for d in own) if own else ""
            row = listed.get(name)
            joined = from_iso(first) if first else None
            out.append(
                MemberInfo(
                    name=name,
                    invited_at=row.invited_at if row and not row.founder else (joined or _EPOCH),
                    invited_by=row.invited_by if row else None,
                    joined_at=joined,
                    devices=len(own),
                    founder=role == OWNER,
                    role=role,
                )
            )
        # Invited and not joined yet: an open invitation for someone not a member.
        now = to_iso(self._e.store.clock.now())
        pending: dict[str, MemberInfo] = {}
        for i in sorted(replayed.invites.values(), key=lambda i: i.created_at):
            if (
                i.member in replayed.roles
                or _state(i.used_by, i.cancelled, i.expires_at, now) != "open"
            ):
                continue
            row = listed.get(i.member)
            pending[i.member] = MemberInfo(
                name=i.member,
                invited_at=from_iso(i.created_at),
                invited_by=row.invited_by if row and row.invited_by else i.by_member,
                joined_at=None,
                devices=0,
                role=i.role,
            )
        out += pending.values()
        # Removed members last, marked (no role, no devices), unless invited again.
        shown = {m.name for m in out}
        for name, at in replayed.removed.items():
            if name in shown:
                continue
            row = listed.get(name)
            out.append(
                MemberInfo(
                    name=name,
                    invited_at=row.invited_at if row else from_iso(at),
                    invited_by=row.invited_by if row else None,
                    joined_at=row.joined_at if row else None,
                    devices=0,
                    removed_at=from_iso(at),
                )
            )
        return sorted(out, key=lambda m: (m.invited_at, m.role != OWNER, m.name))

    def membership_problems(self) -> tuple[str, ...]:
        """Rows and records of a team store the signed membership does not back, one line
        each: devices rows nobody trusted signed (planted devices), and records that do not
        count (unauthorised removals or invitations): ignored, never trusted."""
        if not self._e.store.is_server:
            return ()
        with self._e.store.read("check membership") as conn:
            replayed = self.replay(conn)
            rows = devices.listed(conn)
        lines = [p.line() for p in replayed.problems]
        removed = set(replayed.removed)
        for device_id, member in rows:
            if device_id not in replayed.devices and member not in removed:
                lines.append(
                    f"device {device_id} ({member}): in the devices table, but no registration "
                    "signed by a trusted key: ignored"
                )
        return tuple(lines)


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def a_role(role: str) -> str:
    """`an owner`, `an admin`, `a member`."""
    return f"an {role}" if role[:1] in "aeiou" else f"a {role}"


def _state(used_by: str | None, cancelled: bool, expires_at: str, now: str) -> str:
    if used_by is not None:
        return "used"
    if cancelled:
        return "cancelled"
    return "expired" if now > expires_at else "open"


def change_database_password(engine: Engine) -> None:
    """Give this device's database login a new random password: the server stores its
    verifier, this device keeps it sealed in its key set, and the old one stops working.
    The key set keeps the new password before the server changes it, and gets the old one
    back if the server refuses.

    Raises:
        InvalidStateError: a local store.
    """
    store, key_store = engine.store, engine.key_store
    if not store.is_server:
        raise InvalidStateError(
            "a local store has no database login: logins belong to a store on a database server"
        )
    old = engine.keys
    fresh = logins.new_password()
    changed = dc_replace(old, db_password=fresh)
    key_store.save(changed)
    try:
        with store.write("change this device's database password") as tx:
            logins.change_password(tx.conn, fresh)
    except BaseException:
        key_store.save(old)
        raise
    engine.keys = changed
    for db_engine in (store.write_engine, store.read_engine):
        logins.use_password(db_engine, fresh)
