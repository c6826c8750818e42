"""Start the desktop memory center: a window at once, the engine behind a progress state.

Nothing heavy happens before the first paint: the start window needs only Qt, the
stylesheet and the translation. Then, on a worker thread, the engine is imported, the store
opened (the passphrase dialog comes up on the UI thread when no keyring or environment
passphrase holds the key) and the main window's modules loaded; the main window then
replaces the start window.

On the very first run (no store yet) the start window offers the choice: explore a demo
store (sample data of made-up people, in a store of its own next to the user's, which no
agent of the user ever reads) or start with an empty store. `memory-center gui --demo`
opens the demo directly. The demo's window says so in its title and status bar.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ui.i18n import install_translator
from ui.shell import navigation, side_column
from ui.style import apply_style
from ui.wheel_guard import install_wheel_guard
from ui.window_fit import fit_to_screen

Opened = tuple[Any, Any]
"""(the opened MemoryService, the MainWindow class) from the worker."""


class _Relay(QObject):
    """Carries the worker's result to the UI thread."""

    done = Signal(object)
    failed = Signal(object)


def store_exists(data_dir: Path) -> bool:
    """True when `data_dir` already holds a store (so this is not the first run)."""
    return data_dir.is_dir() and any(data_dir.iterdir())


class StartWindow(QMainWindow):
    """The window shown at once: progress while the engine loads, or the first-run choice.

    Signals:
        chosen: (bool) the first-run choice was made; True for the demo store.
    """

    chosen = Signal(bool)

    def __init__(self) -> None:
        super().__init__()
        self.setWindowTitle(self.tr("Memory Center"))
        self.setAccessibleName(self.tr("Memory Center is starting"))
        self.pages = QStackedWidget()
        self.pages.addWidget(self._progress_page())
        self.pages.addWidget(self._choice_page())
        self.setCentralWidget(self.pages)
        # The main window's menus, not usable yet: its frame keeps its place at the hand-over.
        for title in (
            QCoreApplication.translate("MainWindow", "&File"),
            QCoreApplication.translate("MainWindow", "&View"),
            QCoreApplication.translate("MainWindow", "&Edit"),
        ):
            self.menuBar().addMenu(title).setEnabled(False)
        fit_to_screen(self, QSettings().value("main_window/geometry"))
        self.closed_by_user = False
        self._handing_over = False

    def _progress_page(self) -> QWidget:
        """The main window's frame (its side column, pages not yet usable) with the
        progress in place of the timeline: what the user sees is the memory center from
        the first paint, and the main window takes its place without a jump."""
        page = QWidget()
        page.setObjectName("Central")
        self.nav = navigation()
        self.nav.setEnabled(False)
        self.nav.setCurrentRow(0)
        content = QWidget()
        title = QLabel(self.tr("Memory Center"))
        title.setObjectName("ViewTitle")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.progress_text = QLabel(self.tr("Starting…"))
        self.progress_text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.progress_text.setAccessibleName(self.tr("Start-up progress"))
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)
        self.progress.setTextVisible(False)
        self.progress.setFixedWidth(320)
        box = QVBoxLayout(content)
        box.addStretch(2)
        box.addWidget(title)
        box.addWidget(self.progress_text)
        box.addWidget(self.progress, 0, Qt.AlignmentFlag.AlignHCenter)
        box.addStretch(3)
        frame = QHBoxLayout(page)
        frame.setContentsMargins(0, 0, 0, 0)
        frame.setSpacing(0)
        frame.addWidget(side_column(self.nav))
        frame.addWidget(content, 1)
        return page

    def _choice_page(self) -> QWidget:
        page = QWidget()
        page.setObjectName("Central")
        title = QLabel(self.tr("Welcome to Memory Center"))
        title.setObjectName("ViewTitle")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        intro = QLabel(
            self.tr(
                "Memory Center keeps what your AI agents remember about you, encrypted on "
                "this computer, and lets you see, correct and control it."
            )
        )
        intro.setWordWrap(True)
        intro.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.demo_button = QPushButton(self.tr("Explore a demo store"))
        self.demo_button.setToolTip(
            self.tr(
                "Sample memories of made-up people, in a separate store. Your agents never "
                "see it, and your own store stays empty."
            )
        )
        self.empty_button = QPushButton(self.tr("Start with an empty store"))
        self.empty_button.setObjectName("Primary")
        self.empty_button.setToolTip(
            self.tr("Your own store: it fills as your agents and you add memories.")
        )
        self.demo_button.clicked.connect(lambda: self.chosen.emit(True))
        self.empty_button.clicked.connect(lambda: self.chosen.emit(False))
        cards = QHBoxLayout()
        cards.addStretch(1)
        for button, text in (
            (
                self.demo_button,
                self.tr("Look around with sample memories first (a separate demo store)."),
            ),
            (self.empty_button, self.tr("Your own memory store, empty for now.")),
        ):
            card = QWidget()
            card.setObjectName("ChoiceCard")
            col = QVBoxLayout(card)
            about = QLabel(text)
            about.setWordWrap(True)
            about.setFixedWidth(300)
            button.setMinimumHeight(44)
            col.addWidget(button)
            col.addWidget(about)
            cards.addWidget(card)
        cards.addStretch(1)
        box = QVBoxLayout(page)
        box.addStretch(2)
        box.addWidget(title)
        box.addWidget(intro)
        box.addSpacing(24)
        box.addLayout(cards)
        box.addStretch(3)
        return page

    def show_progress(self, text: str) -> None:
        """Say what is loading now."""
        self.pages.setCurrentIndex(0)
        self.progress_text.setText(text)

    def ask_choice(self) -> None:
        """Show the first-run choice."""
        self.pages.setCurrentIndex(1)
        self.empty_button.setFocus()

    def hand_over(self) -> None:
        """Close for the main window (not a user's close)."""
        self._handing_over = True
        self.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        """A user closing the start window ends the application."""
        if not self._handing_over:
            self.closed_by_user = True
        super().closeEvent(event)


def _in_background(
    work: Callable[[], Any], done: Callable[[Any], None], failed: Callable[[Any], None]
) -> _Relay:
    relay = _Relay()
    relay.done.connect(done)
    relay.failed.connect(failed)

    def run() -> None:
        try:
            value = work()
        except BaseException as exc:  # delivered to the UI thread, shown there
            relay.failed.emit(exc)
            return
        relay.done.emit(value)

    threading.Thread(target=run, name="mc-start", daemon=True).start()
    return relay


def take_place_of(window: QWidget, start: QWidget) -> None:
    """Show `window` exactly where the start window is (same place, size and state), so the
    hand-over does not make the window jump."""
    if start.isVisible():
        if start.isMaximized():
            window.showMaximized()
            return
        window.setGeometry(start.geometry())
    window.show()


class Starter(QObject):
    """Drives the start: choice, opening the store, handing over to the main window."""

    def __init__(self, app: QApplication, data_dir: Path, *, demo: bool) -> None:
        super().__init__()
        self.app = app
        self.data_dir = data_dir
        self.demo = demo
        self.window = StartWindow()
        self.main_window: Any = None
        self.exit_code = 0
        self._relays: list[_Relay] = []
        self.window.chosen.connect(self._chosen)

    def begin(self) -> None:
        """Show the start window, then decide what to open once it has painted."""
        self.window.show()
        QTimer.singleShot(0, self._decide)

    def _decide(self) -> None:
        if self.demo:
            self._open(demo=True)
        elif store_exists(self.data_dir):
            self._open(demo=False)
        else:
            self.window.ask_choice()

    def _chosen(self, demo: bool) -> None:
        self.demo = demo
        self._open(demo=demo)

    def _open(self, *, demo: bool) -> None:
        self.window.show_progress(
            self.window.tr("Opening the demo store…")
            if demo
            else self.window.tr("Opening your memory store…")
        )
        data_dir = self.data_dir

        def work() -> Opened:
            # Everything the hand-over needs is imported here, off the UI thread: the
            # importers and connectors (`_show_main`) took 0.7 s of the loop's time there.
            import app.gui
            import app.gui_connectors  # noqa: F401
            from app.compose import open_service
            from app.demo import open_demo
            from core import KeyUnavailableError

            from ui.main_window import MainWindow

            if demo:
                return open_demo(data_dir), MainWindow
            try:
                return open_service(data_dir, create=True, graph_on_demand=True), MainWindow
            except KeyUnavailableError as exc:
                return exc, MainWindow

        self._relays.append(_in_background(work, self._opened, self._failed))

    def _opened(self, result: Opened) -> None:
        service, window_class = result
        from core import KeyUnavailableError

        if isinstance(service, KeyUnavailableError):
            service = self._ask_passphrase(service)
            if service is None:
                self.app.quit()
                return
        if self.window.closed_by_user:
            service.close()
            return
        self.window.show_progress(self.window.tr("Loading your memories…"))
        # Drawn now: the main window is made on this thread next, and until it shows, this
        # is what the user sees (before, the text was set and never painted, #43).
        self.window.repaint()
        self._show_main(service, window_class)

    def _ask_passphrase(self, problem: BaseException) -> Any:
        from app.gui import passphrase_and_open
        from app.paths import passphrase_from_env

        if passphrase_from_env() is not None:
            self._failed(problem)
            return None
        return passphrase_and_open(self.data_dir, create=True, parent=self.window)

    def _show_main(self, service: Any, window_class: Any) -> None:
        from app.gui import passphrase_and_open, transcript_importers
        from app.gui_connectors import desktop_connectors
        from app.paths import passphrase_from_env

        data_dir = self.data_dir
        can_unlock = not self.demo and passphrase_from_env() is None

        def unlock() -> Any:
            return passphrase_and_open(data_dir, create=False, parent=self.app.activeWindow())

        window = window_class(
            service,
            importers=transcript_importers(),
            unlock=unlock if can_unlock else None,
            connectors=desktop_connectors(data_dir, demo=self.demo),
            demo=self.demo,
            leave_demo=self._leave_demo if self.demo else None,
            quits_on_close=True,
        )
        self.main_window = window
        take_place_of(window, self.window)
        self.window.hand_over()

    def _leave_demo(self) -> None:
        """From the demo to the user's own store (created empty when there is none)."""
        old = self.main_window
        self.demo = False
        self.window = StartWindow()
        self.window.chosen.connect(self._chosen)
        self.window.show()  # before the demo closes, or the application would quit
        old.quits_on_close = False  # the process goes on: its reads end before the close
        old.close()
        if not old.locked:
            old.service.close()
        self.main_window = None
        self._open(demo=False)

    def _failed(self, exc: BaseException) -> None:
        from PySide6.QtWidgets import QMessageBox

        message = str(getattr(exc, "message", exc))
        QMessageBox.critical(
            self.window, self.window.tr("Memory Center cannot open the store"), message
        )
        self.exit_code = 1
        self.app.quit()


def settings_dir(data_dir: Path) -> Path:
    """Where the window keeps its settings for the store at `data_dir`: beside it (inside
    would make an empty store look used), one place per store."""
    return data_dir.parent / f"{data_dir.name}.window-settings"


def use_store_settings(data_dir: Path) -> None:
    """Keep language, theme, window size and splitter sizes per store: `QSettings()` then
    reads and writes an ini file of the store's own (`settings_dir`), whatever store
    another window or `MEMORY_CENTER_DATA_DIR` chose."""
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(
        QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(settings_dir(data_dir))
    )


def start_gui(data_dir: Path, *, demo: bool = False, argv: list[str] | None = None) -> int:
    """Run the desktop memory center until its last window closes; the exit code."""
    app = QApplication.instance() or QApplication(argv if argv is not None else sys.argv)
    assert isinstance(app, QApplication)
    app.setOrganizationName("Memory Center")
    app.setApplicationName("Memory Center")
    use_store_settings(data_dir)
    app.setDesktopFileName("memory-center")  # Wayland app id: packaging/memory-center.desktop
    install_translator(app)
    apply_style(app)
    install_wheel_guard(app)
    starter = Starter(app, data_dir, demo=demo)
    starter.begin()
    code = app.exec()
    window = starter.main_window
    if window is not None and not window.locked:
        # The user quit: do not go on embedding for a window that is gone (the next start
        # embeds what is missing).
        window.service.close(embed_seconds=0.0)
    return int(code or starter.exit_code)
