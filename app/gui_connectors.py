"""The app-side helpers the desktop's Settings uses (ui may not import app).

* `join_store`: `memory-center join FILE` into a folder the user chose.
* `DesktopHooks`: `hook install|uninstall claude-code` for the user's or a project's
  settings file, pointing the hooks at this window's store.
* `DesktopCapture`: "Capture from …" runs a transcript watcher (`app.capture.watch`) on a
  background thread of this process while the window is open, from the moment it is turned
  on (sessions already on disk are left to File > Import transcripts…). For capture while
  the window is closed, `memory-center watch claude-code|codex` runs the same watcher.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.capture.watch import AGENTS, Watcher
from app.hooks import client as hook_client
from app.hooks import install as hooks
from app.hooks import places
from app.hooks.workspace import resolve
from app.paths import PASSPHRASE_ENV
from core import InvalidInputError, MemoryCenterError, MemoryService

from ui.integrations import CaptureAgent, Connectors, FolderPlace, HookProblem, HookState

CAPTURE_INTERVAL_S = 2.0
STOP_WAIT_S = 5.0


def join_store(folder: Path, invitation: bytes, code: str, passphrase: str | None) -> Path:
    """Join the team store the invitation names into `folder`; the service is closed again."""
    MemoryService.join(folder, invitation, code, passphrase=passphrase).close()
    return folder


def run_ab(transcripts: Path, policies: list[Path]) -> dict[str, Any]:
    """`eval ab --transcripts DIR --policy …`: the same JSON document as its `--out`.

    Raises:
        InvalidInputError: a configuration or a recorded session is not valid, or two
            configurations share a name.
    """
    from app.evaluation.compare import compare, document
    from app.evaluation.replay import load_configuration
    from app.evaluation.sessions import load_dir

    configs = [load_configuration(p) for p in policies]
    if len({c.name for c in configs}) != len(configs):
        raise InvalidInputError("--policy", "configuration names must differ")
    sessions = load_dir(transcripts)
    return document(compare(configs, sessions), [s.name for s in sessions])


def open_store_command(folder: Path) -> list[str]:
    """The command line that opens the memory center on `folder` (the built executable, or
    this Python on the `app` package)."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "--data-dir", str(folder), "gui"]
    entry = "from app.launch import main; main()"
    return [sys.executable, "-c", entry, "--data-dir", str(folder), "gui"]


def open_store(folder: Path) -> None:
    """Start a memory center window on `folder` in its own process."""
    root = str(Path(__file__).resolve().parents[1])
    path = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": root + (os.pathsep + path if path else "")}
    # A passphrase given to this window is for this store; the other one asks for its own.
    env.pop(PASSPHRASE_ENV, None)
    subprocess.Popen(
        open_store_command(folder),
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # it outlives this window
    )


@dataclass(frozen=True)
class DesktopHooks:
    """The Claude Code hooks of one store (the window's)."""

    data_dir: Path

    def settings_file(self, project: Path | None) -> Path:
        return hooks.settings_path(project, project is None)

    def state(self, path: Path) -> HookState:
        return HookState(path, tuple(hooks.installed(path)))

    def install(self, path: Path) -> HookState:
        report = hooks.install(path, self.data_dir)
        return HookState(Path(report.path), report.events)

    def uninstall(self, path: Path) -> HookState:
        hooks.uninstall(path)
        return self.state(path)

    def problem(self) -> HookProblem | None:
        found = hook_client.last_failure(self.data_dir)
        if found is None:
            return None
        reason, kind, when = found
        return HookProblem(reason, kind, datetime.fromtimestamp(when, UTC))

    def folder_place(self, service: MemoryService, folder: Path) -> FolderPlace:
        ws = resolve(folder)
        place = places.place_of(ws, folder)
        state = places.standing(service, ws, folder)
        return FolderPlace(ws.project, place, state, places.apart_name(ws.project, place))


@dataclass
class _Run:
    failed: Callable[[str], None]
    """Told why capture stopped; the latest caller's (a rebuilt window replaces it)."""
    stop: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None


class DesktopCapture:
    """Transcript watchers on background threads, one per agent."""

    def __init__(
        self, interval: float = CAPTURE_INTERVAL_S, folders: dict[str, Path] | None = None
    ) -> None:
        self.interval = interval
        self.folders = {a.name: a.default_dir for a in AGENTS.values()} | (folders or {})
        self._runs: dict[str, _Run] = {}

    def agents(self) -> list[CaptureAgent]:
        return [CaptureAgent(name, folder) for name, folder in self.folders.items()]

    def start(self, agent: str, service: MemoryService, failed: Callable[[str], None]) -> None:
        if self.running(agent):
            self._runs[agent].failed = failed
            return
        spec = AGENTS[agent]
        watcher = Watcher(service, spec, self.folders[agent], from_now=True)
        run = _Run(failed)
        # Daemon: never keeps the process alive after the window closed.
        run.thread = threading.Thread(
            target=self._follow, args=(watcher, run), name=f"mc-capture-{agent}", daemon=True
        )
        self._runs[agent] = run
        run.thread.start()

    def _follow(self, watcher: Watcher, run: _Run) -> None:
        while not run.stop.is_set():
            try:
                watcher.run_once()
                # The first pass marked the files already there as read up to their end;
                # a session that starts later is read from its first line.
                watcher.from_now = False
            except MemoryCenterError as exc:
                run.failed(exc.message)
                return
            except Exception as exc:  # a closed store, a vanished folder: stop and say so
                run.failed(str(exc) or type(exc).__name__)
                return
            run.stop.wait(self.interval)

    def stop(self, agent: str) -> None:
        run = self._runs.pop(agent, None)
        if run is not None:
            run.stop.set()

    def running(self, agent: str) -> bool:
        run = self._runs.get(agent)
        return (
            run is not None
            and run.thread is not None
            and run.thread.is_alive()
            and not run.stop.is_set()
        )

    def stop_all(self) -> None:
        runs = list(self._runs.values())
        self._runs.clear()
        for run in runs:
            run.stop.set()
        for run in runs:
            # Let a pass in progress finish its transaction before the store closes.
            if run.thread is not None:
                run.thread.join(STOP_WAIT_S)


def desktop_connectors(data_dir: Path, *, demo: bool = False) -> Connectors:
    """What Settings offers for the store at `data_dir` (only joining in the demo store:
    hooks and capture would point the user's agents at sample data)."""
    joined = data_dir.parent / "team-store"
    if demo:
        return Connectors(
            join_store=join_store, open_store=open_store, run_ab=run_ab, joined_data_dir=joined
        )
    return Connectors(
        join_store=join_store,
        joined_data_dir=joined,
        hooks=DesktopHooks(data_dir),
        capture=DesktopCapture(),
        open_store=open_store,
        run_ab=run_ab,
    )
