"""Windows fit the screen: a window larger than the screen hides its own status bar.

Laid out for 1280x800 and 1920x1080. The first start (no saved geometry) opens at 1280x800
when that fits with the window frame, else maximized; a saved geometry that no longer fits
(a smaller screen now) is treated the same. Headless platforms (tests, benchmarks) have no
screen to fit and keep the plain default size.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

DEFAULT_SIZE = (1280, 800)
FRAME_ALLOWANCE = 60  # title bar and borders of a typical window manager
HEADLESS = ("offscreen", "minimal")


def fit_to_screen(window: QWidget, geometry: QByteArray | None) -> None:
    """Restore `geometry` (saved by `saveGeometry`) or size `window` for its screen."""
    restored = geometry is not None and window.restoreGeometry(geometry)
    if QGuiApplication.platformName() in HEADLESS:
        if not restored:
            window.resize(*DEFAULT_SIZE)
        return
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        return
    room = screen.availableGeometry()
    size = window.size() if restored else None
    width, height = (size.width(), size.height()) if size is not None else DEFAULT_SIZE
    if width > room.width() or height + FRAME_ALLOWANCE > room.height():
        window.resize(min(width, room.width()), max(400, room.height() - FRAME_ALLOWANCE))
        window.setWindowState(window.windowState() | Qt.WindowState.WindowMaximized)
    elif not restored:
        window.resize(width, height)
