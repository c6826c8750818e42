"""Codex CLI session logs, line by line (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).

Each line is a JSON object. Current logs wrap items as `{"type": "response_item",
"payload": {...}}` beside `session_meta`, `turn_context` and `event_msg` lines (the latter
repeat what the response items say and are skipped); older logs hold the items directly.
Items: `message` (role `user` or `assistant`, content blocks `input_text` / `output_text`),
`function_call` (`name`, `arguments`, `call_id`), `function_call_output` (`call_id`,
`output`), `custom_tool_call` / `custom_tool_call_output` (free-form tools such as
`apply_patch`, which edits files: `input` is the patch), `local_shell_call` (`action`),
`reasoning` (private, not imported).

Trust follows the importers' rules: the user's typed text is `user`, the assistant's text
and tool calls `assistant`, every tool output `untrusted` (it cannot be re-run here; R2,
R11). Context Codex injects as user messages (`<environment_context>`,
`<user_instructions>`, the project's "# AGENTS.md instructions for ..." message) is not
what the user said and is skipped, block by block; so are `developer` messages. What Codex
writes in the user's role (`<turn_aborted>`, `<user_action>`, `<subagent_notification>`) is
recorded as Codex's, and a sub-agent's "user" messages as the starting agent's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from app.capture.follow import Chunk
from app.importers.base import Problem, SourceEvent, clip

AGENT = "codex"
SESSION_PREFIX = "codex:"
INJECTED = (
    "<environment_context>",
    "<user_instructions>",
    "<user_shell_command>",
    "# AGENTS.md instructions for ",
    "<INSTRUCTIONS>",
    "<recommended_plugins>",
)
# What Codex writes in the user's role that the user did not type: (actor, trust, kind,
# source, class kept in data.codex).
MARKUP: dict[str, tuple[str, str, str, str | None, str]] = {
    "<turn_aborted>": ("system", "untrusted", "message", "system", "turn_aborted"),
    "<subagent_notification>": ("tool", "untrusted", "tool_result", None, "subagent_result"),
    "<user_action>": ("system", "untrusted", "message", "system", "user_action"),
}
IMAGE_TAG = re.compile(r"</?image\b[^>]*>\s*")
DESKTOP_FILES = "# Files mentioned by the user:"
DESKTOP_REQUEST = "## My request for Codex:"
DESKTOP_WRAPPER = ("system", "untrusted", "message", "system", "mentioned_files")
CALLS = ("function_call", "custom_tool_call", "local_shell_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output")
SHELL_TOOLS = frozenset({"shell", "local_shell", "exec_command", "container.exec"})


def session_files(folder: Path) -> list[Path]:
    """Rollout files under a Codex sessions directory, oldest first."""
    return sorted(p for p in folder.rglob("rollout-*.jsonl") if p.is_file())


def session_id(path: Path, state: dict[str, Any]) -> str:
    """The session id: from `session_meta`, else the uuid ending the file name."""
    found = state.get("session")
    if isinstance(found, str) and found:
        return found
    stem = path.stem
    return stem[-36:] if len(stem) >= 36 else stem


def parse_lines(path: Path, lines: list[tuple[int, str]], state: dict[str, Any]) -> Chunk:
    """Events of complete rollout lines; `state` keeps the session id and tool names."""
    chunk = Chunk()
    tools: dict[str, str] = dict(state.get("tools", {}))
    for offset, raw in lines:
        try:
            item = _item(raw, state, chunk)
            if _copied(raw, item, state, path, offset, chunk):
                continue
            where = f"{session_id(path, state)}@{offset}"
            events = _events(item, tools, where, bool(state.get("subagent"))) if item else []
        except ValueError as exc:
            chunk.problems.append(Problem(str(path), f"byte {offset}", str(exc)))
            continue
        for event in events:
            chunk.add(SESSION_PREFIX + session_id(path, state), event)
    state["tools"] = dict(list(tools.items())[-200:])
    return chunk


def _item(raw: str, state: dict[str, Any], chunk: Chunk) -> dict[str, Any] | None:
    try:
        line = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg})") from None
    if not isinstance(line, dict):
        raise ValueError("not a JSON object")
    kind = line.get("type")
    payload = line.get("payload")
    if kind in ("session_meta", "turn_context") and isinstance(payload, dict):
        if kind == "session_meta" and "session" not in state:
            state["session"] = str(payload.get("id") or "")
            # A sub-agent's rollout (spawned or a review): its "user" messages were written
            # by the agent that started it, and a fork copies the parent's history in.
            source = payload.get("source")
            state["subagent"] = isinstance(source, dict) and "subagent" in source
            parent = payload.get("forked_from_id")
            if isinstance(parent, str) and parent and _made_at(state["session"]) is not None:
                state["copy_of"] = parent  # what follows is the parent's, until a turn of ours
                state["copied"] = 0
        if isinstance(payload.get("cwd"), str) and chunk.cwd is None:
            chunk.cwd = payload["cwd"]  # for the scope only; never kept in the cursor
        return None
    if kind == "response_item" and isinstance(payload, dict):
        return {**payload, "_ts": line.get("timestamp")}
    if kind in ("message", *CALLS, *OUTPUTS):
        return line
    return None  # event_msg, turn_context, reasoning, state records


def _copied(
    raw: str,
    item: dict[str, Any] | None,
    state: dict[str, Any],
    path: Path,
    offset: int,
    chunk: Chunk,
) -> bool:
    """True for a line of the history a fork copied from its parent (`forked_from_id`).

    Codex writes a forked rollout (`/fork`, a sub-agent spawned with the parent's context)
    as its own `session_meta`, then the parent's history line by line (the parent's meta,
    turns and items, each stamped again at the moment of the fork), then the fork's own
    turns. Those lines are the parent's session, recorded with it when its own rollout is
    imported; recorded here too, every request, call and output of the parent appeared
    twice, the second time in a session that never said it. Turn ids are UUIDv7, so a
    turn's id tells when it began: the first turn begun after this session was made is the
    fork's own, and copying ends there. Without UUIDv7 ids nothing is taken for a copy."""
    if "copy_of" not in state:
        return False
    if item is None:  # a meta, turn or event line: does a turn of this session begin?
        began = _turn_began(raw)
        if began is not None and began >= (_made_at(state["session"]) or 0):
            parent, copied = state.pop("copy_of"), state.pop("copied", 0)
            if copied:
                why = (
                    f"{copied} items before this line are the history this fork copied from "
                    f"session codex:{parent}; they belong to that session and are not "
                    "recorded again here"
                )
                chunk.problems.append(Problem(str(path), f"byte {offset}", why))
        return False
    state["copied"] = int(state.get("copied", 0)) + 1
    return True


def _turn_began(raw: str) -> int | None:
    """When the turn a `turn_context` or `task_started` line opens began (its UUIDv7 id)."""
    if '"turn_id"' not in raw:
        return None
    line = json.loads(raw)
    payload = line.get("payload") if isinstance(line, dict) else None
    if not isinstance(payload, dict) or not (
        line.get("type") == "turn_context" or payload.get("type") == "task_started"
    ):
        return None
    turn = payload.get("turn_id")
    return _made_at(turn) if isinstance(turn, str) else None


def _made_at(ident: str) -> int | None:
    """The Unix milliseconds a UUIDv7 was made at; None for any other id."""
    digits = ident.replace("-", "")
    if len(digits) != 32 or digits[12] != "7":
        return None
    try:
        return int(digits[:12], 16)
    except ValueError:
        return None


def _events(
    item: dict[str, Any], tools: dict[str, str], source_id: str, subagent: bool
) -> list[SourceEvent]:
    if item.get("type") == "message" and item.get("role") == "user":
        return _user_message(item, source_id, subagent)
    event = _event(item, tools, source_id)
    return [event] if event is not None else []


def _user_message(item: dict[str, Any], source_id: str, subagent: bool) -> list[SourceEvent]:
    """A user-role message, block by block: what Codex injected is left out, what it wrote
    in the user's place (`MARKUP`) is recorded as its own, the rest is the user's (in a
    sub-agent's rollout: the starting agent's)."""
    ts = item.get("_ts") if isinstance(item.get("_ts"), str) else None
    typed: list[str] = []
    written: list[tuple[tuple[str, str, str, str | None, str], str]] = []
    for text in _block_texts(item.get("content")):
        start = text.lstrip()
        if start.startswith(INJECTED) or IMAGE_TAG.fullmatch(start):
            continue  # the tags around an attached image hold no text
        head, marker, request = start.partition(DESKTOP_REQUEST)
        if marker and head.startswith(DESKTOP_FILES):
            # Codex Desktop wraps the request in the list of files attached to it.
            written.append((DESKTOP_WRAPPER, head.rstrip()))
            text = request.strip()
        tag = next((t for t in MARKUP if start.startswith(t)), None)
        if tag is None:
            typed.append(text)
        else:
            written.append((MARKUP[tag], text))
    out = []
    if any(t.strip() for t in typed):
        body, cut = clip("\n".join(typed))
        who = "assistant" if subagent else "user"
        data = {**cut, "codex": "subagent_prompt"} if subagent else cut
        out.append(SourceEvent(source_id, who, who, body, "message", "chat", ts, data))
    for (actor, trust, kind, source, label), text in written:
        body, cut = clip(text)
        sid = f"{source_id}.{len(out)}" if out else source_id
        out.append(SourceEvent(sid, actor, trust, body, kind, source, ts, {**cut, "codex": label}))
    return out


def _event(item: dict[str, Any], tools: dict[str, str], source_id: str) -> SourceEvent | None:
    kind = item.get("type")
    ts = item.get("_ts") if isinstance(item.get("_ts"), str) else None
    if kind == "message":
        role = item.get("role")
        text = _blocks_text(item.get("content"))
        if role != "assistant" or not text.strip():
            return None
        body, cut = clip(text)
        return SourceEvent(source_id, role, role, body, "message", "chat", ts, cut)
    if kind in CALLS:
        name = str(item.get("name") or ("shell" if kind == "local_shell_call" else "tool"))
        call_id = item.get("call_id") or item.get("id")
        tools[str(call_id or "")] = name
        body, cut = clip(f"{name}({_call_input(item)})")
        extra = {**cut, "tool": name, "tool_use_id": call_id}
        if kind != "function_call":
            extra["codex_item"] = kind
        return SourceEvent(source_id, "assistant", "assistant", body, "tool_call", None, ts, extra)
    if kind in OUTPUTS:
        name = tools.get(str(item.get("call_id") or ""), "")
        body, cut = clip(_output_text(item.get("output")))
        if not body.strip():
            return None
        source = "terminal" if name in SHELL_TOOLS else None
        extra = {**cut, "tool": name or None, "tool_use_id": item.get("call_id")}
        if kind != "function_call_output":
            extra["codex_item"] = kind
        return SourceEvent(source_id, "tool", "untrusted", body, "tool_result", source, ts, extra)
    return None


def _call_input(item: dict[str, Any]) -> str:
    """What a call was given: JSON arguments, a custom tool's free text, a shell action."""
    if item.get("type") == "local_shell_call":
        action = item.get("action")
        return json.dumps(action, ensure_ascii=False) if action is not None else ""
    value = item.get("arguments") if item.get("type") == "function_call" else item.get("input")
    if isinstance(value, str):
        return value
    return "" if value is None else json.dumps(value, ensure_ascii=False)


def _blocks_text(content: object) -> str:
    return "\n".join(_block_texts(content))


def _block_texts(content: object) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    parts = [
        b.get("text")
        for b in content
        if isinstance(b, dict) and b.get("type") in ("input_text", "output_text", "text")
    ]
    return [p for p in parts if isinstance(p, str) and p]


def _output_text(output: object) -> str:
    """A function call's output: Codex nests `{"output": ..., "metadata": ...}` as a string."""
    if isinstance(output, str):
        try:
            inner = json.loads(output)
        except ValueError:
            return output
        if isinstance(inner, dict) and isinstance(inner.get("output"), str):
            return str(inner["output"])
        return output
    if isinstance(output, dict) and isinstance(output.get("output"), str):
        return str(output["output"])
    if isinstance(output, list):  # content items: [{"type": "input_text", "text": ...}]
        text = _blocks_text(output)
        if text:
            return text
    return "" if output is None else json.dumps(output, ensure_ascii=False)
