"""File > Import transcripts… (with an injected importer) and File > Lock / Unlock."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from app.gui import desktop_scope, transcript_importers
from core import ManualClock, MemoryService
from tests.conftest import PASSPHRASE
from tests.ui.conftest import TIMEOUT

from ui.main_window import MainWindow
from ui.transcript_import import ImportDialog

FIXTURES = Path(__file__).resolve().parents[1] / "app" / "fixtures"


class FakeImporter:
    """A test double for the injected importer: records calls, reports progress per 'session'."""

    def __init__(self, sessions: int = 3, gate: threading.Event | None = None) -> None:
        self.sessions = sessions
        self.gate = gate
        self.calls: list[Path] = []
        self.threads: list[str] = []
        self.progress: list[tuple[int, int]] = []

    def __call__(
        self,
        service: MemoryService,
        path: Path,
        progress: Callable[[int, int], None],
        should_stop: Callable[[], bool],
    ) -> str:
        self.calls.append(path)
        self.threads.append(threading.current_thread().name)
        done = 0
        for _ in range(self.sessions):
            if self.gate is not None:
                assert self.gate.wait(5)
            if should_stop():
                return f"stopped after {done} sessions"
            done += 1
            progress(done, self.sessions)
            self.progress.append((done, self.sessions))
        assert service.status().revision >= 0
        return f"imported {done} sessions from {path.name}\nsecond line"


def _window(qtbot: QtBot, service: MemoryService, clock: ManualClock, **kw: object) -> MainWindow:
    win = MainWindow(service, now=clock.now, **kw)  # type: ignore[arg-type]
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.status_label.text() != "", timeout=TIMEOUT)
    return win


def test_import_runs_the_injected_importer_with_progress(
    qtbot: QtBot, service: MemoryService, clock: ManualClock, tmp_path: Path
) -> None:
    """The dialog validates the path; the importer runs on the writer; the summary is shown."""
    fake = FakeImporter()
    win = _window(qtbot, service, clock, importers={"Fake": fake})
    assert win.import_action.isEnabled()
    win.import_action.trigger()
    dialog = win.active_dialog
    assert isinstance(dialog, ImportDialog)
    dialog.path.setText(str(tmp_path / "missing"))
    dialog._check()
    assert "does not exist" in dialog.problem.text()
    (tmp_path / "t.jsonl").write_text("{}\n")
    dialog.path.setText(str(tmp_path / "t.jsonl"))
    dialog._check()
    qtbot.waitUntil(lambda: win.active_import is not None, timeout=TIMEOUT)
    run = win.active_import
    assert run is not None
    qtbot.waitUntil(lambda: run.summary_box is not None, timeout=TIMEOUT)
    assert fake.calls == [tmp_path / "t.jsonl"]
    assert fake.threads[0].startswith("mc-write")
    assert fake.progress == [(1, 3), (2, 3), (3, 3)]
    assert run.summary_box is not None
    assert "imported 3 sessions from t.jsonl" in run.summary_box.text()
    assert win.message.text() == "imported 3 sessions from t.jsonl"
    assert run.progress is not None and not run.progress.isVisible()
    run.summary_box.close()


def test_import_can_be_stopped(
    qtbot: QtBot, service: MemoryService, clock: ManualClock, tmp_path: Path
) -> None:
    """Stop in the progress dialog is seen by the importer between sessions."""
    gate = threading.Event()
    fake = FakeImporter(sessions=5, gate=gate)
    win = _window(qtbot, service, clock, importers={"Fake": fake})
    run = win.start_import("Fake", tmp_path)
    assert run.progress is not None
    stop = run.progress.findChild(QPushButton)
    assert stop is not None and stop.text() == "Stop"
    stop.click()
    gate.set()
    qtbot.waitUntil(lambda: run.summary_box is not None, timeout=TIMEOUT)
    assert run.summary_box is not None
    assert "stopped after" in run.summary_box.text()
    run.summary_box.close()


def test_import_action_disabled_without_importers(
    qtbot: QtBot, service: MemoryService, clock: ManualClock
) -> None:
    win = _window(qtbot, service, clock)
    assert not win.import_action.isEnabled()
    assert win.import_action.toolTip()


def test_gui_adapters_import_the_fixtures(service: MemoryService) -> None:
    """app.gui's adapters parse, write per session with progress, and are idempotent."""
    importers = transcript_importers({"user": "alice"})
    seen: list[tuple[int, int]] = []
    text = importers["Claude Code transcripts"](
        service, FIXTURES / "claude_code", lambda d, t: seen.append((d, t)), lambda: False
    )
    assert seen[0] == (0, 2) and seen[-1] == (2, 2)
    assert text.startswith("Imported ") and "in 2 sessions" in text
    events = service.events.list_events(session="claude-code:7f3c2a10-4b8e-4d2a-9c61-0e5b8f2d9a11")
    assert events and all(e.scope.get("user") == "alice" for e in events)
    again = importers["Claude Code transcripts"](
        service, FIXTURES / "claude_code", lambda d, t: None, lambda: False
    )
    assert again.startswith("Imported 0 events in 0 sessions")
    gpt = importers["ChatGPT export"](
        service, FIXTURES / "chatgpt", lambda d, t: None, lambda: True
    )
    assert "Stopped by you after 0 sessions" in gpt
    assert desktop_scope()["user"]


def _unlocker(data_dir: Path, clock: ManualClock, opened: list[MemoryService]) -> object:
    def unlock() -> MemoryService:
        svc = MemoryService.open(
            data_dir, passphrase=PASSPHRASE, clock=clock, prefer_keyring=False, create=False
        )
        opened.append(svc)
        return svc

    return unlock


def test_lock_and_unlock(
    qtbot: QtBot,
    demo: MemoryService,
    clock: ManualClock,
    data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Lock closes the service and shows the locked page; Unlock rebuilds on a new service."""
    opened: list[MemoryService] = []
    closed: list[bool] = []
    close = demo.close
    monkeypatch.setattr(demo, "close", lambda: (closed.append(True), close())[1])
    win = _window(qtbot, demo, clock, unlock=_unlocker(data_dir, clock, opened))
    qtbot.waitUntil(win.lock_action.isEnabled, timeout=TIMEOUT)
    assert win.lock_action.shortcut().toString() == "Ctrl+L"
    old_timeline = win.timeline
    win.lock_action.trigger()
    assert win.locked
    assert win.pages.currentWidget() is win.locked_page
    assert not win.lock_action.isEnabled() and not win.view_actions[0].isEnabled()
    assert not win.poll.isActive()
    assert closed == [True]
    win.unlock_button.click()
    assert not win.locked and len(opened) == 1
    assert win.service is opened[0] and win.ctx.service is opened[0]
    assert win.timeline is not old_timeline
    assert win.pages.currentWidget() is win.content
    qtbot.waitUntil(lambda: win.timeline.model.item_count > 0, timeout=TIMEOUT)
    assert win.poll.isActive() and win.lock_action.isEnabled()
    win.close()
    opened[0].close()


def test_unlock_cancelled_stays_locked(
    qtbot: QtBot, service: MemoryService, clock: ManualClock
) -> None:
    win = _window(qtbot, service, clock, unlock=lambda: None)
    qtbot.waitUntil(win.lock_action.isEnabled, timeout=TIMEOUT)
    win.lock()
    assert not win.unlock()
    assert win.locked and win.pages.currentWidget() is win.locked_page


def test_lock_disabled_without_unlock_or_passphrase(
    qtbot: QtBot, service: MemoryService, clock: ManualClock
) -> None:
    win = _window(qtbot, service, clock)
    assert not win.lock_action.isEnabled()
    assert "not available" in win.lock_action.toolTip()
    win._key_source = "keyring"
    win._unlock = lambda: None
    win._update_actions()
    assert not win.lock_action.isEnabled()
    assert "keyring" in win.lock_action.toolTip()
    win.lock()
    assert not win.locked
