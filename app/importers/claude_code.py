"""Import Claude Code session transcripts (`~/.claude/projects/<project>/<session>.jsonl`).

Each line is one JSON object. Lines of type `user` and `assistant` carry `message.content`,
a string or a list of content blocks (`text`, `tool_use`, `tool_result`, `thinking`, `image`),
plus `uuid`, `parentUuid`, `sessionId`, `timestamp` and `cwd`. Other line types (`summary`,
`system`, `file-history-snapshot`, `queue-operation`, `progress`) and meta lines (`isMeta`)
are not conversation and are skipped silently; `thinking` blocks (private reasoning) and
images are not imported.

Not everything on a `user` line was said by the user (#42):

- the compaction summary (`isCompactSummary`, "This session is being continued ...") was
  written by the model: it is recorded as the system, trust `assistant`, and is never a
  statement of the user;
- Claude Code wraps what it adds in tags: `<system-reminder>` (context it injects),
  `<command-name>`/`<command-message>`/`<command-args>` and `<bash-input>` (a slash or shell
  command the user ran), `<local-command-stdout>`/`<local-command-stderr>` and
  `<bash-stdout>`/`<bash-stderr>` (that command's output), `<local-command-caveat>`,
  `<user-prompt-submit-hook>`, `<task-notification>` and the IDE extensions'
  `<ide_opened_file>` / `<ide_selection>`. Each tagged part is its own event
  (`data.claude_code` names the tag's class); only the text outside the tags is the user's;
- a line marked `origin.kind` other than "human" or `promptSource` other than "typed", and
  "Operation stopped by hook: ..." (a blocked prompt), were written in the user's place;
- a prompt typed while the agent works is written only as an `attachment` line
  (`queued_command`): it is a user line.

Branches: a rewound conversation (the user went back and typed again) leaves the abandoned
lines in the file, with the new ones pointing by `parentUuid` to an earlier line. Only the
path from the session's last line back to its root is imported (through compaction
boundaries by `logicalParentUuid`, or to the line before a boundary whose logical parent is
in no line); the lines of abandoned branches are counted in one "skipped" line per session.
Parallel tool calls (a line per call, each result pointing to its call) are not branches.
Sub-agent lines (`isSidechain`) are kept and flagged.

Copies of another session: `--resume` in older versions started a new file that begins with
the resumed session's lines, under that session's `sessionId`; a fork (`--fork-session`,
`/branch`) starts a new file with the parent's lines under the fork's `sessionId`, each
naming where it came from (`forkedFrom.sessionId` and `.messageUuid`). Either way a copied
line is recorded as its own session's line, with its original uuid in the source id: it is
recorded once, by whichever file is read first, and never a second time under the session
that only inherited it (`home_session`, `source_uuid`).

Trust (documented in docs/mcp.md, "Trust rules"): text the user typed is `user`; the
assistant's text and tool calls are `assistant`; every tool result and command output is
`untrusted`, because the importer cannot re-run the tool and a tool's output (a web page, a
file, a command's output) is outside content (R2, R11).
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path, PurePath
from typing import Any

from app.importers.base import Problem, SourceEvent, SourceSession, clip, read_source

SESSION_PREFIX = "claude-code:"
TOOL_SOURCES = {
    "WebFetch": "web_page",
    "WebSearch": "search_result",
    "Bash": "terminal",
    "Read": "file",
    "Grep": "file",
    "Glob": "file",
    "LS": "file",
}
# Tag -> (class recorded in data.claude_code, actor, trust, kind, source).
MARKUP: dict[str, tuple[str, str, str, str, str | None]] = {
    "system-reminder": ("system_reminder", "system", "untrusted", "message", "system"),
    "command-name": ("command", "system", "tool_verified", "message", "system"),
    "command-message": ("command", "system", "tool_verified", "message", "system"),
    "command-args": ("command", "system", "tool_verified", "message", "system"),
    "command-contents": ("command", "system", "tool_verified", "message", "system"),
    "bash-input": ("command", "system", "tool_verified", "message", "terminal"),
    "local-command-stdout": ("command_output", "tool", "untrusted", "tool_result", "terminal"),
    "local-command-stderr": ("command_output", "tool", "untrusted", "tool_result", "terminal"),
    "bash-stdout": ("command_output", "tool", "untrusted", "tool_result", "terminal"),
    "bash-stderr": ("command_output", "tool", "untrusted", "tool_result", "terminal"),
    "local-command-caveat": ("caveat", "system", "untrusted", "message", "system"),
    "user-prompt-submit-hook": ("hook_output", "system", "untrusted", "message", "system"),
    "task-notification": ("task_notification", "system", "untrusted", "message", "system"),
    # What the IDE extensions add before the prompt: the file open, the selection.
    "ide_opened_file": ("ide_context", "system", "untrusted", "message", "system"),
    "ide_selection": ("ide_context", "system", "untrusted", "message", "system"),
    "ide_diagnostics": ("ide_context", "system", "untrusted", "message", "system"),
}
_OPENING = re.compile(r"<(" + "|".join(re.escape(t) for t in MARKUP) + r")\b[^>]*>")
_CLOSING = re.compile(r"</(" + "|".join(re.escape(t) for t in MARKUP) + r")>")
# Lines Claude Code writes itself in the user's place when a turn is cut short.
INTERRUPTED = re.compile(r"^\[Request interrupted by user[^\]]*\]$")
# What Claude Code writes on a user line when a UserPromptSubmit hook blocked the prompt.
HOOK_STOPPED = re.compile(r"^Operation stopped by hook:")
# What Claude Code appends after a `<task-notification>` (where the task's output is).
NOTIFICATION_TAIL = re.compile(
    r"^(?:Full transcript available at:|Read the output file to retrieve the result:)"
)


def transcript_files(path: Path) -> list[Path]:
    """The `.jsonl` files of a directory (recursively, sorted), or the one file given."""
    if path.is_dir():
        return sorted(p for p in path.rglob("*.jsonl") if p.is_file())
    return [path]


def parse(path: Path) -> tuple[list[SourceSession], list[Problem]]:
    """Every session in `path` (a file or a directory), and the lines that were skipped."""
    sessions: dict[str, SourceSession] = {}
    problems: list[Problem] = []
    for file in transcript_files(path):
        _parse_file(file, sessions, problems)
    return [s for s in sessions.values() if s.events], problems


@dataclass
class _Line:
    """One conversation line of a file, parsed, before its events are made."""

    number: int
    entry: dict[str, Any]


def _parse_file(file: Path, sessions: dict[str, SourceSession], problems: list[Problem]) -> None:
    try:
        # Bytes split on newlines only: one undecodable line is reported, not the whole file.
        lines = read_source(file).split(b"\n")
    except ValueError as exc:
        problems.append(Problem(str(file), "file", str(exc)))
        return
    links = _Links()
    by_session: dict[str, list[_Line]] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            obj = _object(raw)
            links.note(obj)
            entry = _conversation(obj)
        except (ValueError, TypeError, RecursionError) as exc:
            problems.append(Problem(str(file), f"line {number}", _reason(exc)))
            continue
        if entry is not None:
            sid = home_session(entry, file)
            by_session.setdefault(sid, []).append(_Line(number, entry))
    parents = links.resolved()
    for sid, found in by_session.items():
        kept = final_branch(found, parents)
        if len(kept) < len(found):
            dropped = len(found) - len(kept)
            problems.append(
                Problem(
                    str(file),
                    f"session {sid}",
                    f"{dropped} line(s) on rewound branches left out (only the final branch "
                    "is imported)",
                )
            )
        _session_events(file, sid, kept, sessions, problems)


def _session_events(
    file: Path,
    sid: str,
    lines: list[_Line],
    sessions: dict[str, SourceSession],
    problems: list[Problem],
) -> None:
    tools: dict[str, str] = {}
    for line in lines:
        try:
            events = list(line_events(line.entry, tools))
        except (ValueError, TypeError, RecursionError) as exc:
            # One bad line is reported and skipped; the rest of its session still imports.
            problems.append(Problem(str(file), f"line {line.number}", _reason(exc)))
            continue
        if not events:
            continue
        sess = sessions.setdefault(sid, SourceSession(SESSION_PREFIX + sid, origin=str(file)))
        cwd = line.entry.get("cwd")
        if isinstance(cwd, str) and cwd and "project" not in sess.scope_extra:
            sess.scope_extra["project"] = PurePath(cwd).name or cwd
        sess.events.extend(replace(e, where=f"line {line.number}") for e in events)


# Claude Code names a session file by its session id; a line under another id was copied in.
_SESSION_FILE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)


def home_session(entry: dict[str, Any], file: Path) -> str:
    """The session a conversation line belongs to: the one a fork copied it from
    (`forkedFrom.sessionId`), else its `sessionId`, else the file's name."""
    fork = entry.get("forkedFrom")
    if isinstance(fork, dict) and isinstance(fork.get("sessionId"), str) and fork["sessionId"]:
        return str(fork["sessionId"])
    return str(entry.get("sessionId") or file.stem)


def copied_in(entry: dict[str, Any], file: Path) -> bool:
    """Whether the line was copied into `file` from another session's file (a fork, or an
    older `--resume`): it may already be recorded under its own session."""
    session = home_session(entry, file)
    if isinstance(entry.get("forkedFrom"), dict):
        return session != entry.get("sessionId")
    return bool(_SESSION_FILE.match(file.stem)) and session != file.stem


def source_uuid(entry: dict[str, Any]) -> str:
    """The uuid a line's source ids are made of: the original line's for a fork's copy (a fork
    may give its copies new uuids), so both record as one."""
    fork = entry.get("forkedFrom")
    if not isinstance(fork, dict):
        return str(entry["uuid"])
    parent, original = fork.get("sessionId"), fork.get("messageUuid")
    # Only a copy from another session speaks for another line.
    copied = isinstance(parent, str) and parent != "" and parent != entry.get("sessionId")
    if copied and isinstance(original, str) and original:
        return original
    return str(entry["uuid"])


class _Links:
    """Each line's parent (any line type: branches run through system lines too)."""

    def __init__(self) -> None:
        self.parents: dict[str, str | None] = {}
        self._before: dict[str, str] = {}  # a compaction boundary -> the line before it
        self._last: str | None = None

    def note(self, obj: dict[str, Any]) -> None:
        uuid = obj.get("uuid")
        if not isinstance(uuid, str):
            return
        parent = obj.get("parentUuid")
        if parent is None:  # a compaction boundary starts a new chain continuing the old one
            parent = obj.get("logicalParentUuid")
            if isinstance(parent, str) and self._last is not None:
                self._before[uuid] = self._last
        self.parents[uuid] = parent if isinstance(parent, str) else None
        if not obj.get("isSidechain"):
            self._last = uuid

    def resolved(self) -> dict[str, str | None]:
        """The parents, with a boundary whose logical parent is in no line (a known writer
        fault) joined to the line written before it: the conversation it compacted."""
        for boundary, before in self._before.items():
            if self.parents.get(boundary) not in self.parents:
                self.parents[boundary] = before
        return self.parents


def final_branch(lines: list[_Line], parents: dict[str, str | None]) -> list[_Line]:
    """The lines on the path from the session's last main-thread line back to its root.

    Sub-agent lines and lines that name no parent at all (older versions, hand-written
    files) cannot be placed on a branch and are kept."""
    tree = [ln for ln in lines if "parentUuid" in ln.entry and not ln.entry.get("isSidechain")]
    if not tree:
        return lines
    path: set[str] = set()
    node: str | None = tree[-1].entry["uuid"]
    while node is not None and node not in path:
        path.add(node)
        node = parents.get(node)
    # Parallel tool calls leave side chains that were never abandoned: each call of one reply
    # is a line of its own, chained to the one before, and each result points to its call.
    # A line off the path is kept when its parent is kept and it continues that reply (the
    # same message id) or is only tool results; a prompt or a new reply off the path starts
    # a rewound branch.
    by_uuid = {ln.entry["uuid"]: ln.entry for ln in lines}
    for ln in lines:  # file order: a parent is written before its children
        parent = parents.get(ln.entry["uuid"])
        if parent in path and _continues(ln.entry, by_uuid.get(parent)):
            path.add(ln.entry["uuid"])
    return [
        ln
        for ln in lines
        if ln.entry["uuid"] in path or ln.entry.get("isSidechain") or "parentUuid" not in ln.entry
    ]


def _continues(entry: dict[str, Any], parent: dict[str, Any] | None) -> bool:
    content = entry["message"]["content"]
    if entry["type"] == "user":
        return (
            isinstance(content, list)
            and bool(content)
            and all(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
        )
    mine = entry["message"].get("id")
    return parent is not None and mine is not None and parent["message"].get("id") == mine


def _reason(exc: Exception) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deeply to read"
    if isinstance(exc, ValueError):
        return str(exc)
    return f"malformed line ({type(exc).__name__}: {exc})"


def _object(raw: bytes) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not valid UTF-8 (byte {exc.start}: {exc.reason})") from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg})") from None
    if not isinstance(obj, dict):
        raise ValueError("not a JSON object")
    return obj


def _conversation(entry: dict[str, Any]) -> dict[str, Any] | None:
    """The line if it is a conversation line; None for other line types."""
    entry = _queued(entry)
    if entry.get("type") not in ("user", "assistant") or entry.get("isMeta"):
        return None
    if not isinstance(entry.get("uuid"), str):
        raise ValueError(f"a {entry['type']} line without a uuid")
    message = entry.get("message")
    if not isinstance(message, dict) or not isinstance(message.get("content"), (str, list)):
        raise ValueError("message.content must be a string or a list of content blocks")
    return entry


def _queued(entry: dict[str, Any]) -> dict[str, Any]:
    """A prompt the user typed while the agent was busy is written only as an attachment line
    (`queued_command`, mode "prompt"); it is a user line of its own. Other queued commands
    (a task's notification) are Claude Code's."""
    found = entry.get("attachment")
    if entry.get("type") != "attachment" or not isinstance(found, dict):
        return entry
    prompt = found.get("prompt")
    if found.get("type") != "queued_command" or not isinstance(prompt, str):
        return entry
    mode = found.get("commandMode")
    line = {**entry, "type": "user", "message": {"role": "user", "content": prompt}}
    if mode not in (None, "prompt"):
        line["origin"] = {"kind": str(mode)}
    return line


def entry_of(raw: bytes) -> dict[str, Any] | None:
    """The line's object if it is a conversation line; None for other line types.

    Raises:
        ValueError: the line is not a JSON object, or a malformed conversation line.
    """
    return _conversation(_object(raw))


def line_events(entry: dict[str, Any], tools: dict[str, str]) -> Iterator[SourceEvent]:
    """The events of one conversation line, in order (`tools` maps tool-use ids to names)."""
    content = entry["message"]["content"]
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    for index, block in enumerate(blocks):
        if not isinstance(block, dict):
            raise ValueError(f"content block {index} is not an object")
        yield from _block(entry, block, f"{source_uuid(entry)}#{index}", tools)


def _block(
    entry: dict[str, Any], block: dict[str, Any], source_id: str, tools: dict[str, str]
) -> Iterator[SourceEvent]:
    kind = block.get("type")
    ts = entry.get("timestamp") if isinstance(entry.get("timestamp"), str) else None
    extra: dict[str, Any] = {"sidechain": True} if entry.get("isSidechain") else {}
    if kind == "text":
        # A text that is not a string (null) has nothing to import: never the word "None".
        raw = block.get("text")
        text = raw if isinstance(raw, str) else ""
        if entry["type"] == "assistant":
            yield from _text_event(source_id, ("assistant", "assistant"), text, ts, extra)
        elif entry.get("isCompactSummary"):
            summary = {**extra, "claude_code": "compact_summary"}
            yield from _text_event(source_id, ("system", "assistant"), text, ts, summary, "system")
        else:
            yield from _user_text(entry, source_id, text, ts, extra)
        return
    if kind == "tool_use":
        name = str(block.get("name", "tool"))
        tools[str(block.get("id", ""))] = name
        args = json.dumps(block.get("input", {}), ensure_ascii=False, sort_keys=True)
        text, cut = clip(f"{name}({args})")
        yield SourceEvent(
            source_id,
            "assistant",
            "assistant",
            text,
            "tool_call",
            None,
            ts,
            {**extra, **cut, "tool": name},
        )
        return
    if kind == "tool_result":
        name = tools.get(str(block.get("tool_use_id", "")), "")
        body, cut = clip(_result_text(block.get("content")))
        if not body.strip():
            return
        extra = {**extra, **cut, "tool": name or None, "is_error": bool(block.get("is_error"))}
        yield SourceEvent(
            source_id, "tool", "untrusted", body, "tool_result", TOOL_SOURCES.get(name), ts, extra
        )
    # thinking, redacted_thinking, image: not imported


def typed_by_user(entry: dict[str, Any]) -> bool:
    """Whether a user line's text was typed by the user. Newer versions say so: `origin.kind`
    ("human", or "task-notification" ...) and `promptSource` ("typed" or "system")."""
    origin = entry.get("origin")
    if isinstance(origin, dict) and origin.get("kind") not in (None, "human"):
        return False
    source = entry.get("promptSource")
    return source is None or source == "typed"


def _user_text(
    entry: dict[str, Any], source_id: str, text: str, ts: str | None, extra: dict[str, Any]
) -> Iterator[SourceEvent]:
    """A user text block cut into what the user typed and what Claude Code added (tags)."""
    parts = split_markup(text)
    typed = typed_by_user(entry)
    for number, (tag, part) in enumerate(parts):
        sid = source_id if number == 0 else f"{source_id}.{number}"
        if tag is None and not typed:
            # Written in the user's place by Claude Code itself (a notification, a queued
            # system prompt): recorded as the system's, never as something the user said.
            data = {**extra, "claude_code": "not_typed"}
            yield from _text_event(sid, ("system", "untrusted"), part, ts, data, "system")
            continue
        if tag is None:
            yield from _text_event(sid, ("user", "user"), part, ts, extra)
            continue
        label, actor, trust, kind, source = MARKUP.get(tag, _INTERRUPT)
        body, cut = clip(part)
        if body.strip():
            data = {**extra, **cut, "claude_code": label}
            yield SourceEvent(sid, actor, trust, body, kind, source, ts, data)


_INTERRUPT = ("interrupted", "system", "tool_verified", "message", "system")


def split_markup(text: str) -> list[tuple[str | None, str]]:
    """(tag, text) pieces of a user text: tag None for what the user typed, else the tag of
    a part Claude Code added (tagged parts keep their tags, so the record is verbatim). A
    run of command tags (name, message, args) stays one piece."""
    if INTERRUPTED.match(text.strip()):
        return [("interrupted", text)]
    if HOOK_STOPPED.match(text.strip()):
        return [("user-prompt-submit-hook", text)]
    pieces: list[tuple[str | None, str]] = []
    at = 0
    for tag, start, end in _tagged(text):
        between = text[at:start]
        whole = text[start:end]
        same_run = (
            pieces
            and not between.strip()
            and pieces[-1][0] is not None
            and MARKUP.get(pieces[-1][0] or "", ("",))[0] == MARKUP[tag][0]
        )
        if same_run:
            pieces[-1] = (pieces[-1][0], pieces[-1][1] + between + whole)
        else:
            if between.strip():
                pieces.append((None, between.strip()))
            pieces.append((tag, whole))
        at = end
    rest = text[at:]
    if pieces and pieces[-1][0] == "task-notification" and NOTIFICATION_TAIL.match(rest.strip()):
        pieces[-1] = (pieces[-1][0], pieces[-1][1] + rest)  # Claude Code's, not the user's
        rest = ""
    if rest.strip() or not pieces:
        pieces.append((None, rest.strip() if pieces else rest))
    return pieces


def _tagged(text: str) -> Iterator[tuple[str, int, int]]:
    """(tag, start, end) of each tagged part, left to right: an opening tag and the first
    closing of the same tag after it; an opening never closed is plain text. The closings
    are found once: a regex pairing them rescanned the rest of the text for every opening
    never closed (20,000 of them in one line took 30 s and held the hook daemon)."""
    closings: dict[str, list[tuple[int, int]]] = {}
    for found in _CLOSING.finditer(text):
        closings.setdefault(found.group(1), []).append(found.span())
    at = 0
    for found in _OPENING.finditer(text):
        if found.start() < at:
            continue
        tag = found.group(1)
        ends = closings.get(tag, [])
        k = bisect.bisect_left(ends, (found.end(), -1))
        if k == len(ends):
            continue
        at = ends[k][1]
        yield tag, found.start(), at


def _text_event(
    source_id: str,
    who: tuple[str, str],
    raw: str,
    ts: str | None,
    extra: dict[str, Any],
    source: str = "chat",
) -> Iterator[SourceEvent]:
    text, cut = clip(raw)
    if text.strip():
        yield SourceEvent(source_id, who[0], who[1], text, "message", source, ts, {**extra, **cut})


def _result_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""
