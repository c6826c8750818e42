"""The window over a store on a server: live refresh by NOTIFY, and "offline, N changes
waiting" while the server is away (R21, R23, #12). The server is really crashed."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication
from pytestqt.qtbot import QtBot

from core import MemoryService, NewEvent, WriteSpooledError
from tests.support.postgres import PostgresServer

from ui.i18n import install_translator
from ui.main_window import MainWindow

PASSPHRASE = "test passphrase for memory center"
TIMEOUT = 20_000


def _open(data_dir: Path, url: str | None) -> MemoryService:
    return MemoryService.open(
        data_dir, passphrase=PASSPHRASE, prefer_keyring=False, database_url=url
    )


def _window(qtbot: QtBot, service: MemoryService) -> MainWindow:
    win = MainWindow(service)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.bus.revision >= 0, timeout=TIMEOUT)
    return win


def _event(text: str) -> NewEvent:
    return NewEvent(session="s", actor="user", trust="user", scope={"user": "ann"}, text=text)


def test_badge_counts_waiting_changes_and_goes_when_the_server_returns(
    qtbot: QtBot,
    qapp: QCoreApplication,
    pg_crash_server: PostgresServer,
    pg_crash_url: str,
    tmp_path: Path,
) -> None:
    service = _open(tmp_path / "a", pg_crash_url)
    win = _window(qtbot, service)
    assert not win.offline_badge.isVisible()
    pg_crash_server.stop("immediate")
    for text in ("first", "second"):
        with pytest.raises(WriteSpooledError):
            service.events.append_event(_event(text))
    badge = win.offline_badge
    qtbot.waitUntil(
        lambda: badge.isVisible() and badge.text() == "offline, 2 changes waiting",
        timeout=TIMEOUT,
    )
    install_translator(qapp, "zh_CN")
    qtbot.waitUntil(lambda: badge.text() == "离线，2 项更改等待同步", timeout=TIMEOUT)
    install_translator(qapp, "en")
    qtbot.waitUntil(lambda: badge.text() == "offline, 2 changes waiting", timeout=TIMEOUT)
    pg_crash_server.restart()
    # The window's poll finds the server again and applies what waited.
    qtbot.waitUntil(lambda: not badge.isVisible(), timeout=TIMEOUT)
    assert [e.text for e in service.events.list_events(session="s")] == ["first", "second"]
    win.close()
    service.close()


def test_another_machines_change_reaches_the_window_without_the_poll(
    qtbot: QtBot, pg_crash_url: str, tmp_path: Path
) -> None:
    other = _open(tmp_path / "a", pg_crash_url)
    raw, code = other.team.invite_member("bob").value
    MemoryService.join(
        tmp_path / "b", raw, code, passphrase=PASSPHRASE, prefer_keyring=False
    ).close()
    service = _open(tmp_path / "b", None)  # a joined device: its own login (#41)
    win = _window(qtbot, service)
    win.poll.stop()  # only the LISTEN waiter is left to notice
    with qtbot.waitSignal(win.bus.changes_applied, timeout=TIMEOUT) as seen:
        other.memories.remember({"user": "ann"}, "The garden hose is behind the garage")
    changes, initiator = seen.args
    assert initiator is None and changes.memory_ids
    win.close()
    service.close()
    other.close()
