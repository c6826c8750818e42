"""Diagnostic replay, the ResumeGate, adoption chains and regression export (R21, R22)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Connection

from core.crypto.codec import Codec
from core.errors import NotFoundError
from core.governance.policy import CONFLICT, STALE
from core.model.enums import EventKind, MemoryStatus
from core.model.memory import (
    AdoptionChain,
    DroppedHit,
    InjectedItem,
    Replay,
    ReplayItem,
    ResumeResult,
    Snapshot,
)
from core.model.records import MemoryRecord
from core.retrieval import render
from core.storage import event_log, memories, memory_history, snapshots


def marks_for(
    item: InjectedItem, now_record: MemoryRecord | None, now: dt.datetime, purged: bool
) -> tuple[str, ...]:
    """What has happened to an injected memory since the call (R21)."""
    if now_record is None:
        return ("deleted",)
    marks = []
    status = now_record.effective_status(now)
    if status in ("deleted", "superseded", "disabled", "quarantined", "expired"):
        marks.append(status)
    if purged:
        marks.append("purged")
    if now_record.revision > item.revision:
        if now_record.content != item.content and not purged:
            marks.append("edited")
        if now_record.scope != item.scope:
            marks.append("rescoped")
    if STALE in now_record.flags:
        marks.append("stale")
    return tuple(dict.fromkeys(marks))


def replay(conn: Connection, codec: Codec, snapshot_id: str, now: dt.datetime) -> Replay:
    """What the model was given then, each memory marked with what happened since."""
    snap = snapshots.get(conn, codec, snapshot_id)
    current = {r.id: r for r in memories.load(conn, codec, [i.memory_id for i in snap.injected])}
    partners = _conflict_partners(snap, current)
    items = []
    for item in snap.injected:
        purged = item.memory_id in snap.purged_memory_ids
        marks = marks_for(item, current.get(item.memory_id), now, purged)
        details = _details(current.get(item.memory_id), marks)
        others = partners.get(item.memory_id, ())
        if others:
            marks = (*marks, "conflict")
            details = (*details, f"contradicts {', '.join(others)} in the same call")
        items.append(ReplayItem(item.memory_id, item.content, marks, details))
    return Replay(snap, snap.text, tuple(items))


def _conflict_partners(snap: Snapshot, current: dict[str, MemoryRecord]) -> dict[str, list[str]]:
    """Memories of one call that contradict each other: injected with the conflict note, or
    members of the same conflict set (R9). A set the user settled by keeping every member
    ("keep both", no conflict flag left on either) is no contradiction."""
    by_set: dict[str, list[str]] = {}
    for item in snap.injected:
        rec = current.get(item.memory_id)
        if rec is not None and rec.conflict_set:
            by_set.setdefault(rec.conflict_set, []).append(item.memory_id)
    out: dict[str, list[str]] = {}
    for members in by_set.values():
        settled = all(
            CONFLICT not in current[m].flags and current[m].status == MemoryStatus.ACTIVE
            for m in members
        )
        noted = any("conflict" in i.notes for i in snap.injected if i.memory_id in members)
        if len(members) > 1 and (noted or not settled):
            for m in members:
                out[m] = [o for o in members if o != m]
    return out


def _details(record: MemoryRecord | None, marks: tuple[str, ...]) -> tuple[str, ...]:
    if record is None:
        return ()
    out = []
    if "superseded" in marks and record.superseded_by:
        out.append(f"superseded by {record.superseded_by}")
    if "deleted" in marks:
        out.append(f"deleted at {record.updated_at.isoformat(timespec='seconds')}")
    if "edited" in marks:
        out.append(f"now at revision {record.revision}")
    return tuple(out)


def resume(
    conn: Connection,
    codec: Codec,
    session: str,
    snapshot_id: str | None,
    now: dt.datetime,
) -> ResumeResult:
    """The ResumeGate: what of an old snapshot may be injected again now (R21)."""
    snap_id = snapshot_id or snapshots.latest_for_session(conn, session)
    if snap_id is None:
        # Never injected: nothing to re-inject, which is an answer, not an error.
        return ResumeResult(session, "", "", (), (), ())
    snap = snapshots.get(conn, codec, snap_id)
    current = {r.id: r for r in memories.load(conn, codec, [i.memory_id for i in snap.injected])}
    excluded = memories.excluded_sessions(conn, codec, list(current), session)
    allowed: list[InjectedItem] = []
    removed: list[DroppedHit] = []
    changed: list[str] = []
    for item in snap.injected:
        rec = current.get(item.memory_id)
        reason = _not_injectable(rec, snap, now, excluded)
        if reason or rec is None:
            removed.append(DroppedHit(item.memory_id, reason or "deleted"))
            continue
        if rec.revision != item.revision:
            changed.append(f"{rec.id}: now revision {rec.revision}")
        allowed.append(
            InjectedItem(
                rec.id,
                rec.content,
                rec.kind.value,
                rec.scope,
                rec.scope.why_visible(snap.scope),
                item.score,
                item.tokens,
                item.notes,
                False,
                rec.revision,
            )
        )
    lines = [render.item_line(current[i.memory_id], i.notes, now) for i in allowed]
    return ResumeResult(
        session, snap.id, render.block(lines), tuple(allowed), tuple(removed), tuple(changed)
    )


def _not_injectable(
    rec: MemoryRecord | None, snap: Snapshot, now: dt.datetime, excluded: set[str]
) -> str | None:
    if rec is None:
        return "deleted"
    status = rec.effective_status(now)
    if status != MemoryStatus.ACTIVE.value:
        return status
    if not rec.scope.visible_to(snap.scope):
        return "out of scope now"
    if rec.id in excluded:
        return "excluded from this session"
    return None


def adoption_chain(conn: Connection, codec: Codec, memory_id: str) -> AdoptionChain:
    """Source events -> activating decision -> every injection -> corrections (R22)."""
    record = memories.get(conn, codec, memory_id)
    decisions = memory_history.history(conn, codec, memory_id)
    activation = next((d for d in decisions if d.to_status == MemoryStatus.ACTIVE), None)
    uses = snapshots.using_memory(conn, memory_id)
    injections = tuple((sid, sess, dt.datetime.fromisoformat(ts)) for sid, sess, ts in uses)
    sources = tuple(event_log.get_events(conn, codec, list(record.source_event_ids)))
    observations = tuple(
        e for e in _decision_events(conn, codec, decisions) if e.kind == EventKind.OBSERVATION
    )
    sessions = tuple(dict.fromkeys(s for _, s, _ in injections if s))
    return AdoptionChain(
        record, sources, activation, tuple(decisions), injections, observations, sessions
    )


def _decision_events(conn: Connection, codec: Codec, decisions: list[Any]) -> list[Any]:
    ids = []
    for d in decisions:
        if d.action == "observe" and "observation " in d.reason:
            ids.append(d.reason.rsplit("observation ", 1)[1].strip())
    try:
        return event_log.get_events(conn, codec, ids)
    except NotFoundError:
        return []


def regression_case(
    conn: Connection, codec: Codec, memory_id: str, now: dt.datetime
) -> dict[str, Any]:
    """A JSON-able regression case: the memory, the snapshots that used it, the expectation."""
    chain = adoption_chain(conn, codec, memory_id)
    record = chain.memory
    cases = []
    for sid, session, ts in chain.injections:
        snap = snapshots.get(conn, codec, sid)
        cases.append(
            {
                "snapshot_id": sid,
                "session": session,
                "ts": ts.isoformat(),
                "scope": dict(snap.scope),
                "goal": snap.goal,
                "injected_text": snap.text,
                "store_revision": snap.store_revision,
            }
        )
    return {
        "format": "memory-center-regression-v1",
        "exported_at": now.isoformat(),
        "memory": {
            "id": record.id,
            "content": record.content,
            "scope": dict(record.scope),
            "status": record.status.value,
            "source_event_ids": list(record.source_event_ids),
        },
        "lineage": {
            "memory_ids": [record.id],
            "event_ids": list(record.source_event_ids),
            "snapshot_ids": [c["snapshot_id"] for c in cases],
        },
        "snapshots": cases,
        "expected": {
            "exclude_memory_ids": [record.id],
            "reason": f"memory is {record.status.value}; it must not be injected",
        },
    }
