"""Import a ChatGPT data export (`conversations.json`).

The file is a JSON list of conversations. Each has an `id` (or `conversation_id`), a `title`,
a `mapping` of node id to node (`id`, `message`, `parent`, `children`) and a `current_node`:
the last message of the branch the user last saw. A message has `author.role` (user,
assistant, system, tool), `author.name` (for tools: `browser`, `python`, `web.run` ...),
`content` (`content_type` plus `parts`, `text` or `result`), `create_time` (epoch seconds) and
`recipient` (`all`, or the tool an assistant message calls).

Branches: only the path from the root to `current_node` is imported, i.e. the conversation as
the user last saw it. Regenerated answers and edited prompts the user moved away from are
left out (they are not what was said in the end). Without a usable `current_node`, the path
follows the newest child at each step.

Trust: the user's messages are `user`, the assistant's `assistant`; tool output (browsing,
code execution, plugins) and quoted web content (`tether_quote`, `tether_browsing_display`) are
`untrusted`. System messages, hidden messages, reasoning (`thoughts`, `reasoning_recap`) and
custom-instruction context (`user_editable_context`) are not imported.

Voice: a voice-mode message is `multimodal_text` whose parts are objects: the
`audio_transcription` part holds what was said (by the user, `direction: in`, or the
assistant, `out`) and is imported as the message's text (`data.voice`); the audio itself
(`audio_asset_pointer`, `real_time_user_audio_video_asset_pointer`) is not. A message made
only of media without a transcription is reported as skipped, never dropped silently.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from app.importers.base import (
    Problem,
    SourceEvent,
    SourceSession,
    clip,
    iso_from_epoch,
    read_source,
)

SESSION_PREFIX = "chatgpt:"
WEB_CONTENT = frozenset({"tether_quote", "tether_browsing_display"})
SKIPPED_CONTENT = frozenset({"thoughts", "reasoning_recap", "user_editable_context"})
WEB_TOOLS = ("browser", "web", "web.run", "web.search")


def parse(path: Path) -> tuple[list[SourceSession], list[Problem]]:
    """Every conversation in the export, and the ones (or nodes) that were skipped."""
    file = path / "conversations.json" if path.is_dir() else path
    problems: list[Problem] = []
    try:
        text = read_source(file).decode("utf-8")
    except UnicodeDecodeError as exc:
        return [], [Problem(str(file), "file", f"not valid UTF-8 (byte {exc.start})")]
    except ValueError as exc:
        return [], [Problem(str(file), "file", str(exc))]
    try:
        doc: list[Any] = _conversations(text)
    except json.JSONDecodeError as exc:
        return [], [Problem(str(file), f"line {exc.lineno}", f"not valid JSON ({exc.msg})")]
    except ValueError as exc:
        return [], [Problem(str(file), "file", str(exc))]
    sessions = []
    for index, conv in enumerate(doc):
        where = f"conversation {index}"
        try:
            sess = _conversation(conv, str(file), where, problems)
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
            # A malformed conversation is reported and skipped; the others still import.
            problems.append(Problem(str(file), where, _reason(exc)))
            continue
        if sess.events:
            sessions.append(sess)
    return sessions, problems


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValueError) and not isinstance(exc, json.JSONDecodeError):
        return str(exc)
    return f"malformed conversation ({type(exc).__name__}: {exc})"


def _conversations(text: str) -> list[Any]:
    """The export's list; a conversation nested too deeply for the JSON reader becomes a
    `_TooDeep` marker in its place, so only that one is lost."""
    try:
        doc = json.loads(text)
    except RecursionError:
        doc = [_element(part) for part in split_top_level(text)]
    if not isinstance(doc, list):
        raise ValueError("expected a JSON list of conversations")
    return doc


class _TooDeep(dict[str, Any]):
    """Stands for a conversation that could not be read: nested too deeply."""


def _element(part: str) -> Any:
    try:
        return json.loads(part)
    except RecursionError:
        return _TooDeep()


_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def split_top_level(text: str) -> list[str]:
    """The texts of the containers directly inside a top-level JSON array, found without
    recursion (strings are skipped whole, so brackets inside them do not count).

    Raises:
        ValueError: the text is not an array of containers.
    """
    parts: list[str] = []
    depth, start = 0, -1
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token[0] == '"':
            continue
        if token in "[{":
            depth += 1
            if depth == 2:
                start = match.start()
        else:
            depth -= 1
            if depth == 1:
                parts.append(text[start : match.end()])
            elif depth < 0:
                raise ValueError("unbalanced brackets")
    if depth != 0 or not text.lstrip().startswith("["):
        raise ValueError("expected a JSON list of conversations")
    return parts


def _conversation(conv: object, file: str, where: str, problems: list[Problem]) -> SourceSession:
    if isinstance(conv, _TooDeep):
        raise ValueError("nested too deeply to read")
    if not isinstance(conv, dict):
        raise ValueError("not a JSON object")
    cid = conv.get("id") or conv.get("conversation_id")
    mapping = conv.get("mapping")
    if not isinstance(cid, str) or not cid:
        raise ValueError("no conversation id")
    if not isinstance(mapping, dict) or not mapping:
        raise ValueError(f"conversation {cid} has no message mapping")
    sess = SourceSession(SESSION_PREFIX + cid, origin=file)
    title = conv.get("title") if isinstance(conv.get("title"), str) else None
    for node_id in branch(mapping, conv.get("current_node")):
        at = f"{where} ({cid}) node {node_id}"
        try:
            event = _event(mapping[node_id], title)
        except ValueError as exc:
            problems.append(Problem(file, at, str(exc)))
            continue
        if event is not None:
            sess.events.append(replace(event, where=at))
    return sess


def branch(mapping: dict[str, Any], current: object) -> list[str]:
    """Node ids from the root to `current` (or along the newest children), in order."""
    if isinstance(current, str) and current in mapping:
        path: list[str] = []
        seen: set[str] = set()
        node: str | None = current
        while node is not None and node not in seen:
            path.append(node)
            seen.add(node)
            node = _link(mapping, mapping[node], "parent")
        return path[::-1]
    return _newest_path(mapping)


def _link(mapping: dict[str, Any], entry: object, key: str) -> str | None:
    """The node id `entry[key]` names (for children: the newest), if it is in the mapping.
    Ids of the wrong type (lists, numbers, objects) count as absent."""
    value = entry.get(key) if isinstance(entry, dict) else None
    if key == "children":
        known = (
            [c for c in value if isinstance(c, str) and c in mapping]
            if isinstance(value, list)
            else []
        )
        return known[-1] if known else None
    return value if isinstance(value, str) and value in mapping else None


def _newest_path(mapping: dict[str, Any]) -> list[str]:
    roots = [
        k for k, n in mapping.items() if isinstance(n, dict) and not _link(mapping, n, "parent")
    ]
    path: list[str] = []
    seen: set[str] = set()
    node = roots[0] if roots else None
    while node is not None and node not in seen:
        path.append(node)
        seen.add(node)
        node = _link(mapping, mapping[node], "children")
    return path


def _event(node: object, title: str | None) -> SourceEvent | None:
    if not isinstance(node, dict):
        raise ValueError("node is not an object")
    msg = node.get("message")
    if msg is None:
        return None
    if not isinstance(msg, dict) or not isinstance(msg.get("author"), dict):
        raise ValueError("message without an author")
    content = msg.get("content")
    if not isinstance(content, dict):
        raise ValueError("message without content")
    meta = msg.get("metadata")
    hidden = isinstance(meta, dict) and meta.get("is_visually_hidden_from_conversation")
    role = msg["author"].get("role")
    ctype = content.get("content_type") if isinstance(content.get("content_type"), str) else None
    if role == "system" or ctype in SKIPPED_CONTENT or hidden:
        return None
    text, cut = clip(_text(content))
    if not text.strip():
        media = _media(content)
        if media and role in ("user", "assistant"):
            raise ValueError(f"{role} message holds only {media} without a transcription; skipped")
        return None
    actor, trust, kind, source = _classify(msg, str(role), str(ctype))
    extra: dict[str, Any] = {**cut, "content_type": ctype}
    if _spoken(content):
        extra["voice"] = True
    if title:
        extra["title"] = title
    sid = str(msg.get("id") or node.get("id"))
    return SourceEvent(
        sid, actor, trust, text, kind, source, iso_from_epoch(msg.get("create_time")), extra
    )


def _classify(msg: dict[str, Any], role: str, ctype: str) -> tuple[str, str, str, str | None]:
    """(actor, trust, kind, source) of one message, by the rules in the module docstring."""
    if ctype in WEB_CONTENT:
        return "tool", "untrusted", "tool_result", "web_page"
    if role == "user":
        return "user", "user", "message", "chat"
    if role == "assistant":
        calls_tool = msg.get("recipient") not in (None, "all")
        return "assistant", "assistant", "tool_call" if calls_tool else "message", "chat"
    if role == "tool":
        name = str(msg["author"].get("name") or "")
        web = name in WEB_TOOLS or name.startswith(("browser", "web"))
        return "tool", "untrusted", "tool_result", "web_page" if web else None
    raise ValueError(f"unknown author role {role!r}")


def _text(content: dict[str, Any]) -> str:
    ctype = content.get("content_type")
    if ctype == "tether_quote":
        head = " ".join(str(content.get(k) or "") for k in ("title", "url")).strip()
        return f"{head}\n{content.get('text') or ''}".strip()
    if ctype == "tether_browsing_display":
        return str(content.get("result") or content.get("summary") or "")
    parts = content.get("parts")
    if isinstance(parts, list):
        return "\n".join(t for t in (_part_text(p) for p in parts) if t)
    value = content.get("text")
    return value if isinstance(value, str) else ""


def _part_text(part: object) -> str:
    """A part's text: a string, or the transcription of a voice part (never "None")."""
    if isinstance(part, str):
        return part
    if isinstance(part, dict) and part.get("content_type") == "audio_transcription":
        text = part.get("text")
        return text if isinstance(text, str) else ""
    return ""


def _spoken(content: dict[str, Any]) -> bool:
    parts = content.get("parts")
    return isinstance(parts, list) and any(
        isinstance(p, dict) and p.get("content_type") == "audio_transcription" for p in parts
    )


def _media(content: dict[str, Any]) -> str:
    """The kinds of non-text parts of a message ("" when there are none)."""
    parts = content.get("parts")
    if not isinstance(parts, list):
        return ""
    kinds = sorted({str(p.get("content_type") or "media") for p in parts if isinstance(p, dict)})
    return ", ".join(kinds)
