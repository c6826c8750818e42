"""The main window: navigation on the left, one view at a time, memory detail at the side.

Follows changes made by this window (through the change bus) and by other processes (through
its `StoreFollower`, `ui/store_follower.py`); views that are not visible only mark themselves
dirty. The status bar says "offline, N changes waiting" while the server is away.

File > Import transcripts… runs importers injected by the application; File > Lock (for a
passphrase-protected key) closes the service and shows a locked page until an injected
`unlock` callable reopens the store, after which every view is rebuilt on the new service.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from core import ChangeKind, Changes, MemoryService, StoreStatus

from ui.changes import ChangeBus, touches_any
from ui.context import Importer, UiContext, Unlock, utc_now
from ui.errors import show_error
from ui.integrations import Connectors
from ui.models.review_model import QueueData, load_queue
from ui.ops import query
from ui.shell import navigation, side_column
from ui.status_bar import MainStatusBar
from ui.store_follower import StoreFollower
from ui.tasks import TaskRunner
from ui.transcript_import import ImportDialog, TranscriptImport
from ui.undo_history import EditMenu
from ui.views.agents_view import AgentsView
from ui.views.base import RefreshingView
from ui.views.detail_panel import DetailPanel
from ui.views.review_view import ReviewView
from ui.views.sessions_view import SessionsView
from ui.views.settings import SettingsView
from ui.views.timeline_view import TimelineView
from ui.wheel_guard import install_wheel_guard
from ui.window_fit import fit_to_screen

MESSAGE_MS = 8000
TIMELINE, REVIEW, SESSIONS, SETTINGS, AGENTS = range(5)
DETAIL_MIN = 300
DETAIL_DEFAULT = 400


def key_words(source: str) -> str:
    """Where the store's key is held, in plain words."""
    words = {
        "keyring": QCoreApplication.translate("MainWindow", "key in the system keyring"),
        "passphrase": QCoreApplication.translate("MainWindow", "key protected by a passphrase"),
    }
    return words.get(source, QCoreApplication.translate("MainWindow", "key loaded"))


class MainWindow(QMainWindow):
    """Top-level window over one `MemoryService`."""

    def __init__(
        self,
        service: MemoryService,
        parent: QWidget | None = None,
        *,
        now: Callable[[], object] | None = None,
        importers: Mapping[str, Importer] | None = None,
        unlock: Unlock | None = None,
        connectors: Connectors | None = None,
        demo: bool = False,
        leave_demo: Callable[[], None] | None = None,
        quits_on_close: bool = False,
    ) -> None:
        super().__init__(parent)
        # The application's own window: its process ends when it closes, so a read still
        # running then is not waited for (its thread ends with the process).
        self.quits_on_close = quits_on_close
        app = QCoreApplication.instance()
        if app is not None:
            install_wheel_guard(app)
        self.demo = demo
        self._leave_demo = leave_demo
        self.service = service
        self.locked = False
        self._now = now or utc_now
        self._importers = dict(importers or {})
        self._unlock = unlock
        self._connectors = connectors or Connectors()
        self._key_source = ""
        self.active_import: TranscriptImport | None = None
        self.active_dialog: QWidget | None = None
        self._retranslating = False
        self.setWindowTitle(
            self.tr("Memory Center — DEMO store (sample data, not yours)")
            if demo
            else self.tr("Memory Center")
        )
        self.setAccessibleName(self.tr("Memory Center main window"))
        self.pages = QStackedWidget()
        self._build_locked_page()
        self.setCentralWidget(self.pages)
        self._build_status_bar()
        self.edit_menu = EditMenu(self)
        self.follower = StoreFollower(self, self.offline_badge)
        self.follower.status_read.connect(self._show_status)
        self.poll = self.follower.poll
        self._open_on(service)
        self._build_menu()
        self._restore()

    def _open_on(self, service: MemoryService) -> None:
        """Build the context and every view over `service`; start following the store."""
        self.service = service
        self.locked = False
        self.tasks = TaskRunner(self)
        self.bus = ChangeBus(self)
        self.ctx = UiContext(
            service,
            self.tasks,
            self.bus,
            self._now,  # type: ignore[arg-type]
            self._importers,
            self._connectors,
        )
        self.history = self.edit_menu.attach(self.ctx)
        self._build_views()
        self.bus.changes_applied.connect(self._on_changes)
        self.follower.follow(self.ctx)
        self._update_badge()

    # --- building ---------------------------------------------------------------------

    def _build_views(self) -> None:
        """The timeline and its detail panel now; every other page when it is first shown
        (or asked for), so the window paints and answers at once, whatever the store's size."""
        self._built: dict[int, RefreshingView] = {}
        self.timeline = TimelineView(self.ctx)
        self.detail = DetailPanel(self.ctx)
        self._build_layout()
        self._connect()
        self.pages.setCurrentWidget(self.content)

    # Pages other than the timeline, built on first use (`_page`).
    @property
    def review(self) -> ReviewView:
        return self._page(REVIEW)  # type: ignore[return-value]

    @property
    def sessions(self) -> SessionsView:
        return self._page(SESSIONS)  # type: ignore[return-value]

    @property
    def settings(self) -> SettingsView:
        return self._page(SETTINGS)  # type: ignore[return-value]

    @property
    def agents(self) -> AgentsView:
        return self._page(AGENTS)  # type: ignore[return-value]

    def _page(self, row: int) -> RefreshingView:
        """The view of page `row`, built (and put in its place in the stack) on first use."""
        view = self._built.get(row)
        if view is not None:
            return view
        maker: dict[int, Callable[[UiContext], RefreshingView]] = {
            REVIEW: ReviewView,
            SESSIONS: SessionsView,
            SETTINGS: SettingsView,
            AGENTS: AgentsView,
        }
        view = maker[row](self.ctx)
        self._built[row] = view
        placeholder = self.stack.widget(row)
        assert placeholder is not None
        current = self.stack.currentIndex()
        self.stack.insertWidget(row, view)
        self.stack.removeWidget(placeholder)
        placeholder.deleteLater()
        self.stack.setCurrentIndex(current)
        view.notified.connect(self.notify)  # type: ignore[attr-defined]
        if row == SESSIONS:
            self.sessions.memory_linked.connect(self.open_memory)
        return view

    def _show_page(self, row: int) -> None:
        if row >= 0 and row != TIMELINE:
            self._page(row)
        self.stack.setCurrentIndex(row)

    def _views(self) -> list[RefreshingView]:
        """The views built so far."""
        return [self.timeline, self.detail, *self._built.values()]

    def changeEvent(self, event: QEvent) -> None:
        """A new language: rebuild the views with its texts (once, after the events settle)."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and not self._retranslating:
            self._retranslating = True
            # Bound to this window: no call if it is gone by then.
            QTimer.singleShot(0, self, self.retranslate)

    def retranslate(self) -> None:
        """Show every text in the language now installed, keeping the page and the store."""
        self._retranslating = False
        if self.locked or not self.isVisible():
            return
        if self.nav.item(TIMELINE).text() == self.tr("Timeline"):
            return  # the same language again: nothing to redo
        row = self.nav.currentRow()
        sizes = self.timeline_split.sizes()
        old = self.content
        self._build_views()
        self.pages.removeWidget(old)
        old.deleteLater()
        self.nav.setCurrentRow(row)
        self.timeline_split.setSizes(sizes)
        self.menuBar().clear()
        self._build_menu()
        self.setWindowTitle(
            self.tr("Memory Center — DEMO store (sample data, not yours)")
            if self.demo
            else self.tr("Memory Center")
        )
        self.status_bar.retranslate()
        self._key_source = ""  # the next poll writes the status bar in the new language
        self._update_badge()
        self.notify(self.tr("The language was changed."), None)

    def _build_layout(self) -> None:
        self.nav = navigation()
        self._nav_titles = [self.nav.item(i).text() for i in range(self.nav.count())]
        self.timeline_split = QSplitter()
        self.timeline_split.addWidget(self.timeline)
        self.timeline_split.addWidget(self.detail)
        self.timeline_split.setStretchFactor(0, 3)
        self.timeline_split.setStretchFactor(1, 2)
        # The detail panel can be made narrower but never dragged out of existence.
        self.timeline_split.setCollapsible(1, False)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.timeline_split)
        for _row in (REVIEW, SESSIONS, SETTINGS, AGENTS):
            self.stack.addWidget(QWidget())  # replaced by the page on first use
        self.nav.currentRowChanged.connect(self._show_page)
        # A page chosen with the mouse takes the keyboard focus, as one chosen with Ctrl+<n>
        # does: the review queue's A/E/S/R then act on the queue, not on the side list's
        # type-ahead (which jumped to "Agents" on A). Arrow keys in the list keep it there.
        self.nav.clicked.connect(lambda _index: self._focus_page())
        side = side_column(self.nav)
        central = QWidget()
        central.setObjectName("Central")
        layout = QHBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(side)
        layout.addWidget(self.stack, 1)
        self.content = central
        self.pages.addWidget(central)
        self.nav.setCurrentRow(TIMELINE)

    def _build_locked_page(self) -> None:
        page = QWidget()
        page.setObjectName("LockedPage")
        page.setAccessibleName(self.tr("Locked"))
        title = QLabel(self.tr("Memory Center is locked"))
        title.setObjectName("AppTitle")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        text = QLabel(
            self.tr(
                "The store is closed and its key is out of memory. "
                "Unlock it with the passphrase to continue."
            )
        )
        text.setWordWrap(True)
        text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.unlock_button = QPushButton(self.tr("Unlock…"))
        self.unlock_button.setObjectName("Primary")
        self.unlock_button.clicked.connect(self.unlock)
        box = QVBoxLayout(page)
        box.addStretch(1)
        box.addWidget(title)
        box.addWidget(text)
        box.addWidget(self.unlock_button, 0, Qt.AlignmentFlag.AlignHCenter)
        box.addStretch(2)
        self.locked_page = page
        self.pages.addWidget(page)

    def _build_status_bar(self) -> None:
        self.status_bar = bar = MainStatusBar(self.demo)
        self.setStatusBar(bar)
        self.message, self.undo_button = bar.message, bar.undo_button
        self.status_label, self.offline_badge = bar.status_label, bar.offline_badge
        self.demo_label = bar.demo_label
        self.undo_button.clicked.connect(self.undo)
        self._message_timer = QTimer(self)
        self._message_timer.setSingleShot(True)
        self._message_timer.setInterval(MESSAGE_MS)
        self._message_timer.timeout.connect(self._clear_message)

    def _build_menu(self) -> None:
        menu = self.menuBar().addMenu(self.tr("&File"))
        menu.setToolTipsVisible(True)
        refresh = QAction(self.tr("&Refresh"), self)
        refresh.setShortcut(QKeySequence.StandardKey.Refresh)
        refresh.triggered.connect(self.refresh_all)
        self.import_action = QAction(self.tr("&Import transcripts…"), self)
        self.import_action.triggered.connect(self.ask_import)
        self.lock_action = QAction(self.tr("&Lock"), self)
        self.lock_action.setShortcut(QKeySequence("Ctrl+L"))
        self.lock_action.triggered.connect(self.lock)
        quit_action = QAction(self.tr("&Quit"), self)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        menu.addAction(refresh)
        menu.addAction(self.import_action)
        self.leave_demo_action = QAction(self.tr("Leave the demo: use my own store"), self)
        self.leave_demo_action.setVisible(self._leave_demo is not None)
        if self._leave_demo is not None:
            self.leave_demo_action.triggered.connect(self._leave_demo)
        menu.addAction(self.leave_demo_action)
        menu.addSeparator()
        menu.addAction(self.lock_action)
        menu.addSeparator()
        menu.addAction(quit_action)
        view = self.menuBar().addMenu(self.tr("&View"))
        self.view_actions: list[QAction] = []
        for i in range(self.nav.count()):
            action = QAction(self.nav.item(i).text(), self)
            action.setShortcut(QKeySequence(f"Ctrl+{i + 1}"))
            action.triggered.connect(lambda _c=False, row=i: self.go_to(row))
            view.addAction(action)
            self.view_actions.append(action)
        self.service_actions = [refresh, self.import_action, *self.view_actions]
        self.menuBar().addMenu(self.edit_menu.menu)
        self.undo_action, self.redo_action = self.edit_menu.undo, self.edit_menu.redo
        self.service_actions.append(self.edit_menu.history_action)
        self._update_actions()

    def _update_actions(self) -> None:
        """Enable what applies: nothing but Unlock while locked; Lock only for a passphrase."""
        for action in self.service_actions:
            action.setEnabled(not self.locked)
        self.import_action.setEnabled(not self.locked and bool(self._importers))
        self.import_action.setToolTip(
            ""
            if self._importers
            else self.tr("No transcript importers were installed with this window")
        )
        can_lock = self._unlock is not None and self._key_source == "passphrase"
        self.lock_action.setEnabled(can_lock and not self.locked)
        if self._unlock is None:
            tip = self.tr("Locking is not available here (nothing could unlock the store again)")
        elif self._key_source != "passphrase":
            tip = self.tr(
                "Lock applies to a passphrase-protected key; this store's key comes from %1"
            ).replace("%1", self._key_source or self.tr("an unknown source"))
        else:
            tip = self.tr("Close the store and forget the key until the passphrase is given")
        self.lock_action.setToolTip(tip)

    def _connect(self) -> None:
        self.timeline.memory_selected.connect(self.show_detail)
        self.timeline.filter_applied.connect(self._filter_applied)
        self.detail.memory_linked.connect(self.open_memory)
        self.detail.session_linked.connect(self.open_session)
        self.detail.replay_linked.connect(self.open_replay)
        self.detail.notified.connect(self.notify)
        self.bus.changes_applied.connect(self._on_changes)

    # --- navigation -------------------------------------------------------------------

    def open_memory(self, memory_id: str) -> None:
        """Show a memory in the timeline's detail panel."""
        self.nav.setCurrentRow(TIMELINE)
        self.timeline.select_memory(memory_id)
        self.show_detail(memory_id)

    def show_detail(self, memory_id: str) -> None:
        """Show a memory in the detail panel, giving the panel room if it had none."""
        self.detail.show_memory(memory_id)
        sizes = self.timeline_split.sizes()
        if len(sizes) == 2 and sizes[1] < DETAIL_MIN:
            total = sum(sizes) or self.timeline_split.width()
            self.timeline_split.setSizes([max(total - DETAIL_DEFAULT, 1), DETAIL_DEFAULT])

    def _filter_applied(self, by_user: bool) -> None:
        """A filter the user chose hides the detail of a memory it excludes."""
        record = self.detail.data.record if self.detail.data is not None else None
        if by_user and record is not None and not self.timeline.admits(record):
            self.detail.show_empty()

    def go_to(self, row: int) -> None:
        """Show a page and put the keyboard focus in it (Ctrl+2 then A/E/S/R just works)."""
        self.nav.setCurrentRow(row)
        self._focus_page()

    def _focus_page(self) -> None:
        """Put the keyboard focus in the page shown (its main list where it has one)."""
        row = self.nav.currentRow()
        target: QWidget | None = None
        if row == TIMELINE:
            target = self.timeline.table
        elif row == REVIEW:
            target = self.review.list
        page = target or self.stack.currentWidget()
        if page is not None:
            page.setFocus()

    def open_replay(self, session: str, snapshot_id: str) -> None:
        """Open the replay of one model call in the Sessions view."""
        self.nav.setCurrentRow(SESSIONS)
        self.sessions.show_snapshot(session, snapshot_id)

    def open_session(self, session: str, event_id: str = "") -> None:
        """Jump to a session (and one of its events) in the Sessions view."""
        self.nav.setCurrentRow(SESSIONS)
        self.sessions.show_session(session, event_id)

    # --- status bar and undo ------------------------------------------------------------

    def notify(self, text: str, undo: Callable[[], None] | None) -> None:
        """Show what just happened; Undo (the button, Ctrl+Z) walks back through the
        window's history of changes for as long as it is open (#39, ui/undo_history.py)."""
        self.message.setText(text)
        self.edit_menu.offer(text, undo)
        self._message_timer.start()

    def undo(self) -> None:
        """Undo the latest change made in this window."""
        self._clear_message()
        self.edit_menu.run_undo()

    def redo(self) -> None:
        """Redo the latest undo."""
        self._clear_message()
        self.edit_menu.run_redo()

    def _clear_message(self) -> None:
        self.message.setText("")
        self.undo_button.hide()

    def _set_badge(self, data: QueueData) -> None:
        """The store's count of items waiting for a decision, with the kinds in a tooltip."""
        base = self._nav_titles[REVIEW]
        count = data.count
        item = self.nav.item(REVIEW)
        item.setText(f"{base}   {count}" if count else base)
        kinds = [
            self.tr("%n suggestion(s)", "", len(data.candidates)),
            self.tr("%n conflict(s)", "", len(data.conflicts)),
            self.tr("%n quarantined", "", len(data.quarantined)),
        ]
        detail = self.tr("Waiting for you: %1").replace("%1", ", ".join(kinds))
        item.setToolTip(detail)
        item.setData(Qt.ItemDataRole.AccessibleTextRole, f"{base}: {count}. {detail}")

    def _update_badge(self) -> None:
        # Counted from the store the way the queue groups it (conflict sets once, not per
        # member), never from what a view happens to have loaded.
        query(self.ctx, load_queue).on_success(self._set_badge).run(self)

    # --- following the store -------------------------------------------------------------

    def _show_status(self, st: StoreStatus) -> None:
        """What a poll read: events recorded and where the key is held, in the status bar."""
        if st.key.source != self._key_source:
            self._key_source = st.key.source
            if hasattr(self, "lock_action"):
                self._update_actions()
        self.status_label.setText(
            self.tr("%n events recorded", "", st.event_count) + "  ·  " + key_words(st.key.source)
        )
        self.status_label.setToolTip(st.path)

    def _on_changes(self, changes: Changes, _initiator: object) -> None:
        if touches_any(changes, frozenset({ChangeKind.MEMORIES, ChangeKind.CANDIDATES})):
            self._update_badge()

    def refresh_all(self) -> None:
        """Reload every view (visible now, the others when shown)."""
        for view in self._views():
            view.dirty = True
            if view.isVisible():
                view.refresh_now()

    # --- importing transcripts ------------------------------------------------------------

    def ask_import(self) -> None:
        """Ask for an importer and a file or folder, then import with progress."""
        if self.locked or not self._importers:
            return
        dialog = ImportDialog(sorted(self._importers), self)
        self.active_dialog = dialog
        dialog.accepted.connect(lambda: self.start_import(*dialog.chosen()))
        dialog.finished.connect(lambda _c: setattr(self, "active_dialog", None))
        dialog.open()

    def start_import(self, name: str, path: Path) -> TranscriptImport:
        """Run the importer called `name` on `path`; returns the running import."""
        run = TranscriptImport(self.ctx, self)
        run.finished.connect(lambda summary: self.notify(summary.splitlines()[0], None))
        self.active_import = run
        run.start(name, self._importers[name], path)
        return run

    # --- locking ---------------------------------------------------------------------------

    def lock(self) -> None:
        """Stop polling, wait for running work, close the service, show the locked page."""
        if self.locked or not self.lock_action.isEnabled():
            return
        self.follower.stop()
        if self._connectors.capture is not None:
            self._connectors.capture.stop_all()
        self.tasks.shutdown()
        self.service.close()
        self.locked = True
        self._clear_message()
        self.edit_menu.refresh()
        self.status_label.setText(self.tr("locked"))
        old = self.content
        self.pages.setCurrentWidget(self.locked_page)
        self.pages.removeWidget(old)
        old.deleteLater()
        self.tasks.deleteLater()
        self.bus.deleteLater()
        self._update_actions()
        self.unlock_button.setFocus()

    def unlock(self) -> bool:
        """Ask the injected `unlock` for a reopened service; rebuild the views on it."""
        if not self.locked or self._unlock is None:
            return False
        try:
            service = self._unlock()
        except Exception as exc:  # the passphrase was wrong, the store is gone, ...
            show_error(self, exc)
            return False
        if service is None:
            return False
        self._open_on(service)
        self._update_actions()
        return True

    # --- window state ---------------------------------------------------------------------

    def _restore(self) -> None:
        settings = QSettings()
        fit_to_screen(self, settings.value("main_window/geometry"))
        sizes = [int(x) for x in settings.value("main_window/detail_split") or []]
        # Never restore a collapsed (or nearly collapsed) detail panel.
        if len(sizes) != 2 or sizes[1] < DETAIL_MIN:
            sizes = [960, DETAIL_DEFAULT]
        self.timeline_split.setSizes(sizes)

    def closeEvent(self, event: QCloseEvent) -> None:
        """Remember geometry and splitter sizes; let running work finish."""
        settings = QSettings()
        settings.setValue("main_window/geometry", self.saveGeometry())
        sizes = self.timeline_split.sizes()
        # The panel is hidden (width 0) while nothing is selected: keep the last real width.
        if not self.locked and self.detail.isVisible() and sizes[1] >= DETAIL_MIN:
            settings.setValue("main_window/detail_split", sizes)
        self.hide()  # gone from the screen at once; what follows only finishes the work
        self.follower.stop()
        if self._connectors.capture is not None:
            self._connectors.capture.stop_all()
        if not self.locked:
            # Writes finish; when the application quits, reads are not waited for (their
            # results would be dropped): a long read of a big store kept it alive (#43).
            self.tasks.shutdown(wait_for_reads=not self.quits_on_close)
        super().closeEvent(event)
