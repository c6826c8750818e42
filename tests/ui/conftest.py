"""UI fixtures: a main window over a real (demo-seeded) store, isolated Qt settings."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QSettings
from pytestqt.qtbot import QtBot

from app.demo import seed_demo_if_empty
from core import ManualClock, MemoryRecord, MemoryService

from ui.i18n import install_translator
from ui.main_window import MainWindow

TIMEOUT = 5000


@pytest.fixture(autouse=True)
def _isolated_qsettings(tmp_path: Path) -> Iterator[None]:
    """Window geometry and language go to a temporary ini file, never the user's."""
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "qs"))
    QCoreApplication.setOrganizationName("MemoryCenterTests")
    QCoreApplication.setApplicationName("ui-tests")
    yield


@pytest.fixture(autouse=True)
def _english(qapp: QCoreApplication) -> None:
    """The English catalogue (its plural forms), as the application installs it."""
    install_translator(qapp, "en")


@pytest.fixture
def demo(service: MemoryService) -> MemoryService:
    """The service with the demo data loaded."""
    seed_demo_if_empty(service)
    return service


@pytest.fixture
def window(qtbot: QtBot, demo: MemoryService, clock: ManualClock) -> MainWindow:
    """The main window over the demo store, with the test clock."""
    win = MainWindow(demo, now=clock.now)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.timeline.model.item_count > 0, timeout=TIMEOUT)
    return win


def find(service: MemoryService, needle: str) -> MemoryRecord:
    """The one record whose content contains `needle`."""
    found = [r for r in service.memories.list_memories() if needle in r.content]
    assert len(found) == 1, [r.content for r in found]
    return found[0]


def status_of(service: MemoryService, needle: str) -> str:
    """The stored status of the record containing `needle`."""
    return find(service, needle).status.value


def wait_status(qtbot: QtBot, service: MemoryService, needle: str, status: str) -> None:
    """Wait until the store says the record has `status`."""
    qtbot.waitUntil(lambda: status_of(service, needle) == status, timeout=TIMEOUT)


Waiter = Callable[[Callable[[], bool]], None]
