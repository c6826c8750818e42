"""#10 (R19, R20): a purge reaches every copy of the content: audit events of MCP tool calls,
snapshot goals, other memories' conflict descriptions; and the chain still verifies."""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.types import Implementation

from app.mcp_server import Caller, Gateway, ServerSettings, ToolFailure
from core import MemoryService, Scope
from core.workflows.copies import PLACES
from tests.conftest import PASSPHRASE

REPO = Path(__file__).resolve().parents[2]
ALICE = {"user": "alice", "project": "flat"}


def _marker() -> str:
    return "QJX" + uuid.uuid4().hex[:10].upper()


def _everything(svc: MemoryService, session: str) -> list[str]:
    """Every decrypted text the store can show: events, snapshots, decisions."""
    texts: list[str] = []
    for event in svc.events.list_events(limit=10_000):
        texts.append(event.text)
        texts.append(repr(event.data))
    for snap in svc.retrieval.list_snapshots(session):
        texts += [snap.goal, snap.text, *(i.content for i in snap.injected)]
    for rec in svc.memories.list_memories():
        texts += [d.reason for d in svc.memories.history(rec.id)]
    return texts


def _open(data_dir: Path) -> MemoryService:
    return MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False)


def test_purge_events_redacts_agent_call_arguments_and_snapshot_goals(
    service: MemoryService, data_dir: Path
) -> None:
    """The MCP gateway audits every call with its arguments; a purge redacts those that
    quote the content, and the goal of a snapshot that asked for it."""
    marker = _marker()
    content = f"The spare key of the flat is with neighbour {marker} on floor 3."
    mid = service.memories.remember(ALICE, content, session="s1").value.record.id  # type: ignore[union-attr]
    settings = ServerSettings(data_dir, Scope.of(ALICE), "agent-1")
    gateway = Gateway(settings, opener=lambda _path: service)
    caller = Caller("test-agent", "1")
    gateway.search_memory(caller, f"where is it? {content}", None, 5)
    gateway.get_context(caller, f"find: {content}", 300, None)
    with pytest.raises(ToolFailure):  # a failed call is audited with its arguments too
        gateway.remember(caller, content, None, None, {"user": "bob"})
    long_query = "x" * 190 + " " + content  # the audit keeps 200 characters of it
    gateway.search_memory(caller, long_query, None, 5)
    unrelated = gateway.search_memory(caller, "when is the bin collected", None, 5)
    assert unrelated is not None
    assert any(marker in t for t in _everything(service, "agent-1"))

    stone = service.review.delete(mid, reason="privacy", purge=True, purge_events=True).value
    assert "snapshot_goal" in stone.cleaned
    assert any("agent call(s)" in line for line in stone.report)
    texts = _everything(service, "agent-1")
    assert not any(marker in t for t in texts)
    assert not any(content[:40] in t for t in texts)
    assert service.verify().ok
    calls = [e for e in service.events.list_events(limit=10_000) if e.kind.value == "agent_call"]
    kept = [e for e in calls if not e.redacted]
    assert any("bin collected" in repr(e.data) for e in kept)  # the unrelated call stays


def test_purge_without_purge_events_keeps_the_log(service: MemoryService, data_dir: Path) -> None:
    """Without --purge-events the log is not touched (the user did not ask for it)."""
    marker = _marker()
    content = f"The storage unit code is {marker} for the cellar."
    mid = service.memories.remember(ALICE, content, session="s1").value.record.id  # type: ignore[union-attr]
    gateway = Gateway(ServerSettings(data_dir, Scope.of(ALICE), "agent-1"), lambda _p: service)
    gateway.search_memory(Caller("a", "1"), content, None, 5)
    service.review.delete(mid, reason="privacy", purge=True)
    calls = [e for e in service.events.list_events(limit=10_000) if e.kind.value == "agent_call"]
    assert any(marker in repr(e.data) for e in calls)
    assert service.verify().ok


def test_purge_redacts_conflict_descriptions_of_other_memories(service: MemoryService) -> None:
    """A contradiction's decision reason on the newer memory quotes the older one."""
    old = service.memories.remember(
        ALICE, "The laundry room opens at 7am.", session="s1"
    ).value.record
    new = service.memories.remember(
        ALICE, "The laundry room opens at 9am.", session="s1"
    ).value.record
    assert old is not None and new is not None
    mentions = [d.reason for d in service.memories.history(new.id) if old.id in d.reason]
    assert mentions, "the newer memory's decision should describe the older one"
    service.review.delete(old.id, reason="wrong", purge=True)
    after = [d.reason for d in service.memories.history(new.id)]
    assert not any("7am" in r for r in after)
    assert any("redacted by compliance purge" in r for r in after)
    assert service.verify().ok


def test_registry_names_every_place_once() -> None:
    """The one list: each place once, each either purged or with the reason it is not."""
    names = [p.name for p in PLACES]
    assert len(names) == len(set(names))
    assert all(p.handler is not None or p.why_nothing for p in PLACES)
    for needed in ("agent_call", "snapshots.body", "decisions.reason", "log lines", "export"):
        assert any(needed in n for n in names), needed


def _params(data_dir: Path, *args: str) -> StdioServerParameters:
    env = {
        "PYTHONPATH": str(REPO),
        "MEMORY_CENTER_DATA_DIR": str(data_dir),
        "MEMORY_CENTER_PASSPHRASE": PASSPHRASE,
        "MEMORY_CENTER_EMBEDDER": "hashing",
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "OPENBLAS_NUM_THREADS": "1",
    }
    code = "from app.mcp_server import main; main()"
    return StdioServerParameters(command=sys.executable, args=["-c", code, *args], env=env)


@pytest.mark.slow
def test_purge_reaches_a_real_mcp_servers_audit_events(tmp_path: Path) -> None:
    """Over real stdio: the server audits search and get_context; the CLI-side purge with
    purge_events leaves the content in no event or snapshot, and the chain verifies."""
    data_dir = tmp_path / "store"
    marker = _marker()
    content = f"The bike lock combination is {marker} since March."
    with _open(data_dir) as svc:
        mid = svc.memories.remember(ALICE, content).value.record.id  # type: ignore[union-attr]

    async def body(client: Client) -> None:
        await client.call_tool("search_memory", {"query": content})
        await client.call_tool("get_context", {"goal": f"what is it: {content}"})

    async def go() -> None:
        info = Implementation(name="test-agent", version="1")
        args = ("--scope", "user=alice", "--scope", "project=flat", "--session", "agent-9")
        async with Client(
            _params(data_dir, *args), client_info=info, read_timeout_seconds=60
        ) as client:
            await body(client)

    asyncio.run(go())
    with _open(data_dir) as svc:
        assert any(marker in t for t in _everything(svc, "agent-9"))
        svc.review.delete(mid, reason="privacy", purge=True, purge_events=True)
    with _open(data_dir) as svc:
        assert not any(marker in t for t in _everything(svc, "agent-9"))
        assert svc.verify().ok
    assert _files_with(data_dir, marker.encode()) == []


def _files_with(root: Path, needle: bytes) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_a_purged_transcript_line_stays_redacted_when_imported_again(
    service: MemoryService, tmp_path: Path
) -> None:
    """#38: after a purge with --purge-events, the same transcript imported again finds its
    redacted lines already present; none comes back in full."""
    from app.importers import claude_code
    from app.importers.base import ImportReport, write_sessions

    marker = _marker()
    said = f"Remember that my bank PIN reminder word is {marker} for the savings account."
    lines = [
        {
            "type": "user",
            "uuid": "u1",
            "sessionId": "sess-38",
            "timestamp": "2026-02-10T09:14:02.118Z",
            "message": {"role": "user", "content": said},
        },
        {
            "type": "user",
            "uuid": "u2",
            "sessionId": "sess-38",
            "timestamp": "2026-02-10T09:15:02.118Z",
            "message": {"role": "user", "content": "Let us talk about the garden now."},
        },
    ]
    transcript = tmp_path / "sess-38.jsonl"
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))

    def _import() -> ImportReport:
        sessions, problems = claude_code.parse(transcript)
        report = ImportReport(problems=list(problems))
        return write_sessions(service, sessions, Scope.of(ALICE), report, importer="test")

    first = _import()
    assert first.events_written == 2
    made = [m for m in service.memories.list_memories() if marker in m.content]
    assert made, "the transcript line became no memory"
    for memory in made:
        service.review.delete(memory.id, reason="privacy", purge=True, purge_events=True)
    assert not any(marker in t for t in _everything(service, "x"))
    again = _import()
    assert again.events_written == 0 and again.events_already_present == 2
    assert not any(marker in t for t in _everything(service, "x"))
    assert service.verify().ok


def test_purge_events_redacts_the_echo_and_an_agents_recorded_event(
    service: MemoryService, data_dir: Path
) -> None:
    """#38: the assistant's echo in the same transcript and an MCP `record_event` quoting
    the content are copies too; with --purge-events they are redacted, and an unrelated
    turn of the same session is kept."""
    from core import NewEvent

    marker = _marker()
    content = f"The alarm code of the flat is the word {marker} backwards."
    mid = service.memories.remember(ALICE, content, session="s1").value.record.id  # type: ignore[union-attr]
    service.events.append_event(
        NewEvent(
            session="s1",
            actor="assistant",
            trust="assistant",
            scope=ALICE,
            text=f"Noted: {content} I will keep that in mind.",
        )
    )
    service.events.append_event(
        NewEvent(session="s1", actor="user", trust="user", scope=ALICE, text="Thanks, bye.")
    )
    settings = ServerSettings(data_dir, Scope.of(ALICE), "agent-1")
    gateway = Gateway(settings, opener=lambda _path: service)
    gateway.record_event(Caller("test-agent", "1"), "assistant", content, None, None, None)
    assert sum(marker in t for t in _everything(service, "agent-1")) >= 3

    service.review.delete(mid, reason="privacy", purge=True, purge_events=True)
    texts = _everything(service, "agent-1")
    assert not any(marker in t for t in texts)
    assert any("Thanks, bye." in t for t in texts)
    assert service.verify().ok
