"""Recorded sessions for replay: a Claude Code transcript plus an evaluation sidecar.

`<name>.jsonl` is the transcript as Claude Code writes it; `<name>.eval.json` says what the
store held before the session (`memories`, each with a `key`), what the user did between
turns (`actions`: delete a memory, report an observation that contradicts one, correct a
memory the agent adopted wrongly), and per prompt which memories the next turn used
(`turns[i].used`, keys). The transcript is cut into turns at each typed prompt; the hook
payloads Claude Code would send for them are rebuilt from the lines.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.importers.claude_code import split_markup
from core import InvalidInputError


@dataclass(frozen=True)
class ToolUse:
    """One tool call of a turn and its recorded result."""

    id: str
    name: str
    input: dict[str, Any]
    response: object


@dataclass
class Turn:
    """A prompt, the transcript lines it produced, its tool calls, the memories it used."""

    prompt: str
    lines: list[str] = field(default_factory=list)
    tools: list[ToolUse] = field(default_factory=list)
    used: tuple[str, ...] = ()


@dataclass
class RecordedSession:
    """One recorded session ready for replay."""

    name: str
    session_id: str
    project: str
    user: str
    memories: list[dict[str, Any]]
    actions: list[dict[str, Any]]
    turns: list[Turn]


def load_dir(folder: Path) -> list[RecordedSession]:
    """Every `<name>.jsonl` with a `<name>.eval.json` beside it, by name.

    Raises:
        InvalidInputError: the folder has none, or a sidecar is malformed (named).
    """
    found = sorted(p for p in folder.glob("*.jsonl") if p.with_suffix(".eval.json").exists())
    if not found:
        raise InvalidInputError(
            str(folder), "no recorded sessions (<name>.jsonl with <name>.eval.json)"
        )
    return [load(p) for p in found]


def load(transcript: Path) -> RecordedSession:
    """One recorded session. Raises InvalidInputError naming the file and field."""
    side_path = transcript.with_suffix(".eval.json")
    try:
        side = json.loads(side_path.read_text(encoding="utf-8"))
        raw = transcript.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InvalidInputError(str(side_path), f"cannot read: {exc}") from None
    if not isinstance(side, dict):
        raise InvalidInputError(str(side_path), "must be a JSON object")
    turns = split_turns(raw)
    labels = side.get("turns", [])
    if not isinstance(labels, list) or len(labels) != len(turns):
        raise InvalidInputError(
            f"{side_path}: turns", f"needs one entry per prompt ({len(turns)} prompts)"
        )
    for turn, label in zip(turns, labels, strict=True):
        turn.used = tuple(str(k) for k in (label or {}).get("used", []))
    _check_references(side, side_path, len(turns))
    return RecordedSession(
        name=transcript.stem,
        session_id=_text(side, "session_id", side_path),
        project=_text(side, "project", side_path),
        user=_text(side, "user", side_path),
        memories=list(side.get("memories", [])),
        actions=list(side.get("actions", [])),
        turns=turns,
    )


def _check_references(side: dict[str, Any], path: Path, turns: int) -> None:
    """Every key an action or label names is a seeded memory; turns are in range."""
    memories = side.get("memories", [])
    if not isinstance(memories, list) or not all(
        isinstance(m, dict) and {"key", "text", "scope"} <= set(m) for m in memories
    ):
        raise InvalidInputError(f"{path}: memories", "each needs key, text and scope")
    keys = {m["key"] for m in memories}
    for i, label in enumerate(side.get("turns", [])):
        unknown = set((label or {}).get("used", [])) - keys
        if unknown:
            raise InvalidInputError(f"{path}: turns[{i}].used", f"unknown key {sorted(unknown)[0]}")
    for i, action in enumerate(side.get("actions", [])):
        turn = action.get("after_turn") if isinstance(action, dict) else None
        if not isinstance(turn, int) or isinstance(turn, bool) or not 1 <= turn <= turns:
            raise InvalidInputError(f"{path}: actions[{i}]", f"after_turn must be 1..{turns}")
        named = action.get("delete") or (action.get("observe") or {}).get("contradicts")
        if named is not None and named not in keys:
            raise InvalidInputError(f"{path}: actions[{i}]", f"unknown memory key {named!r}")


def _text(doc: dict[str, Any], key: str, path: Path) -> str:
    value = doc.get(key)
    if not isinstance(value, str) or not value:
        raise InvalidInputError(f"{path}: {key}", "missing or not a string")
    return value


def split_turns(lines: list[str]) -> list[Turn]:
    """Cut transcript lines into turns at each prompt the user typed."""
    turns: list[Turn] = []
    pending: dict[str, tuple[str, dict[str, Any]]] = {}
    for raw in lines:
        if not raw.strip():
            continue
        entry = json.loads(raw)
        content = entry.get("message", {}).get("content") if isinstance(entry, dict) else None
        prompt = typed_prompt(entry)
        if prompt is not None:
            turns.append(Turn(prompt=prompt))
        if not turns:
            continue
        turns[-1].lines.append(raw)
        if isinstance(content, list):
            _collect_tools(entry, content, pending, turns[-1])
    return turns


def typed_prompt(entry: dict[str, Any]) -> str | None:
    """What the user typed on a transcript line, or None when the line is no prompt.

    The content may be a string or a list of blocks (#42: Claude Code writes both); tool
    results, meta lines, the compaction summary and the parts Claude Code adds (system
    reminders, command lines and their output) are not prompts."""
    if entry.get("type") != "user" or entry.get("isMeta") or entry.get("isCompactSummary"):
        return None
    content = entry.get("message", {}).get("content")
    if isinstance(content, str):
        texts = [content]
    elif isinstance(content, list) and content:
        blocks = [b for b in content if isinstance(b, dict)]
        if any(b.get("type") != "text" for b in blocks):
            return None  # tool results (and images with them) answer the assistant
        texts = [b["text"] for b in blocks if isinstance(b.get("text"), str)]
    else:
        return None
    typed = [part for text in texts for tag, part in split_markup(text) if tag is None]
    prompt = "\n".join(p for p in typed if p.strip())
    return prompt or None


def _collect_tools(
    entry: dict[str, Any],
    blocks: list[Any],
    pending: dict[str, tuple[str, dict[str, Any]]],
    turn: Turn,
) -> None:
    for block in blocks:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_use":
            pending[str(block.get("id"))] = (str(block.get("name")), block.get("input") or {})
        elif block.get("type") == "tool_result":
            tool_id = str(block.get("tool_use_id"))
            name, args = pending.pop(tool_id, ("tool", {}))
            response = entry.get("toolUseResult", block.get("content"))
            turn.tools.append(ToolUse(tool_id, name, args, response))


def hook_payloads(
    session: RecordedSession, turn: Turn, transcript: Path, cwd: Path
) -> dict[str, Any]:
    """Payloads Claude Code sends around one turn (prompt, tools, stop)."""
    common = {
        "session_id": session.session_id,
        "transcript_path": str(transcript),
        "cwd": str(cwd),
        "permission_mode": "default",
    }
    return {
        "prompt": {**common, "hook_event_name": "UserPromptSubmit", "prompt": turn.prompt},
        "tools": [
            {
                **common,
                "hook_event_name": "PostToolUse",
                "tool_name": t.name,
                "tool_input": t.input,
                "tool_response": t.response,
                "tool_use_id": t.id,
            }
            for t in turn.tools
        ],
        "stop": {**common, "hook_event_name": "Stop", "stop_hook_active": False},
    }


def lifecycle_payload(
    session: RecordedSession, event: str, transcript: Path, cwd: Path, **extra: Any
) -> dict[str, Any]:
    """A SessionStart / PreCompact / SessionEnd payload."""
    return {
        "session_id": session.session_id,
        "transcript_path": str(transcript),
        "cwd": str(cwd),
        "hook_event_name": event,
        **extra,
    }
