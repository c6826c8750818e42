"""Value widgets take the mouse wheel only when they have the keyboard focus.

Scrolling a page with the wheel passed over a combo box, spin box or slider changed it: the
Language box switched the interface to Chinese, the expiry box lost two days. One event filter
on the application (so every widget made later is covered too) makes these widgets take focus
on a click or Tab only, and passes an unfocused wheel on to what scrolls around them.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractSlider, QAbstractSpinBox, QComboBox, QWidget

GUARDED = (QComboBox, QAbstractSpinBox, QAbstractSlider)


class WheelGuard(QObject):
    """The application's filter: see the module docstring."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Every event of the application passes here: the cheap test first (asking an
        # event its type builds a Python enum, a noticeable cost over thousands of events).
        if not isinstance(watched, GUARDED):
            return False
        kind = event.type()
        if kind not in (QEvent.Type.Wheel, QEvent.Type.Polish):
            return False
        assert isinstance(watched, QWidget)
        if watched.focusPolicy() == Qt.FocusPolicy.WheelFocus:
            # A wheel would first give the widget focus, then change it.
            watched.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        if kind == QEvent.Type.Wheel and not watched.hasFocus():
            # Not for this widget: ignored, the event goes on to its parents (the scroll
            # area), as Qt propagates an ignored wheel event.
            event.ignore()
            return True
        return False


def install_wheel_guard(app: QCoreApplication) -> None:
    """Install the guard on `app` once (later calls do nothing)."""
    if not app.property("wheel_guard"):  # a property: no search through every object
        app.installEventFilter(WheelGuard(app))
        app.setProperty("wheel_guard", True)
