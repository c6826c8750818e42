"""The storage contract, run against every backend: SQLite file and a real PostgreSQL server.

Each test opens the service through the `backend` fixture, so the same assertions hold for
the embedded default and for a team store on PostgreSQL (R1-R3, R5, R19, R21, R30).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from sqlalchemy import text

from core import IntegrityError, ManualClock, MemoryFilter, NewEvent, Scope
from tests.conftest import START
from tests.support.pg_fixtures import ServiceOpener

SCOPE = {"user": "kim", "project": "atlas"}


def _event(text_: str, session: str = "s1") -> NewEvent:
    return NewEvent(session=session, actor="user", trust="user", scope=SCOPE, text=text_)


def test_events_append_verify_and_stay_append_only(backend: ServiceOpener, tmp_path: Path) -> None:
    svc = backend(tmp_path / "d", ManualClock(START))
    try:
        first = svc.events.append_event(_event("hello")).value
        svc.events.append_events([_event(f"line {i}") for i in range(20)])
        report = svc.verify()
        assert report.ok and report.events_checked == 21
        assert [e.text for e in svc.events.list_events(session="s1", limit=3)] == [
            "hello",
            "line 0",
            "line 1",
        ]
        store = svc._store
        for statement in (
            "UPDATE events SET kind = 'x'",
            "DELETE FROM events",
            "DELETE FROM event_payloads",
        ):
            with pytest.raises(IntegrityError), store.write("tamper") as tx:
                tx.conn.execute(text(statement))
        assert svc.events.get_events([first.id])[0].text == "hello"
    finally:
        svc.close()


def test_memory_lifecycle_search_inject_delete_purge(
    backend: ServiceOpener, tmp_path: Path
) -> None:
    svc = backend(tmp_path / "d", ManualClock(START))
    try:
        kept = svc.memories.remember(
            SCOPE, "Remember: the atlas staging database runs on port 5433"
        ).value
        gone = svc.memories.remember(
            SCOPE, "Remember: Kim's locker code is under the blue mug"
        ).value
        assert kept.record is not None and gone.record is not None
        hits = svc.retrieval.search_memory(SCOPE, "which port does staging use")
        assert hits and hits[0].memory_id == kept.record.id
        block = svc.retrieval.inject(SCOPE, "connect to the staging database", 400).value
        assert "5433" in block.text
        svc.review.delete(gone.record.id, reason="user asked", purge=True)
        assert all(
            h.memory_id != gone.record.id for h in svc.retrieval.search_memory(SCOPE, "locker mug")
        )
        assert (
            "blue mug"
            not in svc.retrieval.inject(SCOPE, "where is the locker code", 400).value.text
        )
        assert all("blue mug" not in text_ for *_, text_ in svc.memories.revisions(gone.record.id))
        assert svc.verify().ok
    finally:
        svc.close()


def test_reopen_keeps_everything_and_revision_is_monotonic(
    backend: ServiceOpener, tmp_path: Path
) -> None:
    clock = ManualClock(START)
    svc = backend(tmp_path / "d", clock)
    svc.memories.remember(SCOPE, "Remember: release notes go in CHANGES.md")
    before = svc.events.revision()
    svc.close()
    again = backend(tmp_path / "d", clock)
    try:
        assert again.events.revision() == before
        (memory,) = again.memories.list_memories()
        assert "CHANGES.md" in memory.content
        again.events.append_event(_event("later"))
        assert again.events.revision() == before + 1
        assert [c.revision for c in again.events.changes_since(before - 1)] == [before, before + 1]
    finally:
        again.close()


def test_visible_listing_is_cut_and_paged_by_the_containment_rule(
    backend: ServiceOpener, tmp_path: Path
) -> None:
    """`visible_to` is answered in SQL from the request's sub-scopes (#13, R13): each page
    holds exactly the memories the containment rule admits, newest first, and a scope value
    that only looks like a sub-scope (another user's project of the same name) stays out."""
    clock = ManualClock(START)
    svc = backend(tmp_path / "d", clock)
    scopes = [
        {"user": "kim"},
        {"user": "kim", "project": "atlas"},
        {"user": "kim", "project": "zephyr"},
        {"user": "lee", "project": "atlas"},
        {"project": "atlas"},
        {"user": "kim", "project": "atlas", "repo": "web"},
        {"user": "kim", "project": "atlas", "agent": "coder"},
    ]
    try:
        for n in range(3):
            for i, scope in enumerate(scopes):
                svc.memories.remember(
                    scope, f"Remember: note {n}-{i} about the {i}th topic {'x' * i}"
                )
                clock.advance(dt.timedelta(seconds=1))
        request = Scope.of({"user": "kim", "project": "atlas", "agent": "coder"})
        everything = svc.memories.list_memories(MemoryFilter(statuses=("active",), limit=1000))
        expected = [r.id for r in everything if r.scope.visible_to(request)]
        assert len(expected) == 12  # kim, kim+atlas, atlas, kim+atlas+coder; three each
        pages = [
            svc.memories.list_memories(
                MemoryFilter(statuses=("active",), visible_to=request, limit=5, offset=at)
            )
            for at in range(0, 15, 5)
        ]
        assert [r.id for page in pages for r in page] == expected
        assert [len(p) for p in pages] == [5, 5, 2]
        nobody = Scope.of({"user": "nobody"})
        assert svc.memories.list_memories(MemoryFilter(visible_to=nobody, limit=100)) == []
    finally:
        svc.close()
