"""Session files written by the real programs (tests/app/fixtures/real, sources in its
README), imported and watched line by line: who said each line, how far it is trusted,
and what was kept or skipped (#42; R1, R2, R11, R30). Zero lines misattributed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from app.capture import follow
from app.capture.watch import AGENTS, Watcher
from app.evaluation.sessions import split_turns
from app.importers import chatgpt, claude_code, codex
from app.importers.base import ImportReport, write_sessions
from core import MemoryService, Scope

REAL = Path(__file__).parent / "fixtures" / "real"
ALICE = Scope.of({"user": "alice"})
Row = tuple[str, str, str, str]
"""(source id, actor, trust, kind) of one recorded event."""


def _import(service: MemoryService, module: Any, path: Path) -> ImportReport:
    sessions, problems = module.parse(path)
    report = ImportReport(problems=list(problems))
    return write_sessions(service, sessions, ALICE, report, importer="test")


def _rows(service: MemoryService, session: str) -> list[Row]:
    return [
        (str(e.data["source_id"]), e.actor.value, e.trust.value, e.kind.value)
        for e in service.events.list_events(session=session, limit=1000)
    ]


# --- Claude Code -------------------------------------------------------------------------------

CLAUDE_REAL = [
    ("e6781268-0d8b-4756-a547-6b89a7d7193e#0", "user", "user", "message"),
    ("4a6cda39-a1c1-404b-91c3-8ed94d28e177#0", "assistant", "assistant", "message"),
]
REWOUND = [
    ("u1#0", "user", "user", "message"),
    ("a1#0", "assistant", "assistant", "message"),
    ("b2u#0", "user", "user", "message"),
    ("b2a#0", "assistant", "assistant", "message"),
    ("b2u2#0", "user", "user", "message"),
    ("b2a2#0", "assistant", "assistant", "message"),
    ("cs#0", "system", "assistant", "message"),  # the compaction summary: not the user
    ("p1u#0", "user", "user", "message"),
    ("p1a#0", "assistant", "assistant", "message"),
]
REMINDER = [
    ("sr_001#0", "user", "user", "message"),
    ("sr_001#0.1", "system", "untrusted", "message"),  # the <system-reminder> inside it
    ("sr_001#0.2", "user", "user", "message"),
    ("sr_002#0", "assistant", "assistant", "message"),
    ("sr_003#0", "system", "untrusted", "message"),
]


def test_a_real_claude_code_session_line_by_line(service: MemoryService) -> None:
    report = _import(service, claude_code, REAL / "claude_code")
    # queue-operation and last-prompt lines are bookkeeping: left out without a problem.
    assert report.problems == []
    assert _rows(service, "claude-code:06090cb1-3e64-433a-bc7e-a621c0f596d2") == CLAUDE_REAL


def test_only_the_final_branch_of_a_rewound_session_is_imported(service: MemoryService) -> None:
    report = _import(service, claude_code, REAL / "claude_code_format")
    assert _rows(service, "claude-code:s1") == REWOUND
    texts = [e.text for e in service.events.list_events(session="claude-code:s1")]
    assert "First attempt" not in texts and "First answer" not in texts
    (skipped,) = [p for p in report.problems if p.where == "session s1"]
    assert "2 line(s) on rewound branches left out" in skipped.message


def test_the_compaction_summary_is_never_a_statement_of_the_user(service: MemoryService) -> None:
    _import(service, claude_code, REAL / "claude_code_format")
    (summary,) = [
        e
        for e in service.events.list_events(session="claude-code:s1")
        if e.text.startswith("This session is being continued")
    ]
    assert (summary.actor.value, summary.trust.value) == ("system", "assistant")
    assert summary.data["claude_code"] == "compact_summary"
    for memory in service.memories.list_memories():
        assert summary.id not in memory.source_event_ids


def test_system_reminders_are_cut_out_of_what_the_user_typed(service: MemoryService) -> None:
    _import(service, claude_code, REAL / "claude_code_format")
    assert _rows(service, "claude-code:system_reminder") == REMINDER
    events = service.events.list_events(session="claude-code:system_reminder")
    user_text = " ".join(e.text for e in events if e.actor.value == "user")
    assert "cwd changed" not in user_text and "Please review the change." in user_text


def _line(uuid: str, parent: str | None, content: Any, kind: str = "user", **more: Any) -> str:
    line = {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/alice/shop",
        "sessionId": "cmd-session",
        "version": "2.1.12",
        "type": kind,
        "message": {"role": kind, "content": content},
        "uuid": uuid,
        "timestamp": "2026-02-10T09:00:00.000Z",
        **more,
    }
    return json.dumps(line)


COMMAND = (
    "<command-name>/model</command-name>\n<command-message>model</command-message>\n"
    "<command-args>opus</command-args>"
)


def test_slash_commands_and_their_output_are_not_user_speech(
    service: MemoryService, tmp_path: Path
) -> None:
    path = tmp_path / "cmd-session.jsonl"
    lines = [
        _line("c1", None, COMMAND),
        _line(
            "c2",
            "c1",
            "<local-command-stdout>Set model to opus (claude-opus-4)</local-command-stdout>",
        ),
        _line("c3", "c2", [{"type": "text", "text": "We always deploy from the release branch."}]),
        _line(
            "c4",
            "c3",
            [{"type": "text", "text": None}, {"type": "text", "text": "ok"}],
            "assistant",
        ),
        _line("c5", "c4", "[Request interrupted by user]"),
        _line("c6", "c5", "<bash-input>git status</bash-input>"),
        _line("c7", "c6", "<bash-stdout>On branch main</bash-stdout><bash-stderr></bash-stderr>"),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = _import(service, claude_code, path)
    assert report.problems == []
    assert _rows(service, "claude-code:cmd-session") == [
        ("c1#0", "system", "tool_verified", "message"),  # the command the user ran, verbatim
        ("c2#0", "tool", "untrusted", "tool_result"),  # its output
        ("c3#0", "user", "user", "message"),
        ("c4#1", "assistant", "assistant", "message"),  # a null text is nothing, not "None"
        ("c5#0", "system", "tool_verified", "message"),
        ("c6#0", "system", "tool_verified", "message"),
        ("c7#0", "tool", "untrusted", "tool_result"),
    ]
    texts = [e.text for e in service.events.list_events(session="claude-code:cmd-session")]
    assert COMMAND in texts and "None" not in texts
    statements = [m.content for m in service.memories.list_memories()]
    assert not any("opus" in s or "On branch" in s for s in statements)


def test_eval_ab_counts_prompts_written_as_lists_of_blocks() -> None:
    lines = [
        _line("p1", None, [{"type": "text", "text": "Add a health check"}]),
        _line("a1", "p1", [{"type": "text", "text": "Done."}], "assistant"),
        _line("p2", "a1", COMMAND),
        _line("p3", "p2", "Now the readiness probe"),
        _line("p4", "p3", [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]),
        _line("p5", "p4", "This session is being continued ...", isCompactSummary=True),
    ]
    assert [t.prompt for t in split_turns(lines)] == [
        "Add a health check",
        "Now the readiness probe",
    ]


# --- Codex -------------------------------------------------------------------------------------

CODEX_077 = "codex:019b64e5-57fa-7463-b644-fba7e456f905"
CODEX_0135 = "codex:019e9625-802f-7e91-840a-cfe88d14117a"


def test_real_codex_rollouts_line_by_line(service: MemoryService) -> None:
    report = _import(service, codex, REAL / "codex")
    assert report.problems == []
    # 0.77: session_meta, the AGENTS.md message, the environment context, turn contexts and
    # event_msg echoes are left out; only the prompt is the user's.
    assert _rows(service, CODEX_077) == [(f"{CODEX_077[6:]}@1647", "user", "user", "message")]
    text = service.events.list_events(session=CODEX_077)[0].text
    assert text.startswith("can you analyse the MD files")
    assert _rows(service, CODEX_0135) == [
        (f"{CODEX_0135[6:]}@1850", "user", "user", "message"),
        (f"{CODEX_0135[6:]}@2370", "assistant", "assistant", "message"),
    ]
    (event,) = service.events.list_events(session=CODEX_077)
    assert dict(event.scope.items_) == {"user": "alice", "project": "homelab-migration"}


def _rollout(folder: Path, items: list[dict[str, Any]]) -> Path:
    path = (
        folder
        / "2026"
        / "01"
        / "05"
        / "rollout-2026-01-05T10-00-00-0199aaaa-0000-7000-8000-000000000001.jsonl"
    )
    path.parent.mkdir(parents=True)
    meta = {"type": "session_meta", "payload": {"id": "p-1", "cwd": "/home/alice/shop"}}
    lines = [meta] + [
        {"timestamp": "2026-01-05T10:00:01Z", "type": "response_item", "payload": p} for p in items
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


PATCH = "*** Begin Patch\n*** Update File: app.py\n@@\n-x = 1\n+x = 2\n*** End Patch"


def test_codex_apply_patch_calls_are_tool_events(service: MemoryService, tmp_path: Path) -> None:
    _rollout(
        tmp_path,
        [
            {
                "type": "message",
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": "# AGENTS.md instructions for /home/alice/shop\n\n"
                        "<INSTRUCTIONS>Use pytest.</INSTRUCTIONS>",
                    }
                ],
            },
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": None}]},
            {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": "call_1",
                "name": "apply_patch",
                "input": PATCH,
            },
            {
                "type": "custom_tool_call_output",
                "call_id": "call_1",
                "output": json.dumps(
                    {
                        "output": "Success. Updated the following files:\nM app.py\n",
                        "metadata": {"exit_code": 0},
                    }
                ),
            },
        ],
    )
    report = _import(service, codex, tmp_path)
    assert report.problems == []
    events = service.events.list_events(session="codex:p-1")
    assert [(e.actor.value, e.trust.value, e.kind.value) for e in events] == [
        ("assistant", "assistant", "tool_call"),
        ("tool", "untrusted", "tool_result"),
    ]
    assert events[0].text == f"apply_patch({PATCH})"
    assert events[1].text.startswith("Success. Updated") and events[1].data["tool"] == "apply_patch"


# --- watch, on the same files ------------------------------------------------------------------


def test_watch_records_the_real_files_as_import_does(
    service: MemoryService, tmp_path: Path
) -> None:
    claude_dir = tmp_path / "projects"
    shutil.copytree(REAL / "claude_code", claude_dir / "-tmp-workspace")
    shutil.copytree(REAL / "claude_code_format", claude_dir / "-tmp")
    codex_dir = tmp_path / "sessions"
    shutil.copytree(REAL / "codex", codex_dir)
    for name, folder in (("claude-code", claude_dir), ("codex", codex_dir)):
        totals = Watcher(service, AGENTS[name], folder, scope=ALICE).run_once()
        assert totals.problems == []
    assert _rows(service, "claude-code:06090cb1-3e64-433a-bc7e-a621c0f596d2") == CLAUDE_REAL
    assert _rows(service, "claude-code:system_reminder") == REMINDER
    # Live capture records a branch as it is written (it cannot know the user will rewind);
    # every line still has its right actor and trust.
    rewound = _rows(service, "claude-code:s1")
    assert [r for r in rewound if r[0] in {x[0] for x in REWOUND}] == REWOUND
    assert sorted(set(rewound) - set(REWOUND)) == [
        ("b1a#0", "assistant", "assistant", "message"),
        ("b1u#0", "user", "user", "message"),
    ]
    assert len(_rows(service, CODEX_077)) == 1 and len(_rows(service, CODEX_0135)) == 2


# --- copies of another session: forks and older resumes ---------------------------------------

PARENT = "06090cb1-3e64-433a-bc7e-a621c0f596d2"
FORK = "7c2e9a10-5b1d-4f3e-9a44-0d6f1e2b3c4d"
FORK_OWN = ("9d0c6a55-2f4e-4b8a-8c1d-3e5f7a9b0c2d#0", "user", "user", "message")


def _fork_of_real_session(folder: Path, shape: str) -> Path:
    """A session continued from the real one, in the shape each writer leaves it.

    "fork": Claude Code 2.1 (`--fork-session`, `/branch`) copies the parent's lines under the
    fork's `sessionId`, each naming its origin in `forkedFrom` (uuid kept); "remapped": the
    same with new uuids (the SDK's `forkSession`); "resume": older versions' `--resume`
    copies them under the parent's own `sessionId` into a file named after the new session.
    Then the new session's own prompt."""
    source = (REAL / "claude_code" / f"{PARENT}.jsonl").read_text(encoding="utf-8")
    lines: list[dict[str, Any]] = []
    renamed: dict[str, str] = {}
    for raw in source.splitlines():
        obj = json.loads(raw)
        if obj.get("type") not in ("user", "assistant"):
            continue
        if shape != "resume":
            obj["forkedFrom"] = {"sessionId": PARENT, "messageUuid": obj["uuid"]}
            obj["sessionId"] = FORK
        if shape == "remapped":
            renamed[obj["uuid"]] = "f" + obj["uuid"][1:]
            obj["uuid"] = renamed[obj["uuid"]]
            obj["parentUuid"] = renamed.get(obj["parentUuid"], obj["parentUuid"])
        lines.append(obj)
    own = {
        **{k: v for k, v in lines[0].items() if k not in ("forkedFrom", "promptId")},
        "parentUuid": lines[-1]["uuid"],
        "uuid": FORK_OWN[0].split("#")[0],
        "sessionId": FORK,
        "timestamp": "2026-06-05T05:10:00.000Z",
        "message": {"role": "user", "content": "Now run the same check on staging"},
    }
    path = folder / f"{FORK}.jsonl"
    path.write_text("".join(json.dumps(o) + "\n" for o in [*lines, own]), encoding="utf-8")
    return path


@pytest.mark.parametrize("shape", ["fork", "remapped", "resume"])
def test_a_continued_session_records_the_copied_lines_once(
    service: MemoryService, tmp_path: Path, shape: str
) -> None:
    shutil.copy(REAL / "claude_code" / f"{PARENT}.jsonl", tmp_path)
    _fork_of_real_session(tmp_path, shape)
    report = _import(service, claude_code, tmp_path)
    assert report.problems == []
    # The copied lines are the parent's, recorded once; the new session holds only its own.
    assert _rows(service, f"claude-code:{PARENT}") == CLAUDE_REAL
    assert _rows(service, f"claude-code:{FORK}") == [FORK_OWN]
    again = _import(service, claude_code, tmp_path)
    assert again.events_written == 0


@pytest.mark.parametrize("shape", ["fork", "remapped", "resume"])
def test_a_continued_session_read_first_keeps_its_parents_lines(
    service: MemoryService, tmp_path: Path, shape: str
) -> None:
    """Claude Code deletes old transcripts: the copy may be all that is left of the parent.
    Its lines are recorded under the parent's session, and the parent's file, read after,
    adds nothing."""
    fork_dir, parent_dir = tmp_path / "fork", tmp_path / "parent"
    fork_dir.mkdir()
    parent_dir.mkdir()
    _fork_of_real_session(fork_dir, shape)
    shutil.copy(REAL / "claude_code" / f"{PARENT}.jsonl", parent_dir)
    _import(service, claude_code, fork_dir)
    assert _rows(service, f"claude-code:{PARENT}") == CLAUDE_REAL
    assert _import(service, claude_code, parent_dir).events_written == 0
    assert _rows(service, f"claude-code:{FORK}") == [FORK_OWN]


@pytest.mark.parametrize("shape", ["fork", "remapped", "resume"])
def test_watch_records_a_continued_session_once_however_it_is_read(
    service: MemoryService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    """Live capture, the parent first, then its fork read a line at a time: every read after
    the first asks the store again about the copied lines."""
    folder = tmp_path / "projects" / "-tmp-workspace"
    folder.mkdir(parents=True)
    shutil.copy(REAL / "claude_code" / f"{PARENT}.jsonl", folder)
    watcher = Watcher(service, AGENTS["claude-code"], tmp_path / "projects", scope=ALICE)
    assert watcher.run_once().problems == []
    fork = _fork_of_real_session(folder, shape)
    longest = max(len(line) for line in fork.read_bytes().splitlines())
    monkeypatch.setattr(follow, "MAX_CHUNK", longest + 1)  # one line per read
    assert watcher.run_once().problems == []
    assert _rows(service, f"claude-code:{PARENT}") == CLAUDE_REAL
    assert _rows(service, f"claude-code:{FORK}") == [FORK_OWN]


# --- ChatGPT voice -----------------------------------------------------------------------------


def _voice_export(path: Path) -> Path:
    def node(nid: str, parent: str | None, child: str | None, message: Any) -> dict[str, Any]:
        return {
            "id": nid,
            "parent": parent,
            "children": [child] if child else [],
            "message": message,
        }

    def said(mid: str, role: str, parts: list[Any]) -> dict[str, Any]:
        return {
            "id": mid,
            "author": {"role": role, "name": None, "metadata": {}},
            "content": {"content_type": "multimodal_text", "parts": parts},
            "create_time": 1761740527.68,
            "metadata": {"voice_mode_message": True},
            "recipient": "all",
        }

    audio = {
        "content_type": "audio_asset_pointer",
        "asset_pointer": "sediment://file_1",
        "format": "wav",
        "metadata": {"start": 0, "end": 1.88},
    }
    video = {
        "content_type": "real_time_user_audio_video_asset_pointer",
        "audio_asset_pointer": audio,
        "frames_asset_pointers": [],
    }
    mapping = {
        "root": node("root", None, "u1", None),
        "u1": node(
            "u1",
            "root",
            "a1",
            said(
                "u1",
                "user",
                [
                    {
                        "content_type": "audio_transcription",
                        "text": "I drive a 2006 Mustang with the V6.",
                        "direction": "in",
                        "decoding_id": None,
                    },
                    video,
                ],
            ),
        ),
        "a1": node(
            "a1",
            "u1",
            "u2",
            said(
                "a1",
                "assistant",
                [
                    {
                        "content_type": "audio_transcription",
                        "text": "Then the knock sensor sits under the intake.",
                        "direction": "out",
                        "decoding_id": None,
                    },
                    audio,
                ],
            ),
        ),
        "u2": node("u2", "a1", None, said("u2", "user", [video])),
    }
    doc = [{"id": "voice-1", "title": "Knock sensor", "mapping": mapping, "current_node": "u2"}]
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_chatgpt_voice_messages_import_their_transcription(
    service: MemoryService, tmp_path: Path
) -> None:
    report = _import(service, chatgpt, _voice_export(tmp_path / "conversations.json"))
    events = service.events.list_events(session="chatgpt:voice-1")
    assert [(e.actor.value, e.trust.value, e.text[:24]) for e in events] == [
        ("user", "user", "I drive a 2006 Mustang w"),
        ("assistant", "assistant", "Then the knock sensor si"),
    ]
    assert all(e.data["voice"] is True for e in events)
    (skipped,) = report.problems
    assert "u2" in skipped.where and "without a transcription; skipped" in skipped.message


def test_a_fork_mark_naming_no_other_session_speaks_for_no_other_line(
    service: MemoryService, tmp_path: Path
) -> None:
    """A line whose `forkedFrom` names its own session, or none, is its own line: its
    `messageUuid` cannot make it stand for (and hide) another line of the session."""
    lines = [
        {
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "sessionId": "s9",
            "message": {"role": "user", "content": "first"},
        },
        {
            "type": "user",
            "uuid": "u2",
            "parentUuid": "u1",
            "sessionId": "s9",
            "forkedFrom": {"sessionId": "s9", "messageUuid": "u1"},
            "message": {"role": "user", "content": "second"},
        },
        {
            "type": "user",
            "uuid": "u3",
            "parentUuid": "u2",
            "sessionId": "s9",
            "forkedFrom": {"messageUuid": "u1"},
            "message": {"role": "user", "content": "third"},
        },
        {
            "type": "user",
            "uuid": "u4",
            "parentUuid": "u3",
            "sessionId": "s9",
            "forkedFrom": "s1",
            "message": {"role": "user", "content": "fourth"},
        },
    ]
    path = tmp_path / "s9.jsonl"
    path.write_text("".join(json.dumps(o) + "\n" for o in lines), encoding="utf-8")
    assert _import(service, claude_code, path).problems == []
    assert [r[0] for r in _rows(service, "claude-code:s9")] == ["u1#0", "u2#0", "u3#0", "u4#0"]


def test_a_session_name_too_long_is_named_in_one_short_line(
    service: MemoryService, tmp_path: Path
) -> None:
    line = {
        "type": "user",
        "uuid": "a1",
        "parentUuid": None,
        "sessionId": "s9",
        "forkedFrom": {"sessionId": "x" * 100_000, "messageUuid": "a1"},
        "message": {"role": "user", "content": "a copy naming a huge parent"},
    }
    path = tmp_path / "s9.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    (problem,) = _import(service, claude_code, path).problems
    assert "the limit is 200" in problem.message and len(problem.where) < 200
