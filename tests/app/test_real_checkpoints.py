"""Sessions of Claude Code and Codex committed by another project (tests/app/fixtures/real/
checkpoints, sources in the README there), imported line by line (#42; R1, R2, R11).

Each file was found by someone who had not read the importers; each shows a shape the first
corpus did not have, and each test failed before: prompts typed while the agent worked
were lost, parallel tool calls and everything before a broken compaction were taken for
rewound branches, and texts the programs write in the user's place were the user's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.importers import claude_code, codex
from app.importers.base import ImportReport, SourceEvent, write_sessions
from core import MemoryService, Scope

ROOT = Path(__file__).parent / "fixtures" / "real" / "checkpoints"
CLAUDE = ROOT / "claude_code"
CODEX = ROOT / "codex"
ALICE = Scope.of({"user": "alice"})


def _events(module: Any, path: Path) -> tuple[list[SourceEvent], list[str]]:
    sessions, problems = module.parse(path)
    return [e for s in sessions for e in s.events], [p.message for p in problems]


def _said(events: list[SourceEvent], start: str) -> list[tuple[str, str]]:
    return [(e.actor, e.trust) for e in events if e.text.lstrip().startswith(start)]


@pytest.mark.parametrize(
    "path",
    sorted(CLAUDE.glob("*.jsonl")) + sorted(CODEX.glob("*.jsonl")),
    ids=lambda p: p.name,
)
def test_nothing_the_programs_wrote_is_recorded_as_the_user(path: Path) -> None:
    module = claude_code if path.parent == CLAUDE else codex
    events, _ = _events(module, path)
    assert events
    for event in events:
        if event.actor == "user":
            assert event.trust == "user"
            # Every tag the programs wrap their own texts in opens the text.
            assert not event.text.lstrip().startswith("<"), (event.where, event.text[:80])
            assert not event.text.startswith(("Operation stopped by hook", "Full transcript"))


def test_a_prompt_typed_while_the_agent_worked_is_the_users() -> None:
    events, _ = _events(claude_code, CLAUDE / "gitsync_5d4b8f06380e_0.jsonl")
    # Written only as an attachment line (`queued_command`): it used to be lost, unreported.
    assert _said(events, "can you also check/search if this would work with GitHub?") == [
        ("user", "user")
    ]
    assert _said(events, "<task-notification>") == [("system", "untrusted")]


def test_parallel_tool_calls_are_not_rewound_branches() -> None:
    events, problems = _events(claude_code, CLAUDE / "cli_7e72a8d8fdb8_0.jsonl")
    assert not [p for p in problems if "rewound" in p]
    calls = [e for e in events if e.kind == "tool_call" and e.extra.get("tool") == "Task"]
    assert len(calls) == 4  # before: two of the four calls, and three results, were dropped
    results = [e for e in events if e.kind == "tool_result"]
    assert len(results) >= 4
    # What Claude Code appends after a task's notification is the notification's.
    (note,) = [e for e in events if e.extra.get("claude_code") == "task_notification"]
    assert "Full transcript available at:" in note.text and note.actor == "system"


def test_a_compaction_whose_logical_parent_is_missing_keeps_what_came_before() -> None:
    events, problems = _events(claude_code, CLAUDE / "cli_5b5a73f2998f_0.jsonl")
    assert not [p for p in problems if "rewound" in p]
    # Before: everything before the boundary was dropped as a rewound branch.
    assert _said(events, "brainstorm:") == [("user", "user")]
    assert [e.extra.get("claude_code") for e in events if e.actor == "system"] == [
        "compact_summary"
    ]


def test_a_blocked_prompts_hook_message_and_the_ides_context_are_not_the_user() -> None:
    events, _ = _events(claude_code, CLAUDE / "cli_00c9e2351016_3.jsonl")
    assert _said(events, "Operation stopped by hook:") == [("system", "untrusted")]
    assert _said(events, "fix tests") == [("user", "user"), ("user", "user")]
    events, _ = _events(claude_code, CLAUDE / "cli_c9883595c929_0.jsonl")
    assert _said(events, "<ide_opened_file>") == [("system", "untrusted")]
    assert _said(events, "create me a .github/CODEOWNERS") == [("user", "user")]


def test_codex_texts_in_the_users_role_that_codex_wrote() -> None:
    events, _ = _events(codex, CODEX / "gitsync_002f876fb8bb_0.jsonl")
    assert _said(events, "<turn_aborted>") == [("system", "untrusted")]
    events, _ = _events(codex, CODEX / "gitsync_32adf4e023ef_1.jsonl")
    assert _said(events, "<subagent_notification>") == [("tool", "untrusted")] * 2
    events, _ = _events(codex, CODEX / "sem_bbef1c2a76a9_0.jsonl")
    assert _said(events, "<user_action>") == [("system", "untrusted")]
    # Injected blocks are left out block by block, not only when they open the message.
    events, _ = _events(codex, CODEX / "sem_a3b944375aa8_0.jsonl")
    assert [e.text[:29] for e in events if e.actor == "user"] == ["Do an adversarial review of h"]
    assert not [e for e in events if "<recommended_plugins>" in e.text]


def test_codex_desktops_wrapper_around_the_request_is_not_the_users() -> None:
    events, _ = _events(codex, CODEX / "gitsync_4fb9775f25f8_1.jsonl")
    assert [e.text for e in events if e.actor == "user"] == [
        "can you add this image to the top of the repo please  then create a branch and make a "
        "commit"
    ]
    assert _said(events, "# Files mentioned by the user:") == [("system", "untrusted")]


def test_a_codex_sub_agents_messages_were_written_by_the_agent_that_started_it() -> None:
    events, _ = _events(codex, CODEX / "gitsync_edee273e9e3b_2.jsonl")
    assert not [e for e in events if e.actor == "user"]
    spawned = _said(events, "Review docs/rewrite-issue-list.md")
    assert spawned == [("assistant", "assistant")]


def test_a_codex_fork_does_not_record_its_parents_history_again(
    service: MemoryService, tmp_path: Path
) -> None:
    """A sub-agent spawned with its parent's context (`forked_from_id`) starts its rollout
    with a copy of the parent's history. Recorded with the fork, the parent's request, its
    answers and its calls were in the store twice, the second time in a session that never
    said them. The copy ends where the first turn begun after the fork was made starts."""
    parent, fork = CODEX / "gitsync_32adf4e023ef_1.jsonl", CODEX / "gitsync_edee273e9e3b_2.jsonl"
    events, problems = _events(codex, fork)
    assert events[0].text.startswith("Review docs/rewrite-issue-list.md")  # its own task
    assert not _said(events, "can you get yourself an overview over the repo")
    assert not [e for e in events if e.text.startswith("spawn_agent(")]
    (note,) = [p for p in problems if "copied from session" in p]
    assert "codex:019d7d08-46c9-7f73-affe-4e6ca9852d56" in note
    report = ImportReport()
    for path in (parent, fork):
        sessions, _ = codex.parse(path)
        write_sessions(service, sessions, ALICE, report, importer="test")
    everything = service.events.list_events(limit=10_000)
    asked = [e for e in everything if "can you get yourself an overview" in e.text]
    assert [e.session_id for e in asked] == ["codex:019d7d08-46c9-7f73-affe-4e6ca9852d56"]
    # Ids that are not UUIDv7 tell nothing about when a turn began: every line is kept.
    plain = tmp_path / "fork.jsonl"
    plain.write_text(
        fork.read_text(encoding="utf-8").replace("019d7e2f-0041-7310", "019d7e2f-0041-4310"),
        encoding="utf-8",
    )
    kept, _ = _events(codex, plain)
    assert _said(kept, "can you get yourself an overview over the repo")


def test_suggestions_from_these_files_never_quote_the_programs(service: MemoryService) -> None:
    for module, folder in ((claude_code, CLAUDE), (codex, CODEX)):
        for path in sorted(folder.glob("*.jsonl")):
            sessions, problems = module.parse(path)
            report = ImportReport(problems=list(problems))
            write_sessions(service, sessions, ALICE, report, importer="test")
    suggested = [m.content for m in service.memories.list_memories()]
    assert suggested  # the files do hold statements worth suggesting
    for text in suggested:
        assert not text.lstrip().startswith("<"), text[:80]
        assert (
            "The user opened the file" not in text and "interrupted the previous turn" not in text
        )


def test_tags_never_closed_are_read_in_one_pass() -> None:
    """A line of 20,000 openings never closed took 30 s (the pairing regex rescanned the
    rest of the line for each) and held the hook daemon; the pieces are as before."""
    text = "<system-reminder>" * 20_000 + " the user's words"
    assert claude_code.split_markup(text) == [(None, text)]
    mixed = "<system-reminder> a <system-reminder>x</system-reminder> hi <bash-stdout>open"
    assert claude_code.split_markup(mixed) == [
        ("system-reminder", "<system-reminder> a <system-reminder>x</system-reminder>"),
        (None, "hi <bash-stdout>open"),
    ]
