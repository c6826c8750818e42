"""Members of a team store (names and dates; keys never touch the database)."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Connection, func, select, update

from core.model.clock import from_iso
from core.model.records import MemberInfo
from core.storage import schema as s
from core.storage.store import WriteTx


def invited(tx: WriteTx, name: str, by: str | None) -> None:
    """Record an invitation (again, for a member who was removed: a fresh start)."""
    found = tx.conn.execute(select(s.members.c.name).where(s.members.c.name == name)).first()
    values = {"invited_at": tx.now_iso, "invited_by": by, "removed_at": None}
    if found:
        tx.conn.execute(update(s.members).where(s.members.c.name == name).values(**values))
    else:
        tx.conn.execute(s.members.insert().values(name=name, devices=0, **values))


def joined(tx: WriteTx, name: str) -> None:
    """A device of `name` joined with an invitation."""
    tx.conn.execute(
        update(s.members)
        .where(s.members.c.name == name)
        .values(joined_at=tx.now_iso, devices=s.members.c.devices + 1)
    )


def listed(conn: Connection) -> list[MemberInfo]:
    """Every member, oldest first: the invited ones, and whoever created the store (its
    devices are registered, but nobody invited them, so only the devices table knows)."""
    rows = conn.execute(select(s.members).order_by(s.members.c.invited_at)).mappings().all()
    out = [
        MemberInfo(
            name=r["name"],
            invited_at=from_iso(r["invited_at"]),
            invited_by=r["invited_by"],
            joined_at=from_iso(r["joined_at"]) if r["joined_at"] else None,
            devices=int(r["devices"]),
            removed_at=from_iso(r["removed_at"]) if r["removed_at"] else None,
        )
        for r in rows
    ]
    named = {m.name for m in out}
    founders = [
        MemberInfo(name, since, None, since, count, founder=True)
        for name, since, count in _members_by_devices(conn)
        if name not in named
    ]
    return sorted(founders + out, key=lambda m: m.invited_at)


def founder(conn: Connection, name: str) -> bool:
    """True when `name` has devices on the store but was never invited: who created it."""
    listed_name = select(s.members.c.name).where(s.members.c.name == name)
    return conn.execute(listed_name).first() is None and any(
        member == name for member, _since, _count in _members_by_devices(conn)
    )


def _members_by_devices(conn: Connection) -> list[tuple[str, dt.datetime, int]]:
    d = s.devices.c
    rows = conn.execute(
        select(d.member, func.min(d.registered_at), func.count())
        .where(d.revoked_at.is_(None))
        .group_by(d.member)
    ).all()
    return [(str(r[0]), from_iso(str(r[1])), int(str(r[2]))) for r in rows]


def was_removed(conn: Connection, name: str) -> bool:
    """True when `name` is listed and was removed."""
    found = conn.execute(
        select(s.members.c.removed_at).where(s.members.c.name == name)
    ).scalar_one_or_none()
    return found is not None


def removed(tx: WriteTx, name: str) -> bool:
    """Mark `name` removed; False when no such member is listed."""
    done = tx.conn.execute(
        update(s.members)
        .where(s.members.c.name == name, s.members.c.removed_at.is_(None))
        .values(removed_at=tx.now_iso)
    )
    return bool(done.rowcount)
