"""What the application lends the desktop that lives in `app` (ui may not import app).

`app` builds these (app/gui_connectors.py) and hands them to the main window; Settings uses
them for joining a team store, the Claude Code hooks and live transcript capture. Every
field may be None: the window then says the feature is not available here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Protocol

from core import MemoryService


class JoinStore(Protocol):
    """Joins a team store into a new data directory with an invitation file and its code;
    returns the directory of the joined store (closed again). The key set is kept in the
    system keyring, or in a key file sealed with `passphrase` when one is given.

    Raises:
        WrongPassphraseError: the code does not open the invitation.
        InvalidInputError: the file is not an invitation.
        ResourceUnavailableError: the folder holds a store already, or the server is away.
    """

    def __call__(
        self, folder: Path, invitation: bytes, code: str, passphrase: str | None
    ) -> Path: ...


@dataclass(frozen=True)
class HookState:
    """Whether our Claude Code hooks are in one settings file."""

    path: Path
    events: tuple[str, ...]


@dataclass(frozen=True)
class HookProblem:
    """The last time Claude Code's hooks could not open this store."""

    reason: str
    """The store's own words (an error message)."""
    kind: str
    """The error's kind (`MemoryCenterError.kind`): what the user can do depends on it."""
    when: datetime


@dataclass(frozen=True)
class FolderPlace:
    """How a folder stands towards the project it names (`app/hooks/places.py`)."""

    project: str
    """The project the folder names (its `.memory-center.toml`, else its directory)."""
    place: str
    """The digest of its real path: what the store keeps instead of the path."""
    state: str
    """"confirmed", "kept apart" or "unbound" (its first session binds it)."""
    apart: str
    """The project its sessions use while kept apart (`<project>@<8 hex>`)."""


class HookControl(Protocol):
    """Install and remove the Claude Code hooks, as `hook install|uninstall claude-code`."""

    def settings_file(self, project: Path | None) -> Path:
        """The user's settings file (None) or a project's."""
        ...

    def state(self, path: Path) -> HookState:
        """The events our hook is installed for in `path` (none when missing)."""
        ...

    def install(self, path: Path) -> HookState:
        """Add or refresh our entries; everything else in the file stays."""
        ...

    def uninstall(self, path: Path) -> HookState:
        """Remove exactly our entries."""
        ...

    def problem(self) -> HookProblem | None:
        """Why the hooks could not open this store, the last time they tried (None when
        they opened it since, or never failed)."""
        ...

    def folder_place(self, service: MemoryService, folder: Path) -> FolderPlace:
        """The project `folder` names and whether its sessions get that project's memories
        (reads the store; changes nothing).

        Raises:
            InvalidInputError: the folder's `.memory-center.toml` is not valid.
        """
        ...


@dataclass(frozen=True)
class CaptureAgent:
    """An agent whose transcripts can be followed: its name and default folder."""

    name: str
    folder: Path


class CaptureControl(Protocol):
    """Live capture of agent transcripts in this process while the window is open."""

    def agents(self) -> list[CaptureAgent]:
        """The agents that can be captured from."""
        ...

    def start(self, agent: str, service: MemoryService, failed: Callable[[str], None]) -> None:
        """Follow `agent`'s folder from now on (sessions already there are not read)."""
        ...

    def stop(self, agent: str) -> None:
        """Stop following `agent` (returns at once; a pass in progress finishes)."""
        ...

    def running(self, agent: str) -> bool:
        """True while `agent` is followed."""
        ...

    def stop_all(self) -> None:
        """Stop every capture (the window locks or closes)."""
        ...


@dataclass(frozen=True)
class Connectors:
    """The app-side helpers Settings may use; None where the window runs without them."""

    join_store: JoinStore | None = None
    hooks: HookControl | None = None
    capture: CaptureControl | None = None
    open_store: Callable[[Path], None] | None = None
    """Opens the store at a data directory in a new memory center window (its own process)."""
    joined_data_dir: Path | None = None
    """The data directory proposed for a joined team store: beside the user's own store, in
    the platform's data folder (never a guess such as the home folder)."""
    run_ab: Callable[[Path, list[Path]], object] | None = None
    """`eval ab` over a folder of recorded sessions and configuration files: its JSON document
    (runs long: call it off the UI thread)."""
