"""The MCP server's configuration: a scope, a session, a budget and a trust cap, from a
TOML/JSON file and the command line (flags win key by key)."""

from __future__ import annotations

import datetime as dt
import json
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core import InvalidInputError, Scope
from core.model.jsonsafe import check_tree
from core.model.validate import identifier

DEFAULT_BUDGET = 800


@dataclass(frozen=True)
class ServerSettings:
    """How one server process is configured.

    Attributes:
        data_dir: the store directory.
        scope: the default (and widest) scope of every call; empty means every call fails.
        session: the session every event of this server is written to.
        budget_tokens: default injection budget of `get_context`.
        user_trust: the most a `record_event(role="user")` may claim (`user` or `assistant`).
    """

    data_dir: Path
    scope: Scope
    session: str
    budget_tokens: int = DEFAULT_BUDGET
    user_trust: str = "user"


def load_config(path: Path) -> dict[str, Any]:
    """Read a TOML or JSON server config (`scope`, `session`, `budget_tokens`, `user_trust`).

    Raises:
        InvalidInputError: the file is unreadable, malformed, or has unknown keys.
    """
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidInputError("config", f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise InvalidInputError("config", f"{path} is not UTF-8 text (byte {exc.start})") from None
    try:
        doc = json.loads(raw) if path.suffix.lower() == ".json" else tomllib.loads(raw)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise InvalidInputError("config", f"{path} is not valid: {exc}") from None
    except RecursionError:
        raise InvalidInputError("config", f"{path} is nested too deeply") from None
    check_tree(doc, "config")
    if not isinstance(doc, dict):
        raise InvalidInputError("config", f"{path} must hold a table/object")
    unknown = set(doc) - {"scope", "session", "budget_tokens", "user_trust", "data_dir"}
    if unknown:
        raise InvalidInputError("config", f"unknown keys in {path}: {', '.join(sorted(unknown))}")
    return doc


def settings_from(
    *,
    data_dir: Path,
    scopes: tuple[str, ...],
    session: str | None,
    config: Path | None,
    budget_tokens: int | None,
) -> ServerSettings:
    """Merge the config file (if any) and the flags; flags win key by key."""
    doc = load_config(config) if config is not None else {}
    base = Scope.of(doc.get("scope"), field="config.scope")
    flags = Scope.parse(scopes)
    scope = Scope.of({**dict(base.items_), **dict(flags.items_)})
    name = session or doc.get("session") or default_session()
    budget = budget_tokens or doc.get("budget_tokens") or DEFAULT_BUDGET
    user_trust = str(doc.get("user_trust", "user"))
    if user_trust not in ("user", "assistant"):
        raise InvalidInputError("config.user_trust", "must be 'user' or 'assistant'")
    if not isinstance(doc.get("data_dir", ""), str):
        raise InvalidInputError("config.data_dir", "must be a path string")
    where = Path(doc["data_dir"]).expanduser() if "data_dir" in doc else data_dir
    session_name = identifier(str(name), "session")  # refused at start, not on every call
    if isinstance(budget, bool) or not isinstance(budget, int) or not 1 <= budget <= 100_000:
        raise InvalidInputError("config.budget_tokens", "must be a whole number 1..100000")
    return ServerSettings(where, scope, session_name, budget, user_trust)


def default_session() -> str:
    """A session name for a server started without `--session`."""
    now = dt.datetime.now(dt.UTC)
    return f"mcp-{now:%Y%m%d-%H%M%S}-{os.getpid()}"
