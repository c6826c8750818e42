"""Queued writes of a transaction: merged inserts and last-value-only state (#13).

A batch of remembers queues the same inserts for every item; they are sent as one
executemany per statement, parents' tables first so foreign keys hold, and the chain head
and session counts, which every append used to rewrite, are written once at commit.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import event, update

from core import ManualClock, MemoryService, Scope
from core.storage import schema as s
from core.storage.driver_path import grouped, insert_into
from tests.support.pg_fixtures import ServiceOpener

ROW_EVENT = {"id": "e", "position": 1}


def test_a_run_of_inserts_is_merged_parents_first_and_other_writes_keep_their_place() -> None:
    events, payloads = insert_into(s.events), insert_into(s.event_payloads)
    barrier = update(s.sessions).values(event_count=1)
    queued: list[tuple[Any, Any]] = [
        (payloads, [{"event_id": "a"}]),  # a child queued before its parent
        (events, [{"id": "a"}]),
        (payloads, [{"event_id": "b"}]),
        (events, [{"id": "b"}]),
        (barrier, [{}]),
        (payloads, [{"event_id": "c"}]),
        (events, [{"id": "c", "extra": 1}]),  # other keys: a separate executemany
        (events, [{"id": "d"}]),
    ]
    out = grouped(queued)
    assert out == [
        (events, [{"id": "a"}, {"id": "b"}]),
        (payloads, [{"event_id": "a"}, {"event_id": "b"}]),
        (barrier, [{}]),
        (events, [{"id": "c", "extra": 1}]),
        (events, [{"id": "d"}]),
        (payloads, [{"event_id": "c"}]),
    ]


@contextlib.contextmanager
def counted_statements(service: MemoryService) -> Iterator[Counter[str]]:
    """The statements sent meanwhile, by their first three words."""
    statements: Counter[str] = Counter()
    engine = service._store.write_engine  # counting statements: the point of the change

    def count(*args: Any) -> None:
        statements[" ".join(str(args[2]).split()[:3])] += 1

    event.listen(engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", count)


def test_a_batch_writes_the_chain_head_and_session_counts_once_and_verifies(
    backend: ServiceOpener, data_dir: Path, clock: ManualClock
) -> None:
    service = backend(data_dir, clock)
    try:
        _batch_and_check(service)
    finally:
        service.close()


def _batch_and_check(service: MemoryService) -> None:
    scope = Scope.of({"user": "alice", "project": "queue"})
    earlier = service.memories.remember(
        scope, "The brask service deploys to region 3."
    ).value.record
    assert earlier is not None
    names = ["kalo", "mire", "tosan", "velu", "dorin", "pesk", "quar", "zenti", "lumo", "brask"]
    texts = [
        f"The {a}{b} service deploys to region {len(a) + len(b)}." for a in names for b in names
    ]
    texts += ["The kalomire service deploys to region 8.", "服务 kalo 使用工具 vite。"]
    # Each replaces an older record: one of an earlier transaction, one of this batch.
    texts += [
        "The brask service now deploys to region 4.",
        "The kalokalo service now deploys to region 12.",
    ]
    with counted_statements(service) as statements:
        out = service.memories.remember_many(
            [{"scope": scope, "text": t, "session": f"s{i % 2}"} for i, t in enumerate(texts)]
        )
    assert len(out.value) == len(texts)
    assert statements["UPDATE sessions SET"] <= 3  # s0, s1 and the governance session
    assert statements["INSERT INTO store_meta"] == 1
    # One executemany per run of inserts: a merge or conflict reads the store, which
    # sends what is queued, so a few runs.
    assert statements["INSERT INTO events"] < len(texts) / 4
    report = service.verify()
    assert report.ok, report
    events = service.events.list_events(limit=10_000)
    by_session = Counter(e.session_id for e in events)
    for info in service.events.list_sessions():
        assert info.event_count == by_session[info.id], info
        assert [e.seq for e in events if e.session_id == info.id] == list(
            range(1, info.event_count + 1)
        )
    outcomes = Counter(str(o.outcome) for o in out.value)
    assert outcomes["merged"] >= 1 and outcomes["active"] >= 1
    first_in_batch = out.value[0].record
    assert first_in_batch is not None
    assert out.value[-2].superseded == (earlier.id,)
    assert out.value[-1].superseded == (first_in_batch.id,)
    for old, new in ((earlier.id, out.value[-2].record), (first_in_batch.id, out.value[-1].record)):
        changed = service.memories.get_memory(old)
        assert new is not None
        assert changed.status == "superseded" and changed.superseded_by == new.id


def test_changes_to_records_of_the_same_batch_wait_in_the_queue(
    backend: ServiceOpener, data_dir: Path, clock: ManualClock
) -> None:
    """#13: a duplicate merging into a record the batch inserted, or a contradiction
    superseding one, changes the queued row (its links, status and binding) instead of
    sending the queue early; merges into an older record queue their links too. The
    batch's events still go in one executemany, and the store ends up as if each change
    had been sent at once: every link present once, bindings that verify."""
    service = backend(data_dir, clock)
    try:
        scope = Scope.of({"user": "alice", "project": "queue"})
        older = service.memories.remember(
            scope, "The brask service deploys to region 3."
        ).value.record
        assert older is not None
        texts = [
            "The zenti team meets in Oslo.",  # the transaction's first reads send it early
            "The kalo service deploys to region 7.",
            "The kalo service deploys to region 7!",  # merges into the first (queued)
            "the kalo service deploys to region 7",  # and again: sees the first merge's link
            "The brask service deploys to region 3!",  # merges into the older record
            "The brask service deploys to region 3 .",  # and again
            "The mire service deploys to region 2.",
            "The mire service now deploys to region 9.",  # supersedes the queued one
        ]
        with counted_statements(service) as statements:
            out = service.memories.remember_many([{"scope": scope, "text": t} for t in texts]).value
        assert [str(o.outcome) for o in out] == [
            "active", "active", "merged", "merged", "merged", "merged", "active", "active"
        ]  # fmt: skip
        # The transaction's first reads (the change feed's revision, the governance
        # session's event count) send the queue once each, whatever the batch's size; no
        # merge or supersede does.
        assert statements["INSERT INTO events"] <= 2
        assert statements["INSERT INTO memories"] <= 2
        # Only the older record's two merges update a sent row (its confidence).
        assert statements["UPDATE memories SET"] == 2
        first, mire = out[1].record, out[6].record
        assert first is not None and mire is not None
        kalo = service.memories.get_memory(first.id)
        assert len(kalo.source_event_ids) == 3
        assert len(service.memories.get_memory(older.id).source_event_ids) == 3
        replaced = service.memories.get_memory(mire.id)
        assert replaced.status == "superseded" and replaced.superseded_by == out[7].record.id  # type: ignore[union-attr]
        report = service.verify()
        assert report.ok, report
    finally:
        service.close()
