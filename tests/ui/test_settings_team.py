"""Settings → Team and devices: invite a device, join with the invitation (a wrong code is
said to be wrong and the dialog stays open), remove a member with key rotation (#12, R24).

The team store is on a real, throwaway PostgreSQL server (skipped without one)."""

from __future__ import annotations

import datetime as dt
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from app.gui_connectors import desktop_connectors
from core import ManualClock, MemoryService
from tests.conftest import PASSPHRASE
from tests.ui.conftest import TIMEOUT

from ui.main_window import SETTINGS, MainWindow
from ui.views.settings.team import TeamPanel

LAPTOP_PASSPHRASE = "the laptop's own passphrase"


def _team(qtbot: QtBot, window: MainWindow) -> TeamPanel:
    window.nav.setCurrentRow(SETTINGS)
    panel = window.settings.team
    qtbot.waitUntil(lambda: bool(panel.intro.text()), timeout=TIMEOUT)
    return panel


def _click(qtbot: QtBot, widget: object) -> None:
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)  # type: ignore[arg-type]


def _type(qtbot: QtBot, edit: object, text: str) -> None:
    edit.selectAll()  # type: ignore[attr-defined]
    qtbot.keyClick(edit, Qt.Key.Key_Delete)  # type: ignore[arg-type]
    qtbot.keyClicks(edit, text)  # type: ignore[arg-type]


def test_local_store_explains_and_offers_only_join(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """A store in a local file has no members: Invite and Remove are off, with the reason."""
    panel = _team(qtbot, window)
    assert "file on this computer" in panel.intro.text()
    assert not panel.invite_button.isEnabled() and not panel.remove_button.isEnabled()
    assert "database server" in panel.invite_button.toolTip()
    assert not panel.table.isVisible()


def _error_box(qtbot: QtBot, parent: QWidget) -> QMessageBox:
    def found() -> list[QMessageBox]:
        return [
            b
            for b in parent.findChildren(QMessageBox)
            if b.accessibleName() == "Error message" and b.isVisible()
        ]

    qtbot.waitUntil(lambda: bool(found()), timeout=TIMEOUT)
    return found()[0]


def test_join_with_a_file_that_is_not_an_invitation(
    qtbot: QtBot, demo: MemoryService, clock: ManualClock, tmp_path: Path
) -> None:
    """A file that is not an invitation is one line in the dialog, which stays open; no
    store is created."""
    win = MainWindow(demo, now=clock.now, connectors=desktop_connectors(tmp_path / "unused"))
    qtbot.addWidget(win)
    win.show()
    panel = _team(qtbot, win)
    junk = tmp_path / "holiday.jpg"
    junk.write_bytes(b"\xff\xd8\xff not an invitation")
    _click(qtbot, panel.join_button)
    join = panel.join_dialog
    assert join is not None
    qtbot.waitExposed(join)
    # #43: the proposed folder is beside the store's own, not a guess in the home folder.
    assert join.folder.edit.text() == str(tmp_path / "team-store")
    qtbot.waitUntil(join.file.edit.hasFocus, timeout=TIMEOUT)
    qtbot.keyClick(join.file.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert join.problem.text() == "Choose the invitation file."
    qtbot.keyClicks(join.file.edit, str(junk))
    qtbot.keyClicks(join.code, "AAAAA-BBBBB-CCCCC-DDDDD")
    _type(qtbot, join.folder.edit, str(tmp_path / "team"))
    qtbot.keyClicks(join.passphrase, LAPTOP_PASSPHRASE)
    _click(qtbot, join.buttons.button(join.buttons.StandardButton.Ok))
    qtbot.waitUntil(
        lambda: "holiday.jpg" in join.problem.text() or "invitation" in join.problem.text(),
        timeout=TIMEOUT,
    )
    assert "\n" not in join.problem.text()
    assert join.isVisible() and join.buttons.isEnabled()
    assert not (tmp_path / "team").exists() or not any((tmp_path / "team").iterdir())


@pytest.fixture
def server_window(
    qtbot: QtBot, pg_url: str, tmp_path: Path
) -> Iterator[tuple[MainWindow, MemoryService]]:
    """The window over a store on the PostgreSQL server, with the application's connectors.

    Its clock starts now, not at the tests' fixed start: the Join dialog joins on this
    machine's real clock, and an invitation expires 72 hours after it was made (#41)."""
    clock = ManualClock(dt.datetime.now(dt.UTC))
    service = MemoryService.open(
        tmp_path / "desktop",
        passphrase=PASSPHRASE,
        clock=clock,
        prefer_keyring=False,
        database_url=pg_url,
    )
    win = MainWindow(service, now=clock.now, connectors=desktop_connectors(tmp_path / "desktop"))
    qtbot.addWidget(win)
    win.show()
    yield win, service
    win.close()
    service.close()


def _invite(qtbot: QtBot, panel: TeamPanel, name: str, target: Path) -> str:
    _click(qtbot, panel.invite_button)
    dialog = panel.invite_dialog
    assert dialog is not None
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(dialog.name.hasFocus, timeout=TIMEOUT)
    qtbot.keyClicks(dialog.name, name)
    assert dialog.file.edit.text().endswith(f"{name}.mc-invitation")
    _type(qtbot, dialog.file.edit, str(target))
    qtbot.keyClick(dialog.name, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: panel.code_box is not None, timeout=TIMEOUT)
    box = panel.code_box
    assert box is not None
    found = re.search(r"[0-9A-Z]{5}(?:-[0-9A-Z]{5})+", box.text())
    assert found is not None and name in box.text()
    code = found.group(0)
    assert str(target) in box.informativeText()
    box.button(QMessageBox.StandardButton.Ok).click()
    return code


def test_invite_join_and_remove(
    qtbot: QtBot, server_window: tuple[MainWindow, MemoryService], tmp_path: Path
) -> None:
    window, service = server_window
    panel = _team(qtbot, window)
    qtbot.waitUntil(panel.invite_button.isEnabled, timeout=TIMEOUT)
    assert "share this store" in panel.intro.text()
    # A name the store refuses is one error; no file is written, nobody is invited.
    refused = tmp_path / "refused.mc-invitation"
    _click(qtbot, panel.invite_button)
    dialog = panel.invite_dialog
    assert dialog is not None
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(dialog.name.hasFocus, timeout=TIMEOUT)
    qtbot.keyClicks(dialog.name, "k" * 201)  # longer than a name may be
    _type(qtbot, dialog.file.edit, str(refused))
    qtbot.keyClick(dialog.name, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    box = _error_box(qtbot, panel)
    assert "name" in box.informativeText()
    box.button(QMessageBox.StandardButton.Ok).click()
    # Listed from the start: this device's member, who created the store.
    assert not refused.exists() and [m.founder for m in service.team.members()] == [True]
    qtbot.waitUntil(lambda: panel.table.rowCount() == 1, timeout=TIMEOUT)
    panel.table.selectRow(0)
    assert not panel.remove_button.isEnabled()  # whoever created the store stays
    assert "created the store" in panel.remove_button.toolTip()
    target = tmp_path / "kim.mc-invitation"
    code = _invite(qtbot, panel, "kim-laptop", target)
    assert target.exists() and stat.S_IMODE(os.stat(target).st_mode) == 0o600
    qtbot.waitUntil(lambda: panel.table.rowCount() == 2, timeout=TIMEOUT)
    assert panel.table.item(0, 0).text() == "kim-laptop"  # by name: kim-laptop, owner
    assert panel.table.item(0, 1).text() == "invited, not joined yet"

    # Join (as the laptop would): a wrong code keeps the dialog open and says so.
    _click(qtbot, panel.join_button)
    join = panel.join_dialog
    assert join is not None
    qtbot.waitExposed(join)
    qtbot.keyClicks(join.file.edit, str(target))
    qtbot.keyClicks(join.code, "WRONG-CODE-1234")
    _type(qtbot, join.folder.edit, str(tmp_path / "laptop"))
    qtbot.keyClicks(join.passphrase, LAPTOP_PASSPHRASE)
    _click(qtbot, join.buttons.button(join.buttons.StandardButton.Ok))
    qtbot.waitUntil(lambda: "code is wrong" in join.problem.text(), timeout=20_000)
    assert join.isVisible() and not (tmp_path / "laptop" / "memory-center.sqlite3").exists()
    _type(qtbot, join.code, code)
    _click(qtbot, join.buttons.button(join.buttons.StandardButton.Ok))
    qtbot.waitUntil(lambda: panel.joined_box is not None, timeout=30_000)
    assert str(tmp_path / "laptop") in panel.joined_box.text()  # type: ignore[union-attr]
    panel.joined_box.button(QMessageBox.StandardButton.Ok).click()  # type: ignore[union-attr]
    with MemoryService.open(
        tmp_path / "laptop", passphrase=LAPTOP_PASSPHRASE, prefer_keyring=False
    ) as laptop:
        assert laptop.status().store_id == service.status().store_id
    qtbot.waitUntil(lambda: panel.table.item(0, 2).text() == "1 device", timeout=10_000)

    # Remove: confirmation (Cancel is the default), then the key rotates past the member.
    old_key = service.keys.info().active_key_id
    panel.table.selectRow(0)
    assert panel.remove_button.isEnabled()
    _click(qtbot, panel.remove_button)
    box = panel.remove_confirmation
    assert box is not None
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
    box.button(QMessageBox.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: "kim-laptop removed" in window.message.text(), timeout=30_000)
    assert service.keys.info().active_key_id != old_key
    # Removed members go last: the owner, then kim-laptop.
    qtbot.waitUntil(lambda: panel.table.item(1, 1).text().startswith("removed"), timeout=10_000)
    assert panel.table.item(1, 0).text() == "kim-laptop"
    assert panel.table.item(1, 2).text() == "revoked"
    panel.table.selectRow(1)
    assert not panel.remove_button.isEnabled()
