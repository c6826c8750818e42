"""R19-R21: deletion, compliance purge, fences, reconstruction at a past revision."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from core import InvalidStateError, ManualClock, MemoryService, NotFoundError
from tests.conftest import PASSPHRASE

SCOPE = {"user": "sam", "project": "gym"}
REPO = Path(__file__).resolve().parents[3]


def _marker() -> str:
    return "ZQX" + uuid.uuid4().hex[:12].upper()


def _remember(service: MemoryService, text: str) -> str:
    record = service.memories.remember(SCOPE, text, session="s1").value.record
    assert record is not None and record.status.value == "active"
    return record.id


def _files_containing(root: Path, needle: bytes) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_purge_leaves_no_trace_in_any_file(service: MemoryService, data_dir: Path) -> None:
    """R19: after a purge the content is in no file under the data dir, plain or decryptable."""
    marker = _marker()
    mid = _remember(service, f"Remember the spin class code {marker} at FitBox.")
    service.review.edit(mid, f"The spin class code is {marker}-v2 at FitBox.")
    injected = service.retrieval.inject(SCOPE, "spin class code FitBox", 400, session="s2").value
    assert marker in injected.text
    stone = service.review.delete(
        mid, reason="asked to forget", purge=True, purge_events=True
    ).value
    assert stone.purged and "snapshot_text" in stone.cleaned
    service.close()
    for form in (marker.encode(), marker.encode("utf-16-le"), marker.lower().encode()):
        assert _files_containing(data_dir, form) == []
    reopened = MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False)
    try:
        assert marker not in reopened.retrieval.get_snapshot(injected.snapshot_id).text
        assert all(marker not in text for *_, text in reopened.memories.revisions(mid))
        assert all(marker not in d.reason for d in reopened.memories.history(mid))
        for event in reopened.events.list_events(limit=10_000):
            assert marker not in event.text
        assert reopened.verify().ok
    finally:
        reopened.close()


def test_deleted_memory_is_gone_from_search_inject_and_listing(service: MemoryService) -> None:
    """R19: no search, injection or active listing returns a deleted memory."""
    mid = _remember(service, "Sam goes to FitBox Kreuzberg for spin class every Tuesday.")
    assert service.retrieval.search_memory(SCOPE, "spin class Tuesday")
    stone = service.review.delete(mid, reason="cancelled membership").value
    assert {"keyword_index", "injection_cache"} <= set(stone.cleaned)
    assert service.retrieval.search_memory(SCOPE, "spin class Tuesday") == []
    assert service.retrieval.inject(SCOPE, "spin class Tuesday", 400).value.items == ()
    assert service.memories.tombstone(mid).reason == "cancelled membership"
    with pytest.raises(InvalidStateError):
        service.review.delete(mid, reason="again")


def test_fence_blocks_reextraction_until_lifted(service: MemoryService) -> None:
    """R19: extraction cannot bring deleted content back; the user can lift the fence."""
    from core import NewEvent

    service.events.append_event(
        NewEvent("s9", "user", "user", SCOPE, "Remember that I do yoga on Fridays at 8am.")
    )
    (first,) = service.memories.extract("s9").value
    assert first.record is not None
    service.review.delete(first.record.id, reason="not any more")
    assert service.memories.extract("s9").value == []
    assert service.memories.lift_fence(first.record.id).value == 1
    with pytest.raises(NotFoundError):
        service.memories.lift_fence(first.record.id)


def test_memory_at_a_past_revision(service: MemoryService, clock: ManualClock) -> None:
    """R21: the state at any past revision is rebuilt from history and decisions."""
    mid = _remember(service, "The staging port is 5434.")
    r1 = service.events.revision()
    service.review.edit(mid, "The staging port is 25432.")
    r2 = service.events.revision()
    service.review.delete(mid, reason="moved to a config file")
    then = {m.id: m for m in service.memories.memory_at(r1)}
    assert then[mid].status.value == "active" and "5434" in then[mid].content
    later = {m.id: m for m in service.memories.memory_at(r2)}
    assert "25432" in later[mid].content
    now = {m.id: m for m in service.memories.memory_at(service.events.revision())}
    assert now[mid].status.value == "deleted"
    assert service.memories.memory_at(0) == []


@pytest.mark.slow
def test_deletion_in_another_process_stops_injection_here(
    service: MemoryService, data_dir: Path
) -> None:
    """R19, R30: a process that had the memory cached stops injecting it on its next call."""
    mid = _remember(service, "The orders replica is db-orders-old.internal.")
    assert service.retrieval.inject(SCOPE, "orders replica", 400).value.items
    script = (
        "from pathlib import Path; from core import MemoryService;"
        f"s = MemoryService.open(Path({str(data_dir)!r}), passphrase={PASSPHRASE!r},"
        " prefer_keyring=False);"
        f"s.review.delete({mid!r}, reason='decommissioned'); s.close()"
    )
    subprocess.run(
        [sys.executable, "-c", script], check=True, cwd=REPO, env={"PYTHONPATH": str(REPO)}
    )
    assert service.retrieval.inject(SCOPE, "orders replica", 400).value.items == ()
    assert service.retrieval.search_memory(SCOPE, "orders replica") == []


def test_purge_rewrites_the_vector_file_without_the_vector(
    service: MemoryService, data_dir: Path
) -> None:
    """R19: after a purge the index file on disk holds no bytes of the purged vector."""
    from core.index.vector_index import VectorIndex

    keep = _remember(service, "The build cache lives on the NFS share.")
    mid = _remember(service, "The spin class is on Tuesdays at FitBox.")
    layer = service.index.catalog.vectors
    assert layer is not None and layer.path is not None
    assert layer.wait_idle(120)  # new memories are embedded in the background (#13)
    vector = layer.index.get_vector(mid)
    assert vector is not None
    needle = vector.tobytes()[:64]
    service.review.delete(mid, reason="forget it", purge=True)
    index, meta = VectorIndex.load(layer.path, service._store.codec)
    assert mid not in index and keep in index
    assert needle not in index.plaintext(meta)
    assert needle not in layer.path.read_bytes()


def test_deleted_memory_stays_gone_after_index_rebuild_and_restart(
    service: MemoryService, data_dir: Path
) -> None:
    """R19: rebuilding the derived indexes from the store cannot bring a deleted memory back."""
    mid = _remember(service, "The Tuesday spin class is at FitBox Kreuzberg.")
    service.review.delete(mid, reason="cancelled")
    status = service.index.rebuild()
    assert status["active_memories"] == 0
    assert service.retrieval.search_memory(SCOPE, "spin class FitBox") == []
    service.close()
    again = MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False)
    try:
        assert again.retrieval.search_memory(SCOPE, "spin class FitBox") == []
        assert again.retrieval.inject(SCOPE, "Tuesday spin class", 300).value.items == ()
    finally:
        again.close()


def test_scope_contains_filter_runs_in_sql_with_wildcards_escaped(service: MemoryService) -> None:
    """The memory center's scope filter: key/value containment, `_` and `%` taken literally."""
    from core import MemoryFilter, Scope

    service.memories.remember({"user": "a", "project": "x_1"}, "Remember: one.")
    service.memories.remember({"user": "a", "project": "x%1"}, "Remember: two.")
    service.memories.remember({"user": "b"}, "Remember: three.")
    only = MemoryFilter(scope_contains=Scope.of({"project": "x_1"}))
    assert [r.content for r in service.memories.list_memories(only)] == ["one."]
    assert (
        service.memories.count_memories(MemoryFilter(scope_contains=Scope.of({"user": "a"}))) == 2
    )


def test_effective_status_filters_run_in_sql(service: MemoryService, clock: ManualClock) -> None:
    """`expired` is judged at the store clock: active or pending with its time up."""
    import datetime as dt

    from core import MemoryFilter

    service.memories.remember(
        SCOPE, "Remember: the office is closed this Friday.", expires_in_days=2
    )
    service.memories.remember(SCOPE, "Remember: standup is at 9:30.")

    def contents(*statuses: str) -> list[str]:
        flt = MemoryFilter(effective_statuses=statuses)
        return sorted(r.content for r in service.memories.list_memories(flt))

    assert len(contents("active")) == 2 and contents("expired") == []
    clock.advance(dt.timedelta(days=3))
    assert contents("expired") == ["the office is closed this Friday."]
    assert contents("active") == ["standup is at 9:30."]
    assert (
        service.memories.count_memories(MemoryFilter(effective_statuses=("active", "expired"))) == 2
    )


def test_a_snapshot_names_in_its_lineage_what_it_injected_not_what_it_dropped(
    service: MemoryService, data_dir: Path
) -> None:
    """R18, R20, #13: the lineage rows of a snapshot are the memories it holds a copy of
    (whole or in its digest). The hits it dropped are in its sealed body, with scores and no
    text; a purge of one of them leaves the snapshot as it was, a purge of an injected one
    redacts it."""
    marker = _marker()
    ids = [
        _remember(service, f"Sam's gym note {i}: the {marker} locker row {i} has spare towels")
        for i in range(30)
    ]
    snap_id = service.retrieval.inject(
        SCOPE, f"which locker row has {marker} towels", 80
    ).value.snapshot_id
    service.close()
    reopened = MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False)
    try:
        snap = reopened.retrieval.get_snapshot(snap_id)
        injected = {i.memory_id for i in snap.injected}
        dropped_only = {d.memory_id for d in snap.dropped} - injected
        assert injected and dropped_only and (injected | dropped_only) <= set(ids)
        with sqlite3.connect(data_dir / "memory-center.sqlite3") as conn:
            lineage = conn.execute(
                "SELECT memory_id, injected FROM snapshot_items WHERE snapshot_id = ?", (snap_id,)
            ).fetchall()
        assert {mid for mid, _ in lineage} == injected and all(flag for _, flag in lineage)
        one_dropped, one_injected = sorted(dropped_only)[0], sorted(injected)[0]
        assert snap_id not in {
            sid for sid, *_ in reopened.memories.adoption_chain(one_dropped).injections
        }
        assert snap_id in {
            sid for sid, *_ in reopened.memories.adoption_chain(one_injected).injections
        }

        body = _snapshot_body(data_dir, snap_id)
        stone = reopened.review.delete(one_dropped, reason="asked to forget", purge=True).value
        assert stone.purged and _snapshot_body(data_dir, snap_id) == body
        gone = reopened.memories.get_memory(one_injected).content
        reopened.review.delete(one_injected, reason="asked to forget", purge=True)
        after = reopened.retrieval.get_snapshot(snap_id)
        assert gone not in after.text and one_injected in after.purged_memory_ids
    finally:
        reopened.close()


def _snapshot_body(data_dir: Path, snapshot_id: str) -> bytes:
    with sqlite3.connect(data_dir / "memory-center.sqlite3") as conn:
        row = conn.execute("SELECT body FROM snapshots WHERE id = ?", (snapshot_id,)).fetchone()
    return bytes(row[0])
