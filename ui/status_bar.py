"""The main window's status bar: the last action with its Undo button, the store status and
the offline and demo badges.

Its texts belong to the main window, so they are translated in the "MainWindow" context
(spelled out at each call, with the literal text, so lupdate finds them).
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QLabel, QPushButton, QSizePolicy, QStatusBar, QWidget

from ui.live import OfflineBadge
from ui.presentation import icon


class MainStatusBar(QStatusBar):
    """The widgets the window writes to: `message`, `undo_button`, `status_label`, badges."""

    def __init__(self, demo: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.message = QLabel()
        self.message.setAccessibleName(QCoreApplication.translate("MainWindow", "Last action"))
        # A long message must never widen the window past the screen.
        self.message.setMinimumWidth(1)
        self.message.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.undo_button = QPushButton(icon("undo"), "")
        self.undo_button.setAccessibleName(
            QCoreApplication.translate("MainWindow", "Undo last action")
        )
        self.undo_button.hide()
        self.status_label = QLabel()
        self.status_label.setAccessibleName(
            QCoreApplication.translate("MainWindow", "Store status")
        )
        self.addWidget(self.message)
        self.addWidget(self.undo_button)
        self.offline_badge = OfflineBadge()
        self.addPermanentWidget(self.offline_badge)
        self.addPermanentWidget(self.status_label)
        self.demo_label = QLabel()
        self.demo_label.setToolTip(
            QCoreApplication.translate(
                "MainWindow", "Sample memories of made-up people, kept apart from your own store."
            )
        )
        self.demo_label.setObjectName("DemoBadge")
        self.demo_label.setVisible(demo)
        self.addPermanentWidget(self.demo_label)
        self.retranslate()

    def retranslate(self) -> None:
        """Write the button and badge texts in the language now installed."""
        self.undo_button.setText(QCoreApplication.translate("MainWindow", "Undo"))
        self.demo_label.setText(QCoreApplication.translate("MainWindow", "DEMO store"))
