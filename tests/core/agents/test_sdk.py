"""The SDK lifecycle class for agent runtimes (R16, R17, R26, R30) and its shared rules."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from core import InvalidInputError, MemoryService, NewEvent, Scope, ScopeRequiredError
from core.sdk import MemoryRuntime, RuntimeConfig, ScopeWidenedError, narrow_scope, trust_for

REPO = Path(__file__).resolve().parents[3]
SCOPE = {"user": "alice", "project": "shop"}


@pytest.fixture
def runtime(service: MemoryService) -> Iterator[MemoryRuntime]:
    """A runtime on the test store; fast limits so failures show quickly."""
    rt = MemoryRuntime(service, SCOPE, "s1", config=RuntimeConfig(hot_path_seconds=2.0))
    yield rt
    rt.close()


# --- shared rules -------------------------------------------------------------------------


def test_narrow_scope_adds_keys_but_never_changes_them() -> None:
    base = Scope.of(SCOPE)
    assert narrow_scope(base, None) == base
    assert dict(narrow_scope(base, {"repo": "web"}).items_) == {**SCOPE, "repo": "web"}
    assert narrow_scope(base, {"user": "alice"}) == base
    with pytest.raises(ScopeWidenedError, match="user=bob"):
        narrow_scope(base, {"user": "bob"})
    with pytest.raises(ScopeRequiredError):
        narrow_scope(Scope.of({}), {"user": "alice"})
    with pytest.raises(InvalidInputError, match="unknown scope key"):
        narrow_scope(base, {"tenant": "x"})


@pytest.mark.parametrize(
    ("role", "claimed", "expected"),
    [
        ("user", None, "user"),
        ("assistant", None, "assistant"),
        ("tool", None, "untrusted"),
        ("tool", "tool_verified", "tool_verified"),
        ("user", "untrusted", "untrusted"),
    ],
)
def test_trust_defaults_and_lowering(role: str, claimed: str | None, expected: str) -> None:
    assert trust_for(role, claimed)[1].value == expected


@pytest.mark.parametrize(
    ("role", "claimed"), [("tool", "user"), ("assistant", "tool_verified"), ("assistant", "user")]
)
def test_trust_above_the_role_ceiling_is_refused(role: str, claimed: str) -> None:
    with pytest.raises(InvalidInputError, match="at most"):
        trust_for(role, claimed)


def test_unknown_role_or_trust_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="role"):
        trust_for("system", None)
    with pytest.raises(InvalidInputError, match="unknown trust"):
        trust_for("user", "admin")


# --- the lifecycle ---------------------------------------------------------------------------


def test_sync_turn_records_roles_and_trust(runtime: MemoryRuntime, service: MemoryService) -> None:
    ids = runtime.sync_turn(
        [
            {"role": "user", "text": "We always squash-merge."},
            {"role": "assistant", "text": "Noted."},
            {"role": "tool", "text": "git log output"},
            NewEvent("s1", "tool", "tool_verified", SCOPE, "pnpm-lock.yaml", kind="tool_result"),
        ]
    )
    events = service.events.get_events(ids)
    got = [(e.actor.value, e.trust.value, e.kind.value) for e in events]
    assert got == [
        ("user", "user", "message"),
        ("assistant", "assistant", "message"),
        ("tool", "untrusted", "tool_result"),
        ("tool", "tool_verified", "tool_result"),
    ]
    assert events[0].by == "sdk"


def test_sync_turn_is_all_or_nothing(runtime: MemoryRuntime, service: MemoryService) -> None:
    with pytest.raises(InvalidInputError):
        runtime.sync_turn([{"role": "user", "text": "fine"}, {"role": "user", "text": "  "}])
    assert service.events.list_events(session="s1") == []


def test_inject_returns_block_and_snapshot(runtime: MemoryRuntime, service: MemoryService) -> None:
    service.memories.remember(SCOPE, "The shop deploys with blue-green releases")
    block, snapshot_id = runtime.inject("how does the shop deploy")
    assert "blue-green" in block
    assert snapshot_id is not None
    assert service.retrieval.get_snapshot(snapshot_id).session_id == "s1"
    assert runtime.state.injections == 1


def test_deletion_stops_injection_on_the_next_call(
    runtime: MemoryRuntime, service: MemoryService
) -> None:
    mid = service.memories.remember(SCOPE, "The shop deploys with blue-green releases").value.record
    assert mid is not None
    assert "blue-green" in runtime.inject("deploy the shop")[0]
    service.review.delete(mid.id, reason="outdated")
    assert "blue-green" not in runtime.inject("deploy the shop")[0]
    assert runtime.search_memory("blue-green deploy") == []


def test_opt_out_injects_and_finds_nothing(runtime: MemoryRuntime, service: MemoryService) -> None:
    service.memories.remember(SCOPE, "The shop deploys with blue-green releases")
    assert "blue-green" in runtime.inject("deploy the shop")[0]  # session state now cached
    runtime.opt_out()
    assert runtime.is_opted_out()
    block, snapshot_id = runtime.inject("deploy the shop")
    assert block == "" and snapshot_id is not None
    assert runtime.search_memory("deploy") == []
    ids = runtime.sync_turn([{"role": "user", "text": "Remember: we deploy on Mondays"}])
    assert runtime.on_pre_compress(ids).result(timeout=10) == []  # nothing extracted


def test_slow_memory_degrades_within_the_budget(service: MemoryService) -> None:
    config = RuntimeConfig(hot_path_seconds=0.1, failure_cooldown_seconds=60)
    with MemoryRuntime(service, SCOPE, "s1", config=config) as rt:
        service.retrieval.set_fault("memory_read", "slow")
        started = time.monotonic()
        assert rt.inject("anything") == ("", None)
        assert rt.inject("anything again") == ("", None)  # cooling down: no second wait
        assert rt.search_memory("anything") == []
        assert time.monotonic() - started < 1.0
        assert rt.state.degraded >= 2
        service.retrieval.clear_fault()


def test_prefetch_answers_the_search_from_memory(
    runtime: MemoryRuntime, service: MemoryService
) -> None:
    service.memories.remember(SCOPE, "The shop deploys with blue-green releases")
    runtime.prefetch("shop deploy").result(timeout=10)
    service.retrieval.set_fault("memory_read", "unavailable")
    hits = runtime.search_memory("Shop  deploy")
    service.retrieval.clear_fault()
    assert [h.content for h in hits] == ["The shop deploys with blue-green releases"]


def test_pre_compress_gives_candidates_only(runtime: MemoryRuntime, service: MemoryService) -> None:
    future = runtime.on_pre_compress(
        [
            {"role": "user", "text": "Please remember that staging runs on port 5433."},
            {"role": "user", "text": "We always run the linter before pushing."},
        ]
    )
    outcomes = future.result(timeout=10)
    assert outcomes and {o.outcome for o in outcomes} == {"candidate"}
    assert len(service.events.list_events(session="s1")) == 2


def test_session_switch_extracts_the_old_session(
    runtime: MemoryRuntime, service: MemoryService
) -> None:
    runtime.sync_turn([{"role": "user", "text": "We always run the linter before pushing."}])
    outcomes = runtime.on_session_switch("s1", "s2").result(timeout=10)
    assert runtime.session == "s2"
    assert [o.outcome for o in outcomes] == ["candidate"]
    assert runtime.on_session_switch(None, "s3").result(timeout=1) == []
    assert runtime.on_session_switch("never-used", "s4").result(timeout=10) == []


def test_example_agent_loop_runs(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "MEMORY_CENTER_DATA_DIR": str(tmp_path / "store"),
        "MEMORY_CENTER_PASSPHRASE": "example passphrase",
    }
    done = subprocess.run(
        [sys.executable, str(REPO / "examples" / "agent_loop.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Going by my notes ('the webshop deploys with blue-green releases')" in out
    assert "pre-compress suggestion: candidate: We always run the linter before pushing." in out
    assert "[demo-session-2]" in out
    assert "search_memory after review: ['We always run the linter before pushing.']" in out
    assert "after opt-out: 0 chars injected" in out
    with MemoryService.open(
        tmp_path / "store", passphrase="example passphrase", prefer_keyring=False
    ) as svc:
        assert svc.verify().ok
        assert {s.id for s in svc.events.list_sessions()} >= {"demo-session-1", "demo-session-2"}
