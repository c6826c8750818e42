"""Which folders speak for a project (the hooks' attacker model).

The hooks name a session's project from its folder: a `.memory-center.toml` in the
repository, else the repository's directory name. Both are the repository's to choose, and
a cloned repository is content from outside: one that names itself after another project
of the user ("billing") would have that project's memories injected into its sessions, and
its own sessions recorded as that project's. So a project's memories follow it only into
folders the user has confirmed. The first folder that names a project with no memories
and no recent history yet is bound to it on first use; any other folder naming a bound
project, or a project the store already holds (memories from the MCP server, the CLI, an
import; sessions recorded before), is kept apart until the user confirms it
(`memory-center hook trust`; the rule itself is `app/hooks/places.py`). The user withdraws a
confirmation the same way (`hook untrust`, or Settings): a folder path reused for other
content, or a confirmation given by mistake.

A folder is kept as a digest of its real path (paths stay out of the store), under the
store setting `project_places`, sealed and bound like every other setting.
"""

from __future__ import annotations

import re

from sqlalchemy import Connection

from core.crypto.codec import Codec
from core.errors import InvalidInputError, InvalidStateError
from core.model.enums import ChangeKind
from core.model.validate import identifier
from core.storage import settings
from core.storage.store import WriteTx

SETTING = "project_places"
MAX_PROJECT = 200
MAX_PLACES = 256  # folders per project: clones and worktrees of one repository
_PLACE = re.compile(r"[0-9a-f]{64}")


def valid_place(place: object) -> str:
    """A folder's digest: 64 lowercase hex digits (SHA-256 of its real path)."""
    if not isinstance(place, str) or not _PLACE.fullmatch(place):
        raise InvalidInputError("place", "must be the 64-hex-digit digest of a folder's path")
    return place


def valid_project(project: object) -> str:
    """A project name: one line, no control characters, at most 200 characters."""
    return identifier(project, "project", MAX_PROJECT)


def read_places(conn: Connection, codec: Codec) -> dict[str, frozenset[str]]:
    """Each project's confirmed folders (digests).

    Raises:
        DamagedRowError: the settings do not match their binding.
    """
    value = settings.read(conn, SETTING, codec)
    if not isinstance(value, dict):
        return {}
    return {
        str(project): frozenset(p for p in places if isinstance(p, str))
        for project, places in value.items()
        if isinstance(places, list)
    }


def bind(tx: WriteTx, project: str, place: str) -> frozenset[str]:
    """Confirm that `place` speaks for `project`; return the project's folders afterwards.

    Raises:
        InvalidInputError: a bad name or digest, or the project has `MAX_PLACES` folders.
    """
    project, place = valid_project(project), valid_place(place)
    current = read_places(tx.conn, tx.codec)
    mine = set(current.get(project, frozenset()))
    if place in mine:
        return frozenset(mine)
    if len(mine) >= MAX_PLACES:
        raise InvalidInputError("place", f"project {project!r} has {MAX_PLACES} folders already")
    mine.add(place)
    current[project] = frozenset(mine)
    _save(tx, current)
    return frozenset(mine)


def unbind(tx: WriteTx, project: str, place: str) -> frozenset[str]:
    """Withdraw `place` from `project`; return the project's folders afterwards. A project
    left with no folder is dropped from the setting: its next folder is judged afresh.

    Raises:
        InvalidInputError: a bad name or digest.
        InvalidStateError: the folder does not speak for the project.
    """
    project, place = valid_project(project), valid_place(place)
    current = read_places(tx.conn, tx.codec)
    mine = set(current.get(project, frozenset()))
    if place not in mine:
        raise InvalidStateError(f"this folder does not speak for project {project!r}")
    mine.discard(place)
    if mine:
        current[project] = frozenset(mine)
    else:
        del current[project]
    _save(tx, current)
    return frozenset(mine)


def _save(tx: WriteTx, current: dict[str, frozenset[str]]) -> None:
    settings.write(tx, SETTING, {name: sorted(p) for name, p in sorted(current.items())})
    tx.touch(ChangeKind.SESSIONS)
