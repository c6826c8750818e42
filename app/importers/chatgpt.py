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
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.importers.base import Problem, SourceEvent, SourceSession, clip, iso_from_epoch

SESSION_PREFIX = "chatgpt:"
WEB_CONTENT = frozenset({"tether_quote", "tether_browsing_display"})
SKIPPED_CONTENT = frozenset({"thoughts", "reasoning_recap", "user_editable_context"})
WEB_TOOLS = ("browser", "web", "web.run", "web.search")


def parse(path: Path) -> tuple[list[SourceSession], list[Problem]]:
    """Every conversation in the export, and the ones (or nodes) that were skipped."""
    file = path / "conversations.json" if path.is_dir() else path
    problems: list[Problem] = []
    try:
        doc = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return [], [Problem(str(file), "file", f"cannot read: {exc}")]
    except json.JSONDecodeError as exc:
        return [], [Problem(str(file), f"line {exc.lineno}", f"not valid JSON ({exc.msg})")]
    if not isinstance(doc, list):
        return [], [Problem(str(file), "file", "expected a JSON list of conversations")]
    sessions = []
    for index, conv in enumerate(doc):
        where = f"conversation {index}"
        try:
            sess = _conversation(conv, str(file), where, problems)
        except ValueError as exc:
            problems.append(Problem(str(file), where, str(exc)))
            continue
        if sess.events:
            sessions.append(sess)
    return sessions, problems


def _conversation(conv: object, file: str, where: str, problems: list[Problem]) -> SourceSession:
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
        try:
            event = _event(mapping[node_id], title)
        except ValueError as exc:
            problems.append(Problem(file, f"{where} ({cid}) node {node_id}", str(exc)))
            continue
        if event is not None:
            sess.events.append(event)
    return sess


def branch(mapping: dict[str, Any], current: object) -> list[str]:
    """Node ids from the root to `current` (or along the newest children), in order."""
    if isinstance(current, str) and current in mapping:
        path: list[str] = []
        node: str | None = current
        while node is not None and node in mapping and node not in path:
            path.append(node)
            parent = mapping[node].get("parent") if isinstance(mapping[node], dict) else None
            node = parent if isinstance(parent, str) else None
        return path[::-1]
    return _newest_path(mapping)


def _newest_path(mapping: dict[str, Any]) -> list[str]:
    roots = [
        k for k, n in mapping.items() if isinstance(n, dict) and n.get("parent") not in mapping
    ]
    path: list[str] = []
    node = roots[0] if roots else None
    while node is not None and node not in path:
        path.append(node)
        children = [c for c in mapping[node].get("children") or [] if c in mapping]
        node = children[-1] if children else None
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
    ctype = content.get("content_type")
    if role == "system" or ctype in SKIPPED_CONTENT or hidden:
        return None
    text, cut = clip(_text(content))
    if not text.strip():
        return None
    actor, trust, kind, source = _classify(msg, str(role), str(ctype))
    extra: dict[str, Any] = {**cut, "content_type": ctype}
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
        return "\n".join(p for p in parts if isinstance(p, str))
    return str(content.get("text") or "")
