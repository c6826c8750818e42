"""Import Claude Code session transcripts (`~/.claude/projects/<project>/<session>.jsonl`).

Each line is one JSON object. Lines of type `user` and `assistant` carry `message.content`,
a string or a list of content blocks (`text`, `tool_use`, `tool_result`, `thinking`, `image`),
plus `uuid`, `sessionId`, `timestamp` and `cwd`. Other line types (`summary`, `system`,
`file-history-snapshot`, `queue-operation`) and meta lines (`isMeta`) are not conversation and
are skipped silently; `thinking` blocks (private reasoning) and images are not imported.

Trust (documented in docs/mcp.md, "Trust rules"): text the user typed is `user`; the
assistant's text and tool calls are `assistant`; every tool result is `untrusted`, because
the importer cannot re-run the tool and a tool's output (a web page, a file, a command's
output) is outside content (R2, R11).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path, PurePath
from typing import Any

from app.importers.base import Problem, SourceEvent, SourceSession, clip

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


def _parse_file(file: Path, sessions: dict[str, SourceSession], problems: list[Problem]) -> None:
    tools: dict[str, str] = {}
    try:
        # Bytes split on newlines only: one undecodable line is reported, not the whole file.
        lines = file.read_bytes().split(b"\n")
    except OSError as exc:
        problems.append(Problem(str(file), "file", f"cannot read: {exc}"))
        return
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            entry = _entry(raw)
            events = list(_events(entry, tools)) if entry is not None else []
        except (ValueError, TypeError, RecursionError) as exc:
            # One bad line is reported and skipped; the rest of its session still imports.
            problems.append(Problem(str(file), f"line {number}", _reason(exc)))
            continue
        events = [replace(e, where=f"line {number}") for e in events]
        if not events or entry is None:
            continue
        sid = str(entry.get("sessionId") or file.stem)
        sess = sessions.setdefault(sid, SourceSession(SESSION_PREFIX + sid, origin=str(file)))
        cwd = entry.get("cwd")
        if isinstance(cwd, str) and cwd and "project" not in sess.scope_extra:
            sess.scope_extra["project"] = PurePath(cwd).name or cwd
        sess.events.extend(events)


def _reason(exc: Exception) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deeply to read"
    if isinstance(exc, ValueError):
        return str(exc)
    return f"malformed line ({type(exc).__name__}: {exc})"


def _entry(raw: bytes) -> dict[str, Any] | None:
    """The line's object if it is a conversation line; None for other line types."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not valid UTF-8 (byte {exc.start}: {exc.reason})") from None
    try:
        entry = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg})") from None
    if not isinstance(entry, dict):
        raise ValueError("not a JSON object")
    if entry.get("type") not in ("user", "assistant") or entry.get("isMeta"):
        return None
    if not isinstance(entry.get("uuid"), str):
        raise ValueError(f"a {entry['type']} line without a uuid")
    message = entry.get("message")
    if not isinstance(message, dict) or not isinstance(message.get("content"), (str, list)):
        raise ValueError("message.content must be a string or a list of content blocks")
    return entry


def _events(entry: dict[str, Any], tools: dict[str, str]) -> Iterator[SourceEvent]:
    content = entry["message"]["content"]
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    for index, block in enumerate(blocks):
        if not isinstance(block, dict):
            raise ValueError(f"content block {index} is not an object")
        event = _block(entry, block, f"{entry['uuid']}#{index}", tools)
        if event is not None:
            yield event


def _block(
    entry: dict[str, Any], block: dict[str, Any], source_id: str, tools: dict[str, str]
) -> SourceEvent | None:
    kind = block.get("type")
    ts = entry.get("timestamp") if isinstance(entry.get("timestamp"), str) else None
    extra: dict[str, Any] = {"sidechain": True} if entry.get("isSidechain") else {}
    if kind == "text":
        role = "user" if entry["type"] == "user" else "assistant"
        return _text_event(source_id, role, str(block.get("text", "")), ts, extra)
    if kind == "tool_use":
        name = str(block.get("name", "tool"))
        tools[str(block.get("id", ""))] = name
        args = json.dumps(block.get("input", {}), ensure_ascii=False, sort_keys=True)
        text, cut = clip(f"{name}({args})")
        return SourceEvent(
            source_id,
            "assistant",
            "assistant",
            text,
            "tool_call",
            None,
            ts,
            {**extra, **cut, "tool": name},
        )
    if kind == "tool_result":
        name = tools.get(str(block.get("tool_use_id", "")), "")
        body, cut = clip(_result_text(block.get("content")))
        if not body.strip():
            return None
        extra = {**extra, **cut, "tool": name or None, "is_error": bool(block.get("is_error"))}
        return SourceEvent(
            source_id, "tool", "untrusted", body, "tool_result", TOOL_SOURCES.get(name), ts, extra
        )
    return None  # thinking, redacted_thinking, image: not imported


def _text_event(
    source_id: str, role: str, raw: str, ts: str | None, extra: dict[str, Any]
) -> SourceEvent | None:
    text, cut = clip(raw)
    if not text.strip():
        return None
    return SourceEvent(source_id, role, role, text, "message", "chat", ts, {**extra, **cut})


def _result_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        ]
        return "\n".join(str(p) for p in parts)
    return ""
