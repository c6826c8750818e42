"""Who and where an agent works, from its working directory: the scope of a hook call.

The project is named by a `.memory-center.toml` in the repository (`[memory] project = ...`),
else by the git root's directory name, else by the working directory's name. The user is
$MEMORY_CENTER_USER, else the operating system's user name: never the repository's file. A
repository is content from outside (a clone of someone else's); a `user = "bob"` in it used
to put Bob's memories into the session of whoever opened it. A `user` there is ignored.

The same file can switch memory off for the repository (`opt_out = true`: nothing is
injected and nothing extracted in its sessions; events are still logged) and set the
injection budgets.

    [memory]
    project = "billing-service"
    opt_out = false
    budget_tokens = 400          # per prompt
    session_budget_tokens = 250  # at session start
    extract_each_turn = false    # also extract after every turn (Stop), not only before
                                 # compaction and at the session's end
"""

from __future__ import annotations

import getpass
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core import InvalidInputError, Scope

CONFIG_FILE = ".memory-center.toml"
USER_ENV = "MEMORY_CENTER_USER"
DEFAULT_BUDGET = 400
DEFAULT_SESSION_BUDGET = 250


@dataclass(frozen=True)
class Workspace:
    """The resolved scope and settings of one working directory."""

    scope: Scope
    root: Path | None
    opt_out: bool = False
    budget_tokens: int = DEFAULT_BUDGET
    session_budget_tokens: int = DEFAULT_SESSION_BUDGET
    extract_each_turn: bool = False
    # Said to the user once per session (Claude Code's `systemMessage`): why the session is
    # kept apart from the project its folder names (`app/hooks/places.py`).
    notice: str = ""

    @property
    def project(self) -> str:
        """The project name of the scope."""
        return self.scope.get("project", "")


def resolve(cwd: str | os.PathLike[str] | None) -> Workspace:
    """The workspace of `cwd` (a missing or unreadable directory still gets a scope).

    Raises:
        InvalidInputError: a `.memory-center.toml` exists but is not valid (named).
    """
    here = Path(cwd) if cwd else Path.cwd()
    root = _repo_root(here)
    config, config_root = _config(here)
    memory = config.get("memory", {}) if isinstance(config.get("memory"), dict) else {}
    base = config_root or root or here
    project = _name(memory.get("project"), "project") or base.name or "default"
    user = os.environ.get(USER_ENV, "").strip() or _os_user()
    return Workspace(
        scope=Scope.of({"user": user, "project": project}),
        root=config_root or root,
        opt_out=bool(memory.get("opt_out", False)),
        budget_tokens=_budget(memory.get("budget_tokens"), DEFAULT_BUDGET, "budget_tokens"),
        session_budget_tokens=_budget(
            memory.get("session_budget_tokens"), DEFAULT_SESSION_BUDGET, "session_budget_tokens"
        ),
        extract_each_turn=bool(memory.get("extract_each_turn", False)),
    )


def _repo_root(here: Path) -> Path | None:
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return None


def _config(here: Path) -> tuple[dict[str, Any], Path | None]:
    """The nearest `.memory-center.toml` at or above `here` (stopping at the git root)."""
    for folder in (here, *here.parents):
        file = folder / CONFIG_FILE
        if file.is_file():
            try:
                return tomllib.loads(file.read_text(encoding="utf-8")), folder
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
                raise InvalidInputError(str(file), f"not a valid TOML file: {exc}") from None
        if (folder / ".git").exists():
            break
    return {}, None


def _name(value: object, field: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{CONFIG_FILE}: memory.{field}", "must be a non-empty string")
    return value.strip()


def _budget(value: object, default: int, field: str) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 20_000:
        raise InvalidInputError(
            f"{CONFIG_FILE}: memory.{field}", "must be a whole number of tokens from 1 to 20000"
        )
    return value


def login_user() -> str:
    """The login name (the `user` of hooks and imports without a configured one)."""
    return _os_user()


def _os_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "user"
