"""The main window's frame, without a store: its side column (title and page list).

The start window draws the same frame while the engine loads and the store opens, so the
window a user sees within a second of launch (or of unlocking) is already the memory
center's, and the main window takes its place without a jump (#43). Only Qt is imported
here: this module is on the path to the first paint.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from ui.presentation import icon


def page_titles() -> list[tuple[str, str]]:
    """(icon name, title) of the main window's pages, in the navigation's order."""
    # Context "MainWindow": the main window and the start window share these texts.
    return [
        ("nav-timeline", QCoreApplication.translate("MainWindow", "Timeline")),
        ("nav-review", QCoreApplication.translate("MainWindow", "Review queue")),
        ("nav-sessions", QCoreApplication.translate("MainWindow", "Sessions")),
        ("nav-settings", QCoreApplication.translate("MainWindow", "Settings")),
        ("nav-sessions", QCoreApplication.translate("MainWindow", "Agents")),
    ]


def navigation() -> QListWidget:
    """The page list, one item per page."""
    nav = QListWidget()
    nav.setObjectName("Nav")
    nav.setAccessibleName(QCoreApplication.translate("MainWindow", "Navigation"))
    for name, title in page_titles():
        QListWidgetItem(icon(name), title, nav)
    return nav


def side_column(nav: QListWidget) -> QWidget:
    """The side column: the application's name above the page list."""
    side = QWidget()
    side.setObjectName("Side")
    column = QVBoxLayout(side)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(0)
    title = QLabel(QCoreApplication.translate("MainWindow", "Memory Center"))
    title.setObjectName("AppTitle")
    column.addWidget(title)
    column.addWidget(nav, 1)
    return side
