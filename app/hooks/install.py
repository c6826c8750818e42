"""Write Memory Center's hook entries into a Claude Code settings file, and take them out.

Claude Code reads hooks from `~/.claude/settings.json` (the user's) and
`<project>/.claude/settings.json` (a project's), shaped as

    {"hooks": {"<Event>": [{"matcher": "...", "hooks": [{"type": "command",
                                                        "command": "...", "timeout": 5}]}]}}

Our commands end with a marker comment, so `uninstall` removes exactly our entries and
leaves everything else (other hooks, permissions, any key) as it was. Installing twice
replaces our entries instead of adding more.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.hooks.client import hook_program
from core import InvalidInputError

MARKER = "# memory-center-hook"
CLIENT = Path(__file__).resolve().with_name("client.py")
EVENTS: dict[str, tuple[str | None, int]] = {
    "SessionStart": (None, 15),
    "UserPromptSubmit": (None, 5),
    "PostToolUse": ("*", 30),
    "PreCompact": (None, 60),
    "Stop": (None, 60),
    "SessionEnd": (None, 60),
}
"""Event -> (tool matcher, timeout in seconds). Injecting hooks get short timeouts."""


@dataclass(frozen=True)
class InstallReport:
    """What install/uninstall did to one settings file."""

    path: str
    events: tuple[str, ...]
    removed: int


def settings_path(project: Path | None, user: bool) -> Path:
    """The settings file: the user's (honouring $CLAUDE_CONFIG_DIR) or a project's."""
    if user:
        base = os.environ.get("CLAUDE_CONFIG_DIR")
        return (Path(base).expanduser() if base else Path.home() / ".claude") / "settings.json"
    return (project or Path.cwd()) / ".claude" / "settings.json"


def hook_command(data_dir: Path, agent: str = "claude-code") -> str:
    """The command line Claude Code runs for every event (quoted for its shell).

    From a checkout or a wheel: Python with `-S` (skip site-packages at start: the client
    needs only the standard library; the in-process fallback loads them when it needs the
    engine) and the client script. From the desktop build (`sys.frozen`), `sys.executable`
    is the `memory-center` program itself, which takes no Python options (#42: it exited 2,
    a blocking error for Claude Code): the bundle's `memory-center-hook`, the same client
    frozen alone (the main program takes 0.2-0.4 s to start before the client runs), else
    the program's own `hook` verb, which runs the same client.
    """
    if getattr(sys, "frozen", False):
        hook = hook_program()
        if hook is not None and os.access(hook, os.X_OK):
            parts = [hook, agent, "--data-dir", str(data_dir)]
        else:
            parts = [sys.executable, "--data-dir", str(data_dir), "hook", agent]
    else:
        parts = [sys.executable, "-S", str(CLIENT), agent, "--data-dir", str(data_dir)]
    return " ".join(shlex.quote(p) for p in parts) + f" {MARKER}"


def install(path: Path, data_dir: Path) -> InstallReport:
    """Add (or refresh) our entries; everything else in the file stays.

    Raises:
        InvalidInputError: the file exists but is not a JSON object with a valid `hooks`.
    """
    doc = _load(path)
    removed = _strip(doc)
    hooks = doc.setdefault("hooks", {})
    command = hook_command(data_dir)
    for event, (matcher, timeout) in EVENTS.items():
        group: dict[str, Any] = {"matcher": matcher} if matcher is not None else {}
        group["hooks"] = [{"type": "command", "command": command, "timeout": timeout}]
        hooks.setdefault(event, []).append(group)
    _save(path, doc)
    return InstallReport(str(path), tuple(EVENTS), removed)


def uninstall(path: Path) -> InstallReport:
    """Remove exactly our entries (a missing file is left missing).

    Raises:
        InvalidInputError: the file is not a JSON object with a valid `hooks`.
    """
    if not path.exists():
        return InstallReport(str(path), (), 0)
    doc = _load(path)
    removed = _strip(doc)
    if removed:
        _save(path, doc)
    return InstallReport(str(path), (), removed)


def installed(path: Path) -> list[str]:
    """The events our hook is installed for in this file."""
    if not path.exists():
        return []
    hooks = _load(path).get("hooks", {})
    return [
        event
        for event, groups in hooks.items()
        if any(_ours(h) for g in groups if isinstance(g, dict) for h in g.get("hooks", []))
    ]


def _ours(handler: object) -> bool:
    return isinstance(handler, dict) and MARKER in str(handler.get("command", ""))


def _strip(doc: dict[str, Any]) -> int:
    """Remove our handlers, then groups and events they leave empty; count removals."""
    hooks = doc.get("hooks")
    if not isinstance(hooks, dict):
        return 0
    removed = 0
    for event in list(hooks):
        groups = hooks[event]
        kept_groups = []
        for group in groups:
            handlers = group.get("hooks", []) if isinstance(group, dict) else []
            mine = [h for h in handlers if _ours(h)]
            removed += len(mine)
            if mine and len(mine) == len(handlers):
                continue
            if mine:
                group = {**group, "hooks": [h for h in handlers if not _ours(h)]}
            kept_groups.append(group)
        if kept_groups:
            hooks[event] = kept_groups
        else:
            del hooks[event]
    if not hooks:
        del doc["hooks"]
    return removed


def _load(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        doc = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InvalidInputError(str(path), f"not a readable JSON settings file: {exc}") from None
    if not isinstance(doc, dict):
        raise InvalidInputError(str(path), "settings must be a JSON object")
    hooks = doc.get("hooks", {})
    if not isinstance(hooks, dict) or not all(isinstance(v, list) for v in hooks.values()):
        raise InvalidInputError(f"{path}: hooks", "must be an object of event -> list")
    return doc


def _save(path: Path, doc: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".memory-center.tmp")
    tmp.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
