"""A project's memories only in the folders that speak for it (the hooks' attacker model).

A repository names its own project (`.memory-center.toml`, or its directory name), and a
cloned repository is content from outside. A folder that names a project the store knows
from elsewhere is kept apart: its sessions read and write the project `<name>@<folder>`
until the user confirms the folder (`memory-center hook trust`), and the session's first
hook call says so to the user (`systemMessage`). The first folder that names a project with
no memories and no recent history yet is bound to it on first use. The rules and the setting are in
`core/governance/places.py`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import weakref
from pathlib import Path

from app.capture.history import RECENT_SCAN, visible_events
from app.hooks.workspace import Workspace
from core import IntegrityError, MemoryCenterError, MemoryFilter, MemoryService, Scope
from core.model import commands as c

HOOK = c.Origin("hook")


def place_of(ws: Workspace, cwd: str | os.PathLike[str] | None) -> str:
    """The digest of the folder that names the project: its config's or repository's root,
    else the working directory (real paths: a symbolic link is the folder it points to)."""
    folder = ws.root or Path(cwd or Path.cwd())
    real = os.path.realpath(folder)
    return hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()


def apart_name(project: str, place: str) -> str:
    """The project a folder's sessions use while it is kept apart from `project`."""
    return f"{project}@{place[:8]}"


def standing(service: MemoryService, ws: Workspace, cwd: str | os.PathLike[str] | None) -> str:
    """How the folder stands towards the project it names, without changing anything:
    "confirmed", "kept apart" (until `hook trust`), or "unbound" (its first session binds
    it: the store holds nothing of the project yet)."""
    project, place = ws.project, place_of(ws, cwd)
    known = service.agents.places()
    if place in known.get(project, frozenset()):
        return "confirmed"
    if project not in known and not _known_elsewhere(service, ws.scope):
        return "unbound"
    return "kept apart"


def kept_apart(
    service: MemoryService, ws: Workspace, cwd: str | None, origin: c.Origin = HOOK
) -> Workspace:
    """`ws` when its folder speaks for its project (binding the first folder of a project
    with no memories yet); else `ws` under a project of this folder alone, with a notice."""
    project, place = ws.project, place_of(ws, cwd)
    apart = apart_name(project, place)
    try:
        state = standing(service, ws, cwd)
        if state == "unbound":
            service.commands.run(c.BindProjectPlace(project, place), origin)
        if state != "kept apart":
            return ws
        notice = (
            f"Memory Center: this folder calls its project '{project}', which Memory Center "
            "already holds from elsewhere (another folder, the MCP server, the CLI or an "
            f"import), so that project's memories are not used here and this session is "
            f"kept as '{apart}'. If this folder is '{project}', run `memory-center hook "
            "trust` in it (or trust it in Memory Center: Settings, Connected agents)."
        )
    except IntegrityError as exc:
        # The confirmed folders were changed outside Memory Center (a row written by hand on
        # the database server, an edited file): they vouch for nothing, so kept apart.
        notice = f"Memory Center: this folder's project cannot be confirmed: {exc.message}"
    except MemoryCenterError:
        # The store cannot be read (a server away): nothing of it can be injected either,
        # and what the call records is spooled under the folder's own project name.
        return ws
    scope = Scope.of({**dict(ws.scope.items_), "project": apart})
    return dataclasses.replace(ws, scope=scope, notice=notice)


# Projects found to hold something, per open store: what a store holds it keeps holding,
# so a folder kept apart is not searched for again on every call of a long-lived daemon.
_HOLDING: weakref.WeakKeyDictionary[MemoryService, set[str]] = weakref.WeakKeyDictionary()


def _known_elsewhere(service: MemoryService, scope: Scope) -> bool:
    """The store holds memories of the project, or recent history recorded in it (what
    "last time in this project" would show a session started here)."""
    project = scope.get("project", "")
    seen = _HOLDING.setdefault(service, set())
    if project in seen:
        return True
    found = bool(
        service.memories.list_memories(
            MemoryFilter(
                statuses=("active", "candidate", "quarantined", "disabled"),
                scope_contains=scope,
                limit=1,
            )
        )
    ) or any(
        e.scope.get("project") == project for e in visible_events(service, scope, scan=RECENT_SCAN)
    )
    if found:
        seen.add(project)
    return found
