"""What the desktop memory center needs from app (the window starts in gui_start.py).

The window gets two things from here that the ui layer may not import itself (ui is below app):

* transcript importers (File > Import transcripts…), adapters over `app.importers`: parse the
  path, then `write_sessions` one session (one transaction) at a time, reporting progress and
  stopping between sessions when asked. Imported events are scoped to the desktop user:
  `{"user": getpass.getuser()}` (the login name, the same person who runs the agents on this
  machine); Claude Code sessions also get `project=<working directory name>` as on the CLI.
* `unlock` for File > Lock: reopens the store through `app.compose.open_service` with the
  passphrase dialog. Not offered when $MEMORY_CENTER_PASSPHRASE is set (unlocking would not
  ask for anything, so locking would protect nothing).
"""

from __future__ import annotations

import getpass
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from app.importers import chatgpt, claude_code
from app.importers.base import ImportReport, Problem, SourceSession, write_sessions
from core import KeyUnavailableError, MemoryService, Scope

Parser = Callable[[Path], tuple[list[SourceSession], list[Problem]]]
GuiImporter = Callable[[MemoryService, Path, Callable[[int, int], None], Callable[[], bool]], str]
MAX_PROBLEMS_SHOWN = 5


def desktop_scope() -> dict[str, str]:
    """The scope of transcripts imported from the desktop: the login name as the user."""
    return {"user": getpass.getuser()}


def summarize(report: ImportReport, *, stopped: bool = False) -> str:
    """A short human summary of an import run (first line: the counts)."""
    outcomes = ", ".join(f"{v} {k}" for k, v in sorted(report.suggestions.items())) or "none"
    lines = [
        f"Imported {report.events_written} events in {report.sessions_written} sessions "
        f"({report.events_already_present} already present, "
        f"{len(report.problems)} skipped).",
        f"Suggested memories: {outcomes}.",
    ]
    if stopped:
        lines.append(
            f"Stopped by you after {report.sessions_seen} sessions; "
            "import again to continue (nothing is added twice)."
        )
    for problem in report.problems[:MAX_PROBLEMS_SHOWN]:
        lines.append(f"Skipped {problem}")
    if len(report.problems) > MAX_PROBLEMS_SHOWN:
        lines.append(f"… and {len(report.problems) - MAX_PROBLEMS_SHOWN} more skipped.")
    return "\n".join(lines)


def importer(parse: Parser, name: str, scope: Mapping[str, str]) -> GuiImporter:
    """Adapt an `app.importers` parser to the window's importer signature."""
    where = Scope.required(dict(scope))

    def run(
        service: MemoryService,
        path: Path,
        progress: Callable[[int, int], None],
        should_stop: Callable[[], bool],
    ) -> str:
        sessions, problems = parse(path)
        report = ImportReport(problems=list(problems))
        total = len(sessions)
        progress(0, total)
        stopped = False

        def until_stopped() -> Iterator[SourceSession]:
            nonlocal stopped
            for sess in sessions:
                if should_stop():
                    stopped = True
                    return
                yield sess

        write_sessions(
            service,
            until_stopped(),
            where,
            report,
            importer=name,
            progress=lambda _s: progress(report.sessions_seen, total),
        )
        return summarize(report, stopped=stopped)

    return run


def transcript_importers(scope: Mapping[str, str] | None = None) -> dict[str, GuiImporter]:
    """The importers offered under File > Import transcripts…, by the name shown."""
    where = scope if scope is not None else desktop_scope()
    return {
        "Claude Code transcripts": importer(claude_code.parse, "import:claude-code", where),
        "ChatGPT export": importer(chatgpt.parse, "import:chatgpt", where),
    }


def ask_and_open(data_dir: Path, *, create: bool, parent: object = None) -> MemoryService | None:
    """Open the store with the keyring or $MEMORY_CENTER_PASSPHRASE, else ask in a dialog that
    tries each passphrase and stays open on a wrong one. None when the user cancels."""
    from app.compose import open_service
    from app.paths import passphrase_from_env

    try:
        return open_service(data_dir, create=create, graph_on_demand=True)
    except KeyUnavailableError:
        if passphrase_from_env() is not None:
            raise
    return passphrase_and_open(data_dir, create=create, parent=parent)


def passphrase_and_open(
    data_dir: Path, *, create: bool, parent: object = None
) -> MemoryService | None:
    """Ask for the passphrase until it opens the store (a wrong one is said to be wrong and
    the dialog stays open); None when the user cancels."""
    from app.compose import open_service

    from ui.passphrase_dialog import PassphraseDialog

    new_store = not (data_dir / "keyfile.json").exists()

    def opener(passphrase: str) -> MemoryService:
        return open_service(
            data_dir, create=create, prompt=lambda _new: passphrase, graph_on_demand=True
        )

    dialog = PassphraseDialog(new_store, parent, opener=opener)  # type: ignore[arg-type]
    return dialog.opened if dialog.exec() else None
