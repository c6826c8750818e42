"""Disabled actions look disabled: Delete… on a deleted memory, Lock when unavailable (#14
defect 8). Judged on the rendered pixels with the application's stylesheet."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from core import MemoryService
from tests.ui.conftest import TIMEOUT, find
from tests.ui.test_detail import _show

from ui.main_window import MainWindow
from ui.style import LIGHT, apply_style


@pytest.fixture
def styled(qapp: QApplication) -> Iterator[None]:
    palette, sheet = qapp.palette(), qapp.styleSheet()
    apply_style(qapp, dark=False)
    yield
    qapp.setStyleSheet(sheet)
    qapp.setPalette(palette)


def _pixels(image: QImage, rect: QRect | None = None) -> list[QColor]:
    area = rect or image.rect()
    return [
        image.pixelColor(x, y)
        for x in range(area.left(), area.right(), 1)
        for y in range(area.top(), area.bottom(), 1)
    ]


def _near(colour: QColor, hex_code: str, tolerance: int = 40) -> bool:
    want = QColor(hex_code)
    return (
        abs(colour.red() - want.red())
        + abs(colour.green() - want.green())
        + abs(colour.blue() - want.blue())
        < tolerance
    )


def _darkest(pixels: list[QColor]) -> int:
    return min(p.lightness() for p in pixels)


def test_delete_on_a_deleted_memory_is_grey(
    qtbot: QtBot, styled: None, window: MainWindow, demo: MemoryService
) -> None:
    """The danger red is gone from a disabled Delete… button (a purged memory: a memory
    deleted but not purged offers its purge, #43)."""
    panel = _show(qtbot, window, demo, "pnpm for every")
    button = panel.delete_button
    assert button.isEnabled()
    assert any(_near(p, LIGHT["danger"]) for p in _pixels(button.grab().toImage()))
    demo.review.delete(find(demo, "pnpm for every").id, reason="test", purge=True)
    qtbot.waitUntil(lambda: not button.isEnabled(), timeout=TIMEOUT)
    assert not any(_near(p, LIGHT["danger"]) for p in _pixels(button.grab().toImage()))


@pytest.mark.qt_log_ignore(".*plugin does not support.*")
def test_lock_menu_item_is_grey_when_unavailable(
    qtbot: QtBot, styled: None, window: MainWindow
) -> None:
    """Without a way to unlock, Lock is disabled, and its text is lighter than Refresh's."""
    assert not window.lock_action.isEnabled()
    menu = window.menuBar().actions()[0].menu()
    menu.popup(window.mapToGlobal(window.rect().center()))
    qtbot.waitExposed(menu)
    image = menu.grab().toImage()
    refresh = next(a for a in menu.actions() if a.isEnabled() and a.text())
    enabled_ink = _darkest(_pixels(image, menu.actionGeometry(refresh)))
    disabled_ink = _darkest(_pixels(image, menu.actionGeometry(window.lock_action)))
    menu.close()
    assert disabled_ink > enabled_ink + 60
