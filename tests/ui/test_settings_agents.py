"""Settings → Connected agents: Claude Code hooks install/uninstall as `hook install|uninstall
claude-code` does, "Capture from …" per agent with counts, and the A/B comparison chart (#16)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from app.gui_connectors import DesktopCapture, desktop_connectors
from core import ManualClock, MemoryService
from tests.conftest import PASSPHRASE
from tests.ui.conftest import TIMEOUT

from ui.integrations import Connectors
from ui.main_window import SETTINGS, MainWindow
from ui.views.ab_chart import AbComparisonDialog
from ui.views.settings.agents import AgentsPanel

FIXTURES = Path(__file__).resolve().parents[1] / "app" / "fixtures" / "claude_code"
REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def folders(tmp_path: Path) -> dict[str, Path]:
    """Where the agents' transcripts are watched (instead of the user's home)."""
    found = {"claude-code": tmp_path / "claude-projects", "codex": tmp_path / "codex-sessions"}
    for folder in found.values():
        folder.mkdir()
    return found


@pytest.fixture
def agents_window(
    qtbot: QtBot,
    demo: MemoryService,
    clock: ManualClock,
    tmp_path: Path,
    folders: dict[str, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[MainWindow]:
    """The window with the application's real connectors (user settings in a temp dir)."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    data_dir = Path(demo.status().path).parent
    base = desktop_connectors(data_dir)
    capture = DesktopCapture(interval=0.1, folders=folders)
    win = MainWindow(
        demo,
        now=clock.now,
        connectors=Connectors(base.join_store, base.hooks, capture, run_ab=base.run_ab),
    )
    qtbot.addWidget(win)
    win.show()
    yield win
    capture.stop_all()


def _agents(qtbot: QtBot, window: MainWindow) -> AgentsPanel:
    window.nav.setCurrentRow(SETTINGS)
    panel = window.settings.agents
    qtbot.waitUntil(panel.isVisible, timeout=TIMEOUT)
    return panel


def _click(qtbot: QtBot, widget: object) -> None:
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)  # type: ignore[arg-type]


def test_keys_alone_install_the_hooks(
    qtbot: QtBot, agents_window: MainWindow, tmp_path: Path
) -> None:
    """Ctrl+4 shows Settings and Alt+I presses "Install" for the user's settings: a keyboard
    user needs no mouse (the desktop build's window test presses the same keys)."""
    settings = tmp_path / "claude-config" / "settings.json"
    agents_window.activateWindow()
    qtbot.keyClick(agents_window, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    panel = agents_window.settings.agents
    qtbot.waitUntil(panel.isVisible, timeout=TIMEOUT)
    qtbot.keyClick(
        agents_window.focusWidget() or agents_window, Qt.Key.Key_I, Qt.KeyboardModifier.AltModifier
    )
    qtbot.waitUntil(settings.exists, timeout=TIMEOUT)
    assert len(json.loads(settings.read_text(encoding="utf-8"))["hooks"]) == 6
    assert panel.user_uninstall.isEnabled() and not panel.user_install.isEnabled()


def test_install_and_uninstall_keep_other_settings(
    qtbot: QtBot, agents_window: MainWindow, tmp_path: Path
) -> None:
    """Install writes our six hook events next to what the file held; Uninstall removes
    exactly ours; the label and the buttons follow."""
    settings = tmp_path / "claude-config" / "settings.json"
    settings.parent.mkdir()
    theirs = {
        "model": "opus",
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]},
    }
    settings.write_text(json.dumps(theirs), encoding="utf-8")
    panel = _agents(qtbot, agents_window)
    assert "not installed" in panel.user_hooks.text()
    assert panel.user_install.isEnabled() and not panel.user_uninstall.isEnabled()
    _click(qtbot, panel.user_install)
    doc = json.loads(settings.read_text(encoding="utf-8"))
    assert doc["model"] == "opus"
    assert len(doc["hooks"]) == 6 and len(doc["hooks"]["Stop"]) == 2
    assert "installed for 6 events" in panel.user_hooks.text()
    assert "Claude Code hooks installed" in agents_window.message.text()
    assert panel.user_uninstall.isEnabled() and not panel.user_install.isEnabled()
    _click(qtbot, panel.user_uninstall)
    assert json.loads(settings.read_text(encoding="utf-8")) == theirs
    assert "not installed" in panel.user_hooks.text()


def test_project_hooks_go_into_the_chosen_project(
    qtbot: QtBot, agents_window: MainWindow, tmp_path: Path
) -> None:
    """Typing a project folder enables Install for it; the project's own settings get them."""
    project = tmp_path / "shop"
    project.mkdir()
    panel = _agents(qtbot, agents_window)
    assert not panel.project_install.isEnabled()
    qtbot.keyClicks(panel.project.edit, str(project))
    assert panel.project_install.isEnabled()
    _click(qtbot, panel.project_install)
    written = json.loads((project / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert "UserPromptSubmit" in written["hooks"]
    assert "installed for 6 events" in panel.project_hooks.text()
    assert not (tmp_path / "claude-config" / "settings.json").exists()


def test_broken_settings_file_is_one_error_and_stays_as_it_was(
    qtbot: QtBot, agents_window: MainWindow, tmp_path: Path
) -> None:
    """A settings file that is not JSON is named in the label; Install stays off; the file
    is not touched."""
    settings = tmp_path / "claude-config" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{ not json", encoding="utf-8")
    panel = _agents(qtbot, agents_window)
    assert "settings.json" in panel.user_hooks.text()
    assert not panel.user_install.isEnabled() and not panel.user_uninstall.isEnabled()
    assert settings.read_text(encoding="utf-8") == "{ not json"


def test_capture_records_a_session_started_after_it_was_turned_on(
    qtbot: QtBot, agents_window: MainWindow, demo: MemoryService, folders: dict[str, Path]
) -> None:
    """Sessions already on disk are left alone; a session written later is recorded and
    counted; turning capture off stops it, and the choice is remembered."""
    old = folders["claude-code"] / "-home-alice-old"
    shutil.copytree(FIXTURES / "-home-alice-projects-webshop", old)
    before = demo.status().event_count
    panel = _agents(qtbot, agents_window)
    check = panel.capture_checks["claude-code"]
    check.setFocus()
    qtbot.keyClick(check, Qt.Key.Key_Space)
    assert check.isChecked()
    capture = agents_window.ctx.connectors.capture
    assert capture is not None
    qtbot.waitUntil(
        lambda: demo.events.capture_totals().get("claude-code", (0, 0))[0] == 2, timeout=TIMEOUT
    )
    assert demo.status().event_count == before  # history was not imported
    new = folders["claude-code"] / "-home-alice-projects-webshop"
    shutil.copytree(FIXTURES / "-home-alice-projects-webshop", new)
    qtbot.waitUntil(lambda: demo.status().event_count > before, timeout=10_000)
    qtbot.waitUntil(
        lambda: (
            "0 events captured" not in panel.capture_counts["claude-code"].text()
            and "events captured" in panel.capture_counts["claude-code"].text()
        ),
        timeout=10_000,
    )
    assert capture.running("claude-code") and not capture.running("codex")
    assert QSettings().value("capture/claude-code", type=bool) is True
    qtbot.keyClick(check, Qt.Key.Key_Space)
    assert not check.isChecked() and not capture.running("claude-code")
    assert QSettings().value("capture/claude-code", type=bool) is False


def _result(path: Path) -> Path:
    totals = {
        "memory-on": {
            "evidence_recall": 1.0,
            "precision": 0.19,
            "leakage_rate": 0.0,
            "stale_citation_rate": 0.12,
            "wrong_adoption_rate": 0.0,
            "tokens_per_call": 130.8,
            "latency_p50_ms": 124.4,
        },
        "memory-off": {
            "evidence_recall": 0.0,
            "precision": 0.0,
            "leakage_rate": 0.0,
            "stale_citation_rate": 0.0,
            "wrong_adoption_rate": 0.0,
            "tokens_per_call": 0.0,
            "latency_p50_ms": 120.2,
        },
    }
    doc = {
        "sessions": ["en-billing", "en-travel", "zh-budget"],
        "configurations": {
            k: {"total": v, "leaks": [], "per_session": {}} for k, v in totals.items()
        },
    }
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_ab_result_shows_as_chart_and_table(
    qtbot: QtBot, agents_window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening an `eval ab` result draws one bar per configuration and metric and fills the
    table beside it; a file that is not a result is one message and keeps what was shown."""
    good = _result(tmp_path / "ab.json")
    chosen = [str(good)]
    monkeypatch.setattr(AbComparisonDialog, "choose_path", lambda _self: chosen[0])
    panel = _agents(qtbot, agents_window)
    _click(qtbot, panel.ab_button)
    dialog = panel.ab_dialog
    assert dialog is not None
    qtbot.waitExposed(dialog)
    _click(qtbot, dialog.open_button)
    table = dialog.table
    assert [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())] == [
        "memory-on",
        "memory-off",
    ]
    assert table.rowCount() == 7
    assert table.verticalHeaderItem(0).text() == "Evidence recall"
    assert table.item(0, 0).text() == "100 %" and table.item(0, 1).text() == "0 %"
    assert table.item(5, 0).text() == "130.8"
    assert "3 recorded sessions" in dialog.source.text()
    assert dialog.chart.metrics()[0] == "evidence_recall"
    assert dialog.chart.grab().size().height() >= dialog.chart.sizeHint().height() - 1
    bad = tmp_path / "notes.json"
    bad.write_text(json.dumps({"hello": "world"}), encoding="utf-8")
    chosen[0] = str(bad)
    _click(qtbot, dialog.open_button)
    assert "notes.json" in dialog.problem.text() and "not an A/B result" in dialog.problem.text()
    assert table.item(5, 0).text() == "130.8"


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_ab_runs_on_recorded_sessions_from_the_dialog(
    qtbot: QtBot, agents_window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run… replays a recorded session under two configurations (the real evaluation) and
    shows the result; memory off injects nothing and leaks nothing."""
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    for name in ("en-billing.jsonl", "en-billing.eval.json"):
        shutil.copy(EXAMPLES / "ab_sessions" / name, sessions / name)
    policies = [EXAMPLES / "ab_policies" / f"{n}.json" for n in ("memory-on", "memory-off")]
    chosen: list[tuple[Path, list[Path]]] = [(sessions, [policies[0], policies[0]])]
    monkeypatch.setattr(AbComparisonDialog, "choose_run_inputs", lambda _self: chosen[0])
    panel = _agents(qtbot, agents_window)
    _click(qtbot, panel.ab_button)
    dialog = panel.ab_dialog
    assert dialog is not None and dialog.run_button.isVisible()
    _click(qtbot, dialog.run_button)  # the same configuration twice: refused by name
    qtbot.waitUntil(lambda: "must differ" in dialog.problem.text(), timeout=60_000)
    assert dialog.table.rowCount() == 0 and dialog.run_button.isEnabled()
    chosen[0] = (sessions, policies)
    _click(qtbot, dialog.run_button)
    assert not dialog.run_button.isEnabled()
    qtbot.waitUntil(lambda: dialog.table.columnCount() == 2, timeout=120_000)
    table = dialog.table
    assert [table.horizontalHeaderItem(c).text() for c in range(2)] == ["memory-on", "memory-off"]
    assert "sessions — 1 recorded session" in dialog.source.text()
    assert table.item(0, 1).text() == "0 %"  # memory off: no evidence recalled
    assert table.item(2, 0).text() == "0 %" and table.item(2, 1).text() == "0 %"  # no leakage
    assert float(table.item(5, 0).text()) > 0 and table.item(5, 1).text() == "0"


def test_lock_stops_capture_and_unlock_resumes_it(
    qtbot: QtBot,
    demo: MemoryService,
    clock: ManualClock,
    data_dir: Path,
    folders: dict[str, Path],
) -> None:
    """Locking closes the store, so capture stops first; after Unlock the window
    captures again on the reopened store, as it was left."""
    from tests.conftest import PASSPHRASE

    opened: list[MemoryService] = []

    def unlock() -> MemoryService:
        opened.append(
            MemoryService.open(data_dir, passphrase=PASSPHRASE, clock=clock, prefer_keyring=False)
        )
        return opened[-1]

    capture = DesktopCapture(interval=0.1, folders=folders)
    win = MainWindow(demo, now=clock.now, unlock=unlock, connectors=Connectors(capture=capture))
    qtbot.addWidget(win)
    win.show()
    panel = _agents(qtbot, win)
    _click(qtbot, panel.capture_checks["codex"])
    assert capture.running("codex")
    qtbot.waitUntil(win.lock_action.isEnabled, timeout=TIMEOUT)
    win.lock_action.trigger()  # File > Lock
    assert win.locked and not capture.running("codex")
    _click(qtbot, win.unlock_button)
    assert not win.locked and len(opened) == 1
    win.nav.setCurrentRow(SETTINGS)
    qtbot.waitUntil(lambda: capture.running("codex"), timeout=TIMEOUT)
    assert win.settings.agents.capture_checks["codex"].isChecked()
    capture.stop_all()
    win.close()
    opened[0].close()


def _daemon(data_dir: Path, runtime: Path, passphrase: str | None) -> subprocess.Popen[bytes]:
    """The hooks' daemon for the store, started as a hook starts it."""
    env = {k: v for k, v in os.environ.items() if k != "MEMORY_CENTER_PASSPHRASE"}
    env.update(XDG_RUNTIME_DIR=str(runtime), MEMORY_CENTER_EMBEDDER="hashing")
    if passphrase is not None:
        env["MEMORY_CENTER_PASSPHRASE"] = passphrase
    return subprocess.Popen(
        [sys.executable, "-m", "app.hooks.daemon", "--data-dir", str(data_dir), "--idle", "60"],
        env=env,
        cwd=REPO_ROOT,
    )


def test_the_hooks_failure_to_open_the_store_is_said_with_what_to_do(
    qtbot: QtBot,
    agents_window: MainWindow,
    demo: MemoryService,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A daemon started without the passphrase (as from a Claude Code that lacks it) cannot
    open the store: Settings names the cause and the fix; once a daemon opens the store, the
    warning goes away (#42)."""
    data_dir = Path(demo.status().path).parent
    with tempfile.TemporaryDirectory(prefix="mcs") as folder:
        runtime = Path(folder)
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
        panel = _agents(qtbot, agents_window)
        assert panel.hooks_problem.isHidden()
        assert _daemon(data_dir, runtime, None).wait(timeout=120) == 1
        panel.refresh()
        text = panel.hooks_problem.text()
        assert panel.hooks_problem.isVisible()
        assert "could not open this store" in text and "without memory" in text
        assert "MEMORY_CENTER_PASSPHRASE" in text and "new Claude Code session" in text
        assert "Details: " in text  # the store's own words follow
        daemon = _daemon(data_dir, runtime, PASSPHRASE)
        try:
            qtbot.waitUntil(lambda: not list(runtime.rglob("*.error")), timeout=60_000)
        finally:
            daemon.terminate()
            daemon.wait(timeout=60)
        panel.refresh()
        assert panel.hooks_problem.isHidden(), (panel.hooks_problem.text(), list(runtime.iterdir()))


def test_a_wrong_passphrase_is_told_apart_from_a_missing_one(
    qtbot: QtBot, agents_window: MainWindow, demo: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    data_dir = Path(demo.status().path).parent
    with tempfile.TemporaryDirectory(prefix="mcs") as folder:
        runtime = Path(folder)
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
        assert _daemon(data_dir, runtime, "not the passphrase").wait(timeout=120) == 1
        panel = _agents(qtbot, agents_window)
        text = panel.hooks_problem.text()
        assert "does not open this store" in text and "Correct MEMORY_CENTER_PASSPHRASE" in text


def test_a_project_folder_is_trusted_and_withdrawn_from_settings(
    qtbot: QtBot,
    agents_window: MainWindow,
    demo: MemoryService,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A folder naming a project the store holds from elsewhere is kept apart; Trust this
    folder confirms it (the same command as `hook trust`), Stop trusting withdraws it, and
    the confirmed folders are counted per project."""
    monkeypatch.setenv("MEMORY_CENTER_USER", "alice")
    demo.memories.remember({"user": "alice", "project": "billing-service"}, "Deploys use make.")
    folder = tmp_path / "clones" / "billing-service"
    (folder / ".git").mkdir(parents=True)
    panel = _agents(qtbot, agents_window)
    box = panel.folder_box
    assert box.trust.isHidden() and box.withdraw.isHidden()  # no folder chosen yet
    qtbot.keyClicks(panel.project.edit, str(folder))
    qtbot.waitUntil(lambda: "kept as 'billing-service@" in box.standing.text(), timeout=TIMEOUT)
    assert box.trust.isEnabled() and not box.withdraw.isEnabled()
    assert "No folder is confirmed" in box.summary.text()
    _click(qtbot, box.trust)
    qtbot.waitUntil(lambda: "speaks for project 'billing-service'" in box.standing.text())
    qtbot.waitUntil(lambda: "billing-service (1)" in box.summary.text(), timeout=TIMEOUT)
    assert box.withdraw.isEnabled() and not box.trust.isEnabled()
    assert "now speaks for project 'billing-service'" in agents_window.message.text()
    assert list(demo.agents.places()) == ["billing-service"]
    _click(qtbot, box.withdraw)
    qtbot.waitUntil(lambda: "kept as 'billing-service@" in box.standing.text(), timeout=TIMEOUT)
    qtbot.waitUntil(lambda: "No folder is confirmed" in box.summary.text(), timeout=TIMEOUT)
    assert demo.agents.places() == {}


def test_a_broken_folder_config_is_said_and_nothing_can_be_trusted(
    qtbot: QtBot, agents_window: MainWindow, tmp_path: Path
) -> None:
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / ".memory-center.toml").write_text("[memory\nproject = 3", encoding="utf-8")
    panel = _agents(qtbot, agents_window)
    qtbot.keyClicks(panel.project.edit, str(folder))
    qtbot.waitUntil(lambda: "Cannot tell:" in panel.folder_box.standing.text(), timeout=TIMEOUT)
    assert "memory-center.toml" in panel.folder_box.standing.text()
    assert not panel.folder_box.trust.isEnabled() and not panel.folder_box.withdraw.isEnabled()
