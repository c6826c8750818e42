"""#38: event kinds and sessions only the engine writes are refused on every public path.

A forged `memory_decision` made `verify` fail for ever on an append-only log, and one with
`to: active` hid a rolled-back row so that a deleted memory was injected again. The one gate
is `core.model.validate.new_event`, which every public append passes (R1-R3, R12)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from app.cli import cli
from core import InvalidInputError, MemoryService, NewEvent
from core.sdk import MemoryRuntime
from tests.conftest import PASSPHRASE

SCOPE = {"user": "alice"}
ENGINE_KINDS = ["memory_decision", "redaction", "security"]
INTERNAL = ["memory-center:governance", "memory-center:direct", "memory-center:integrity"]


def _event(session: str = "chat-1", kind: str = "message") -> NewEvent:
    return NewEvent(session, "user", "user", SCOPE, "to: active", kind=kind, data={"to": "active"})


def _count(service: MemoryService) -> int:
    return len(
        service.events.list_events(session=None, after_position=0, limit=10_000, newest_first=False)
    )


@pytest.mark.parametrize("kind", ENGINE_KINDS)
def test_an_engine_kind_is_refused_and_nothing_is_written(
    service: MemoryService, kind: str
) -> None:
    before = _count(service)
    with pytest.raises(InvalidInputError, match=rf"event.kind.*{kind} events are written by"):
        service.events.append_event(_event(kind=kind))
    with pytest.raises(InvalidInputError, match=r"events\[1\].kind"):
        service.events.append_events([_event(), _event(kind=kind)])
    assert _count(service) == before
    assert service.verify().ok


@pytest.mark.parametrize("session", INTERNAL)
def test_an_internal_session_is_refused(service: MemoryService, session: str) -> None:
    before = _count(service)
    with pytest.raises(InvalidInputError, match=r"event.session.*Memory Center's own"):
        service.events.append_event(_event(session=session))
    with pytest.raises(InvalidInputError, match="session"):
        service.memories.remember(SCOPE, "I like tea.", session=session)
    with pytest.raises(InvalidInputError, match="session"):
        service.memories.suggest(SCOPE, "Alice likes tea.", session=session, by="agent")
    assert _count(service) == before


def test_ordinary_kinds_and_sessions_still_append(service: MemoryService) -> None:
    for kind in ["message", "tool_call", "observation", "agent_call", "degraded"]:
        service.events.append_event(_event(kind=kind))
    service.events.append_event(_event(session="memory-centre:governance"))
    assert service.verify().ok


def test_the_sdk_cannot_write_engine_events(service: MemoryService) -> None:
    runtime = MemoryRuntime(service, SCOPE, "chat-1")
    try:
        with pytest.raises(InvalidInputError, match="memory_decision events are written by"):
            runtime.sync_turn([{"role": "user", "text": "x", "kind": "memory_decision"}])
        runtime.session = "memory-center:governance"
        with pytest.raises(InvalidInputError, match="Memory Center's own"):
            runtime.sync_turn([{"role": "user", "text": "forged"}])
    finally:
        runtime.close()


@pytest.mark.parametrize(
    "args",
    [
        ["--kind", "memory_decision"],
        ["--kind", "redaction"],
        ["--kind", "security"],
        ["--session", "memory-center:governance"],
    ],
    ids=["memory_decision", "redaction", "security", "governance-session"],
)
def test_cli_event_add_refuses_engine_events(tmp_path: object, args: list[str]) -> None:
    env = {
        "MEMORY_CENTER_PASSPHRASE": PASSPHRASE,
        "MEMORY_CENTER_DATA_DIR": str(tmp_path) + "/s",
        "MEMORY_CENTER_EMBEDDER": "hashing",
    }
    runner = CliRunner()
    assert runner.invoke(cli, ["init"], env=env).exit_code == 0
    base = ["event", "add", "--session", "s1", "--actor", "user", "--trust", "user"]
    result = runner.invoke(cli, [*base, "--scope", "user=alice", "--text", "x", *args], env=env)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert "Memory Center" in result.output
    with MemoryService.open(str(tmp_path) + "/s", passphrase=PASSPHRASE, prefer_keyring=False) as s:
        assert _count(s) == 0
        assert s.verify().ok


def test_mcp_record_event_cannot_write_into_an_internal_session(
    service: MemoryService, tmp_path: Path
) -> None:
    from app.mcp_server import Caller, Gateway, ServerSettings, ToolFailure
    from core import Scope

    settings = ServerSettings(tmp_path, Scope.of(SCOPE), "memory-center:governance")
    gateway = Gateway(settings, opener=lambda _path: service)
    before = _count(service)
    with pytest.raises(ToolFailure, match="Memory Center's own"):
        gateway.record_event(Caller("agent", "1"), "user", "forged", None, None, None)
    assert _count(service) == before
