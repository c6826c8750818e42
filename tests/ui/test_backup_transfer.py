"""Settings: backup and transfer (export memories to JSON, import an export file)."""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from core import ManualClock, MemoryService
from tests.conftest import PASSPHRASE
from tests.ui.conftest import TIMEOUT

import ui.views.settings.backup as settings_module
from ui.main_window import REVIEW, SETTINGS, MainWindow
from ui.views.settings.backup import BackupPanel


def _settings(qtbot: QtBot, window: MainWindow) -> BackupPanel:
    window.nav.setCurrentRow(SETTINGS)
    view = window.settings
    qtbot.waitUntil(lambda: bool(view.values["revision"].text()), timeout=TIMEOUT)
    return view.backup


def _export(qtbot: QtBot, view: BackupPanel, path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(view, "choose_export_path", lambda: str(path))
    view.export_button.click()
    box = view.export_confirmation
    assert box is not None
    assert "NOT encrypted" in box.text()
    box.button(QMessageBox.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: path.exists() and view.export_button.isEnabled(), timeout=TIMEOUT)


def _import(qtbot: QtBot, view: BackupPanel, path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(view, "choose_import_path", lambda: str(path))
    view.import_button.click()


def _strip_time(document: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in document.items() if k != "exported_at"}


@pytest.fixture
def second(tmp_path: Path, clock: ManualClock) -> Iterator[MemoryService]:
    """A second, empty store."""
    svc = MemoryService.open(
        tmp_path / "second", passphrase=PASSPHRASE, clock=clock, prefer_keyring=False
    )
    yield svc
    svc.close()


def test_export_writes_private_json(
    qtbot: QtBot,
    window: MainWindow,
    demo: MemoryService,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The export holds exactly what the core exports, as readable UTF-8 JSON, mode 0600."""
    view = _settings(qtbot, window)
    path = tmp_path / "memory-center-export.json"
    _export(qtbot, view, path, monkeypatch)
    written = json.loads(path.read_text(encoding="utf-8"))
    expected = json.loads(json.dumps(demo.memories.export_memories()))
    assert written["memories"] == expected["memories"]
    assert _strip_time(written) == _strip_time(expected)
    assert written["memories"]
    assert path.read_text(encoding="utf-8").startswith("{\n  ")
    if sys.platform != "win32":
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    qtbot.waitUntil(lambda: "exported" in window.message.text(), timeout=TIMEOUT)


def test_export_cancelled_writes_nothing(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cancelling the confirmation writes no file."""
    view = _settings(qtbot, window)
    path = tmp_path / "cancelled.json"
    monkeypatch.setattr(view, "choose_export_path", lambda: str(path))
    view.export_button.click()
    box = view.export_confirmation
    assert box is not None
    box.button(QMessageBox.StandardButton.Cancel).click()
    qtbot.wait(200)
    assert not path.exists()


def test_import_into_same_store_merges(
    qtbot: QtBot,
    window: MainWindow,
    demo: MemoryService,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Importing a store's own export merges every memory into the one already there."""
    path = tmp_path / "export.json"
    count = len(demo.memories.export_memories()["memories"])
    view = _settings(qtbot, window)
    _export(qtbot, view, path, monkeypatch)
    before = len(demo.memories.list_memories())
    _import(qtbot, view, path, monkeypatch)
    qtbot.waitUntil(lambda: "imported" in window.message.text(), timeout=TIMEOUT)
    assert window.message.text().startswith(f"{count} imported: 0 suggested, ")
    assert f"{count} merged" in window.message.text()
    assert len(demo.memories.list_memories()) == before


def test_import_into_fresh_store_suggests(
    qtbot: QtBot,
    window: MainWindow,
    demo: MemoryService,
    second: MemoryService,
    clock: ManualClock,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Another store receives the memories as suggestions; its review badge counts them."""
    path = tmp_path / "export.json"
    _export(qtbot, _settings(qtbot, window), path, monkeypatch)
    exported = {m["content"] for m in json.loads(path.read_text(encoding="utf-8"))["memories"]}
    other = MainWindow(second, now=clock.now)
    qtbot.addWidget(other)
    other.show()
    view = _settings(qtbot, other)
    _import(qtbot, view, path, monkeypatch)
    qtbot.waitUntil(lambda: "imported" in other.message.text(), timeout=TIMEOUT)
    stored = second.memories.list_memories()
    suggested = [r for r in stored if r.status.value in ("candidate", "quarantined")]
    assert suggested
    assert {r.content for r in stored} <= exported
    assert f"{len(exported)} imported: {len(suggested)} suggested" in other.message.text()
    qtbot.waitUntil(
        lambda: other.nav.item(REVIEW).text().endswith(f"   {len(suggested)}"), timeout=TIMEOUT
    )


def test_broken_file_changes_nothing(
    qtbot: QtBot,
    window: MainWindow,
    demo: MemoryService,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A file that is not JSON, or JSON that is not an export, shows the error and imports
    nothing."""
    view = _settings(qtbot, window)
    shown: list[BaseException] = []
    monkeypatch.setattr(settings_module, "show_error", lambda _parent, exc: shown.append(exc))
    revision = demo.events.revision()
    broken = tmp_path / "broken.json"
    broken.write_text("{ this is not json", encoding="utf-8")
    _import(qtbot, view, broken, monkeypatch)
    assert len(shown) == 1 and "JSON" in str(shown[0])
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"format": "something-else", "memories": []}), encoding="utf-8")
    _import(qtbot, view, wrong, monkeypatch)
    qtbot.waitUntil(lambda: len(shown) == 2, timeout=TIMEOUT)
    assert "document" in str(shown[1])
    qtbot.waitUntil(view.import_button.isEnabled, timeout=TIMEOUT)
    assert demo.events.revision() == revision


def test_hostile_file_is_one_error_and_changes_nothing(
    qtbot: QtBot,
    window: MainWindow,
    demo: MemoryService,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A file nested 100,000 levels deep, or holding a lone surrogate or undecodable bytes,
    shows one error naming the problem; nothing is imported (#10)."""
    view = _settings(qtbot, window)
    shown: list[BaseException] = []
    monkeypatch.setattr(settings_module, "show_error", lambda _parent, exc: shown.append(exc))
    revision = demo.events.revision()
    head = b'{"format": "memory-center-export-v1", "memories": [{"content": '
    cases = {
        "deep.json": ("[" * 100_000 + "]" * 100_000).encode(),
        "surrogate.json": head + b'"\\ud800"}]}',
        "latin1.json": head + b'"caf\xe9"}]}',
    }
    for name, content in cases.items():
        path = tmp_path / name
        path.write_bytes(content)
        _import(qtbot, view, path, monkeypatch)
    qtbot.waitUntil(lambda: len(shown) == 3, timeout=TIMEOUT)
    assert "nested deeper" in str(shown[0])
    assert all("UTF-8" in str(exc) for exc in shown[1:])
    qtbot.waitUntil(view.import_button.isEnabled, timeout=TIMEOUT)
    assert demo.events.revision() == revision
