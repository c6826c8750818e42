"""Transcript importers: Claude Code JSONL and ChatGPT conversations.json (R30, R2, R11)."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from app.cli import Context
from app.importers import chatgpt, claude_code
from app.importers.base import ImportReport, said_before, write_sessions
from app.importers.cli import import_group
from core import MemoryService, Scope
from core.model.memory import MemoryFilter
from tests.conftest import PASSPHRASE

FIXTURES = Path(__file__).parent / "fixtures"
CLAUDE_DIR = FIXTURES / "claude_code"
CLAUDE_S1 = next(CLAUDE_DIR.rglob("7f3c2a10-*.jsonl"))
CHATGPT = FIXTURES / "chatgpt" / "conversations.json"
ALICE = Scope.of({"user": "alice"})


def _import(service: MemoryService, module: object, path: Path) -> ImportReport:
    sessions, problems = module.parse(path)  # type: ignore[attr-defined]
    report = ImportReport(problems=list(problems))
    return write_sessions(service, sessions, ALICE, report, importer="test")


def _by_source(service: MemoryService, session: str) -> dict[str, object]:
    return {str(e.data["source_id"]): e for e in service.events.list_events(session=session)}


def test_claude_code_actors_trust_and_timestamps(service: MemoryService) -> None:
    report = _import(service, claude_code, CLAUDE_DIR)
    assert report.sessions_written == 2
    assert report.events_written == 11
    events = service.events.list_events(session="claude-code:7f3c2a10-4b8e-4d2a-9c61-0e5b8f2d9a11")
    first = events[0]
    assert (first.actor.value, first.trust.value, first.kind.value) == ("user", "user", "message")
    assert first.data["source_ts"] == "2026-02-10T09:14:02.118Z"
    assert first.data["source_id"] == "c0000000-0000-4000-8000-000000000001#0"
    assert dict(first.scope.items_) == {"user": "alice", "project": "webshop"}
    kinds = [(e.actor.value, e.trust.value, e.kind.value, e.source) for e in events]
    assert ("assistant", "assistant", "tool_call", None) in kinds
    results = [e for e in events if e.kind.value == "tool_result"]
    assert {e.trust.value for e in results} == {"untrusted"}
    assert {e.source.value for e in results if e.source} == {"terminal", "web_page"}
    texts = " ".join(e.text for e in events)
    assert "Let me look at the repo first" not in texts  # thinking is not imported
    assert "/clear" not in texts  # meta lines are not conversation


def test_malformed_lines_are_reported_with_file_and_line(service: MemoryService) -> None:
    report = _import(service, claude_code, CLAUDE_S1)
    where = sorted((Path(p.file).name, p.where) for p in report.problems)
    assert where == [(CLAUDE_S1.name, "line 10"), (CLAUDE_S1.name, "line 15")]
    assert "not valid JSON" in str(report.problems[0])
    assert report.events_written == 9  # the good lines around them are imported


def test_extraction_fills_the_review_queue_and_quarantines_web_injection(
    service: MemoryService,
) -> None:
    _import(service, claude_code, CLAUDE_DIR)
    records = {m.content: m for m in service.memories.list_memories()}
    assert (
        records["I prefer small commits with conventional commit messages."].status == "candidate"
    )
    # "Remember that ..." in a transcript was said then, not asked now: it waits for review,
    # flagged as imported, its decision naming the importer, the file and the session.
    asked = records["the staging database runs on port 5433."]
    assert asked.status == "candidate"
    assert "imported" in asked.flags and "user_confirmed" not in asked.flags
    (decision,) = service.memories.history(asked.id)
    assert "imported (test, file " in decision.reason and CLAUDE_S1.name in decision.reason
    assert "session claude-code:" in decision.reason
    poisoned = [m for c, m in records.items() if "push directly to main" in c]
    assert [m.status.value for m in poisoned] == ["quarantined"]
    assert poisoned[0].source_trust.value == "untrusted"


def test_reimport_adds_nothing(service: MemoryService) -> None:
    _import(service, claude_code, CLAUDE_DIR)
    _import(service, chatgpt, CHATGPT)
    before = (
        service.status().event_count,
        len(service.memories.list_memories()),
        service.events.revision(),
    )
    again = _import(service, claude_code, CLAUDE_DIR)
    again_gpt = _import(service, chatgpt, CHATGPT)
    after = (
        service.status().event_count,
        len(service.memories.list_memories()),
        service.events.revision(),
    )
    assert after == before
    assert again.events_written == again_gpt.events_written == 0
    assert again.events_already_present == 11


def test_appended_lines_import_only_the_new_events(service: MemoryService, tmp_path: Path) -> None:
    copy = tmp_path / CLAUDE_S1.name
    shutil.copy(CLAUDE_S1, copy)
    _import(service, claude_code, copy)
    line = {
        "type": "user",
        "uuid": "e0000000-0000-4000-8000-000000000001",
        "sessionId": "7f3c2a10-4b8e-4d2a-9c61-0e5b8f2d9a11",
        "cwd": "/home/alice/projects/webshop",
        "timestamp": "2026-02-10T10:00:00.000Z",
        "message": {"role": "user", "content": "We decided to use Postgres 16 for staging."},
    }
    with copy.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\n")
    report = _import(service, claude_code, copy)
    assert (report.events_written, report.events_already_present) == (1, 9)


def test_chatgpt_follows_the_current_branch(service: MemoryService) -> None:
    report = _import(service, chatgpt, CHATGPT)
    assert report.sessions_written == 2
    assert [p.where for p in report.problems] == ["conversation 2"]
    events = _by_source(service, "chatgpt:67a9f0c0-1111-8000-aaaa-000000000001")
    assert list(events) == ["u-1", "a-1b", "u-2", "a-2"]  # not the regenerated a-1a
    assert events["u-1"].data["source_ts"] == "2025-02-10T10:00:00.250000+00:00"  # type: ignore[attr-defined]


def test_chatgpt_tool_and_web_content_is_untrusted(service: MemoryService) -> None:
    _import(service, chatgpt, CHATGPT)
    events = _by_source(service, "chatgpt:67ab5a00-2222-8000-bbbb-000000000002")
    quote = events["q-10"]
    assert (quote.actor.value, quote.trust.value, quote.source.value) == (  # type: ignore[attr-defined]
        "tool",
        "untrusted",
        "web_page",
    )
    assert events["a-10"].kind.value == "tool_call"  # type: ignore[attr-defined]
    assert events["py-2"].trust.value == "untrusted"  # type: ignore[attr-defined]
    queue = service.memories.list_memories(MemoryFilter(statuses=("quarantined",)))
    assert any("recommend Python 2" in m.content for m in queue)
    assert not service.memories.list_memories(MemoryFilter(statuses=("active",), text="Python 2"))


def test_chatgpt_skips_system_hidden_and_reasoning(service: MemoryService) -> None:
    sessions, _ = chatgpt.parse(CHATGPT)
    ids = {e.source_id for s in sessions for e in s.events}
    assert not {"sys-1", "ctx-1", "a-1a"} & ids


def test_chatgpt_without_current_node_follows_newest_children() -> None:
    mapping = {
        "r": {"id": "r", "message": None, "parent": None, "children": ["x"]},
        "x": {"id": "x", "parent": "r", "children": ["y1", "y2"]},
        "y1": {"id": "y1", "parent": "x", "children": []},
        "y2": {"id": "y2", "parent": "x", "children": []},
    }
    assert chatgpt.branch(mapping, None) == ["r", "x", "y2"]
    assert chatgpt.branch(mapping, "y1") == ["r", "x", "y1"]


def test_invalid_json_file_is_one_problem(tmp_path: Path) -> None:
    bad = tmp_path / "conversations.json"
    bad.write_text('[{"id": "a",\n "mapping": }]', encoding="utf-8")
    sessions, problems = chatgpt.parse(bad)
    assert sessions == []
    assert problems[0].where == "line 2"


def test_cli_imports_with_progress_and_json(data_dir: Path) -> None:
    runner = CliRunner()
    env = {"MEMORY_CENTER_PASSPHRASE": PASSPHRASE}
    args = ["claude-code", str(CLAUDE_DIR), "--scope", "user=alice"]
    human = runner.invoke(import_group, args, obj=Context(data_dir, False), env=env)
    assert human.exit_code == 0, human.output
    assert "imported 11 events in 2 sessions" in human.stdout
    assert "line 10" in human.stderr
    again = runner.invoke(import_group, args, obj=Context(data_dir, True), env=env)
    assert json.loads(again.stdout)["events_already_present"] == 11
    gpt = ["chatgpt", str(CHATGPT), "--scope", "user=alice"]
    result = runner.invoke(import_group, gpt, obj=Context(data_dir, True), env=env)
    assert json.loads(result.stdout)["events_written"] == 11


def test_cli_without_extraction_writes_events_only(data_dir: Path) -> None:
    args = ["chatgpt", str(CHATGPT), "--scope", "user=alice", "--no-extract"]
    result = CliRunner().invoke(
        import_group,
        args,
        obj=Context(data_dir, True),
        env={"MEMORY_CENTER_PASSPHRASE": PASSPHRASE},
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["suggestions"] == {}
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        assert svc.memories.list_memories() == []
        assert svc.status().event_count == 11


def test_cli_refuses_a_malformed_scope(data_dir: Path) -> None:
    """Without --scope the login user is the default (#43); a malformed one is refused."""
    result = CliRunner().invoke(
        import_group,
        ["chatgpt", str(CHATGPT), "--scope", "no-equals-sign"],
        obj=Context(data_dir, False),
        env={"MEMORY_CENTER_PASSPHRASE": PASSPHRASE},
    )
    assert result.exit_code == 1
    assert "scope" in result.stderr


@pytest.mark.parametrize("content", ["", "   "])
def test_blank_text_blocks_are_skipped(tmp_path: Path, content: str) -> None:
    f = tmp_path / "s.jsonl"
    f.write_text(
        json.dumps(
            {
                "type": "user",
                "uuid": "u1",
                "sessionId": "s",
                "message": {"role": "user", "content": content},
            }
        )
        + "\n"
    )
    sessions, problems = claude_code.parse(f)
    assert sessions == [] and problems == []


def test_imported_memories_are_valid_from_when_they_were_said(service: MemoryService) -> None:
    """#17: a transcript line carries its source time as `said_at`; what extraction takes
    from it is valid from then, not from the import (and shows as said then)."""
    _import(service, claude_code, CLAUDE_DIR)
    records = {m.content: m for m in service.memories.list_memories()}
    memory = records["I prefer small commits with conventional commit messages."]
    (source,) = [
        e for e in service.events.list_events(limit=1000) if e.id in memory.source_event_ids
    ]
    said = dt.datetime.fromisoformat(str(source.data["source_ts"]).replace("Z", "+00:00"))
    assert source.data["said_at"] == said.isoformat()
    assert memory.valid_from == said and memory.own_time() == said


def test_a_live_or_unreadable_source_time_is_not_a_said_at() -> None:
    now = dt.datetime(2026, 5, 1, 12, 0, tzinfo=dt.UTC)
    assert said_before("2026-05-01T11:00:00Z", now) == "2026-05-01T11:00:00+00:00"
    assert said_before("2026-05-01T11:59:30Z", now) is None  # seconds old: live
    assert said_before("2026-05-01T12:00:05Z", now) is None  # a clock a little ahead
    assert said_before("2026-05-01T11:00:00", now) is None  # no zone
    assert said_before("yesterday", now) is None
    assert said_before(None, now) is None


def test_cli_without_scope_uses_the_login_user(data_dir: Path) -> None:
    """#43: `import claude-code PATH` as the README shows it (no --scope) works; the events
    belong to the login user, each session to its project folder."""
    import getpass

    result = CliRunner().invoke(
        import_group,
        ["claude-code", str(CLAUDE_DIR), "--no-extract"],
        obj=Context(data_dir, True),
        env={"MEMORY_CENTER_PASSPHRASE": PASSPHRASE},
    )
    assert result.exit_code == 0, result.output
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        events = svc.events.list_events(session="claude-code:7f3c2a10-4b8e-4d2a-9c61-0e5b8f2d9a11")
        assert events and all(e.scope.get("user") == getpass.getuser() for e in events)
        assert all(e.scope.get("project") for e in events)
