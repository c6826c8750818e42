"""Self-test of the scenario runner against a tiny in-memory fake of the service.

Why: while the real service is being built, a runner bug would look like a product bug. These
tests pin the runner's own mechanics (labels that follow edits, expect_error with the unchanged
store check, snapshots, replay, resume, failure messages) on behaviour we fully control.
"""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from core import (
    InvalidInputError,
    InvalidStateError,
    ManualClock,
    MemoryKind,
    MemoryRecord,
    MemoryStatus,
    NotFoundError,
    Scope,
    ScopeRequiredError,
    Sensitivity,
    TrustLevel,
)
from tests.scenarios.runner import ScenarioFailure, play
from tests.scenarios.schema import ScenarioFormatError, validate
from tests.scenarios.text import pattern_matches


class FakeService:
    """Just enough of the service API for the self-test scenarios; edits create new records."""

    def __init__(self, clock: ManualClock) -> None:
        self.clock = clock
        self.records: dict[str, MemoryRecord] = {}
        self.decisions: dict[str, list[Any]] = {}
        self.snapshots: dict[str, Any] = {}
        self.revision = 0
        self.ids = itertools.count(1)

    def close(self) -> None:
        """Nothing to release."""

    def _save(self, record: MemoryRecord, action: str, by: str) -> MemoryRecord:
        self.revision += 1
        self.records[record.id] = record
        self.decisions.setdefault(record.id, []).append(
            SimpleNamespace(
                action=action,
                to_status=record.status,
                actor=by,
                reason=f"{action} by {by}",
                policy_version="p1",
                ts=self.clock.now(),
                store_revision=self.revision,
            )
        )
        return record

    def remember(self, scope: Any, text: str, **kw: Any) -> Any:
        scope = Scope.required(scope)
        if not text.strip():
            raise InvalidInputError("text", "blank")
        now = self.clock.now()
        record = MemoryRecord(
            id=f"mem_{next(self.ids):04d}",
            kind=MemoryKind.FACT,
            content=text,
            scope=scope,
            source_event_ids=(),
            confidence=1.0,
            status=MemoryStatus.ACTIVE,
            created_at=now,
            updated_at=now,
            valid_from=now,
            expires_at=None,
            supersedes=None,
            sensitivity=Sensitivity.NONE,
            owner=kw.get("by") or "",
            revision=1,
            source_trust=TrustLevel.USER,
        )
        return SimpleNamespace(record=self._save(record, "remember", kw.get("by") or ""))

    def get_memory(self, memory_id: str) -> MemoryRecord:
        if memory_id not in self.records:
            raise NotFoundError("memory", memory_id)
        return self.records[memory_id]

    def list_memories(self, *_filters: Any) -> list[MemoryRecord]:
        return list(self.records.values())

    def history(self, memory_id: str) -> list[Any]:
        return self.decisions.get(self.get_memory(memory_id).id, [])

    def edit(self, memory_id: str, new_text: str, *, by: str | None = None) -> Any:
        old = self.get_memory(memory_id)
        if old.status != MemoryStatus.ACTIVE:
            raise InvalidStateError(f"cannot edit a {old.status} memory")
        if not new_text.strip():
            raise InvalidInputError("new_text", "blank")
        self._save(dataclasses.replace(old, status=MemoryStatus.SUPERSEDED), "supersede", by or "")
        new = dataclasses.replace(
            old, id=f"mem_{next(self.ids):04d}", content=new_text, supersedes=old.id
        )
        return self._save(new, "edit", by or "")

    def disable(self, memory_id: str, *, by: str | None = None) -> Any:
        old = self.get_memory(memory_id)
        return self._save(dataclasses.replace(old, status=MemoryStatus.DISABLED), "disable", "x")

    def inject(self, scope: Any, goal: str, budget: int, *, session: Any = None) -> Any:
        scope = Scope.required(scope)
        if budget <= 0:
            raise InvalidInputError("budget_tokens", "must be positive")
        items = tuple(
            SimpleNamespace(
                memory_id=r.id, content=r.content, notes=(), scope=r.scope, why_visible="user"
            )
            for r in self.records.values()
            if r.status == MemoryStatus.ACTIVE and r.scope.visible_to(scope)
        )
        text = "\n".join(i.content for i in items)
        snap = SimpleNamespace(
            id=f"snap_{len(self.snapshots) + 1}",
            store_revision=self.revision,
            scope=scope,
            hits=tuple(SimpleNamespace(memory_id=i.memory_id, score=1.0) for i in items),
            injected=items,
            dropped=(),
            text=text,
            policy_version="p1",
            index_version="i1",
            degraded=False,
        )
        self.snapshots[snap.id] = snap
        return SimpleNamespace(
            text=text, items=items, tokens=len(text) // 4, snapshot_id=snap.id, degraded=False
        )

    def search_memory(self, scope: Any, query: str, **_kw: Any) -> list[Any]:
        if not scope:
            raise ScopeRequiredError()
        words = query.lower().split()
        result = self.inject(scope, query, 10_000).items
        return [i for i in result if any(w in i.content.lower() for w in words)]

    def get_snapshot(self, snapshot_id: str) -> Any:
        return self.snapshots[snapshot_id]

    def replay(self, snapshot_id: str) -> Any:
        snap = self.snapshots[snapshot_id]
        items = []
        for item in snap.injected:
            status = self.records[item.memory_id].status
            marks = ("edited",) if status == MemoryStatus.SUPERSEDED else ()
            items.append(
                SimpleNamespace(memory_id=item.memory_id, content=item.content, marks=marks)
            )
        return SimpleNamespace(text=snap.text, items=tuple(items))

    def resume(self, session: str, *, snapshot_id: str | None = None) -> Any:
        snap = self.snapshots[snapshot_id or ""]
        now = self.inject(snap.scope, "", 10_000)
        gone = [i.memory_id for i in snap.injected if i.memory_id not in self.records]
        gone += [
            i.memory_id
            for i in snap.injected
            if self.records[i.memory_id].status != MemoryStatus.ACTIVE
        ]
        removed = tuple(SimpleNamespace(memory_id=m, reason="changed") for m in gone)
        return SimpleNamespace(text=now.text, items=now.items, removed=removed)


def opener(_data_dir: Path, clock: ManualClock) -> FakeService:
    return FakeService(clock)


SCOPE = {"user": "alice", "project": "web-shop"}


def scenario(*steps: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "self-test",
        "title": "t",
        "requirements": ["R1"],
        "lang": "en",
        "steps": list(steps),
    }


GOOD = scenario(
    {"op": "remember", "scope": SCOPE, "text": "web-shop uses yarn 1.22.", "label": "m"},
    {"op": "remember", "scope": SCOPE, "text": "  "},
    {"op": "expect_error", "kind": "invalid_input"},
    {"op": "remember", "scope": None, "text": "x"},
    {"op": "expect_error", "kind": "scope_required"},
    {"op": "disable", "match": {"nonexistent": True}},
    {"op": "expect_error", "kind": "not_found"},
    {"op": "inject", "scope": SCOPE, "goal": "install", "budget_tokens": 100, "label": "i1",
     "session": "s1", "expect": {"contains": [["ＹＡＲＮ", "npm"]]}},
    {"op": "expect_snapshot", "of": "i1", "complete": True, "injected_include": [{"label": "m"}],
     "items_explained": True},
    {"op": "edit", "match": {"label": "m"}, "new_text": "web-shop uses pnpm 9."},
    {"op": "expect_memory", "match": {"label": "m"}, "status_in": ["active"],
     "supersedes": {"contains": "yarn"}},
    {"op": "expect_memory", "match": {"contains": "yarn"}, "status_in": ["superseded"]},
    {"op": "edit", "match": {"contains": "yarn"}, "new_text": "again"},
    {"op": "expect_error", "kind": ["invalid_state", "not_found"]},
    {"op": "expect_history", "match": {"label": "m"}, "sequence": ["active", "active"],
     "actions_include": ["remember", "edit"]},
    {"op": "inject", "scope": SCOPE, "goal": "install", "budget_tokens": 100, "label": "i2",
     "session": "s1", "expect": {"contains": ["pnpm"], "not_contains": ["yarn"]}},
    {"op": "expect_snapshot", "of": "i2", "revision_after": "i1", "not_injected": [
        {"contains": "yarn"}]},
    {"op": "replay", "snapshot_of": "i1", "expect": {"contains": ["yarn"], "marked": [
        {"match": {"label": "m"}, "mark_in": ["edited"]}]}},
    {"op": "resume", "session": "s1", "snapshot_of": "i1",
     "expect": {"contains": ["pnpm"], "not_contains": ["yarn"], "removed": [{"label": "m"}]}},
    {"op": "search", "scope": SCOPE, "query": "pnpm", "expect": {"top_contains": "pnpm 9"}},
    {"op": "search", "scope": {"user": "bob"}, "query": "pnpm", "expect": {"empty": True}},
    {"op": "expect_no_memory", "match": {"contains": "pnpm"}, "status_in": ["disabled"]},
)  # fmt: skip


def test_runner_plays_a_passing_scenario() -> None:
    play(GOOD, opener)


def _failure(*steps: dict[str, Any]) -> str:
    with pytest.raises(ScenarioFailure) as info:
        play(scenario(*steps), opener)
    return str(info.value)


def test_failure_names_step_op_and_difference() -> None:
    message = _failure(
        {"op": "remember", "scope": SCOPE, "text": "web-shop uses yarn.", "label": "m"},
        {"op": "inject", "scope": SCOPE, "goal": "g", "budget_tokens": 50, "expect": {
            "contains": ["pnpm"]}},
    )  # fmt: skip
    assert message.startswith("self-test: step 2 inject: injected text lacks")


def test_expect_error_fails_when_the_step_succeeds() -> None:
    message = _failure(
        {"op": "remember", "scope": SCOPE, "text": "fine"},
        {"op": "expect_error", "kind": "invalid_input"},
    )
    assert "step 2 expect_error: the previous step succeeded" in message


def test_budget_guard_applies_to_every_inject() -> None:
    message = _failure(
        {"op": "remember", "scope": SCOPE, "text": "x" * 400},
        {"op": "inject", "scope": SCOPE, "goal": "g", "budget_tokens": 20},
    )
    assert "step 2 inject: injected 100 tokens, limit is 20" in message


def test_missing_service_method_is_reported_by_name() -> None:
    message = _failure({"op": "extract", "session": "s1"})
    assert message.endswith("step 1 extract: service lacks extract")


def test_schema_rejects_unknown_fields_and_ops() -> None:
    with pytest.raises(ScenarioFormatError, match="unknown field"):
        validate(scenario({"op": "restart", "when": "now"}))
    with pytest.raises(ScenarioFormatError, match="unknown op"):
        validate(scenario({"op": "reboot"}))
    with pytest.raises(ScenarioFormatError, match="matcher"):
        validate(scenario({"op": "expect_memory", "match": {"lable": "m"}}))


def test_text_matching_is_nfkc_casefolded_substring() -> None:
    assert pattern_matches("Use pnpm here", "ＰＮＰＭ")
    assert pattern_matches("香菜 is fine", ["cilantro", "香菜"])
    assert not pattern_matches("use  pnpm", "use pnpm")
