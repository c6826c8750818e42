"""Sessions: their events, per-session memory opt-out, and the snapshot of each model call
(what was injected, what was dropped and why, what changed since) (R26, R27)."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core import ChangeKind, Changes, Event, MemoryService, NotFoundError, Replay, SessionInfo

from ui.context import UiContext
from ui.models.event_table import EventTableModel
from ui.models.session_list import SessionListModel
from ui.operations.sessions import set_session_opt_out
from ui.ops import query
from ui.presentation import local_time
from ui.views.base import RefreshingView
from ui.views.session_review import SessionReviewDialog
from ui.views.snapshot_text import replay_html
from ui.views.timeline_view import MiddleElideDelegate


def snapshot_choices(service: MemoryService, session: str) -> list[tuple[str, str]]:
    """The session's model calls as (snapshot id, label), newest first.

    Uses `list_snapshots(session)` when the core offers it; otherwise only the latest
    snapshot is reachable (through the ResumeGate).
    """
    lister = getattr(service.retrieval, "list_snapshots", None)
    if lister is not None:
        return [
            (snap.id, f"{local_time(snap.ts)} · {snap.goal[:70]}")
            for snap in reversed(lister(session))
        ]
    try:
        sid = service.retrieval.resume(session).snapshot_id
    except NotFoundError:
        return []
    return [(sid, sid)]


class SessionsView(RefreshingView):
    """Sessions with their events and snapshots.

    Signals:
        memory_linked: (str) a memory in a snapshot was clicked.
        notified: (str, object) status-bar message and undo callable.
    """

    memory_linked = Signal(str)
    notified = Signal(str, object)
    watched = frozenset({ChangeKind.SESSIONS, ChangeKind.EVENTS, ChangeKind.SNAPSHOTS})

    def __init__(self, ctx: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.setObjectName("SessionsView")
        self.sessions = SessionListModel()
        self.events = EventTableModel(ctx.tasks)
        self.current: SessionInfo | None = None
        self._wanted_session: str | None = None
        self._wanted_event: str | None = None
        self._wanted_snapshot: str | None = None
        # A session shown by name that the list does not hold (calls, no events): a later
        # reload keeps it open instead of falling back to the first row.
        self._unlisted: str | None = None
        self._list_generation = 0
        self._opt_out_writes = 0
        self.session_table = self._table(self.sessions, self.tr("Sessions"))
        self.session_table.selectionModel().currentRowChanged.connect(self._session_changed)
        self.event_table = self._table(self.events, self.tr("Events of the session"))
        self.events.rowsInserted.connect(self._look_for_event)
        # Short columns fit their contents; the text (events) and the name (sessions) stretch.
        fit = QHeaderView.ResizeMode.ResizeToContents
        events_header = self.event_table.horizontalHeader()
        for col in range(5):
            events_header.setSectionResizeMode(col, fit)
        events_header.setSectionResizeMode(5, QHeaderView.ResizeMode.Stretch)
        sessions_header = self.session_table.horizontalHeader()
        for col in range(1, self.sessions.columnCount()):
            sessions_header.setSectionResizeMode(col, fit)
        sessions_header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        # Narrow windows: long session names keep both ends; the events' session column
        # repeats the session shown above it, so it gives its room to the text.
        self.session_table.setItemDelegateForColumn(0, MiddleElideDelegate(self.session_table))
        self.event_table.setColumnHidden(1, True)
        self._fixed_widths()
        self.title = QLabel()
        self.title.setObjectName("ViewTitle")
        self.opt_out = QCheckBox(
            self.tr("Memory opt-out: inject nothing into this session and extract nothing from it")
        )
        self.opt_out.setAccessibleName(self.tr("Memory opt-out"))
        self.opt_out.clicked.connect(self._opt_out_clicked)
        self.review_button = QPushButton(self.tr("Review its suggestions…"))
        self.review_button.setToolTip(
            self.tr("Every suggestion this session produced, with its evidence, on one screen")
        )
        self.review_button.clicked.connect(self.review_suggestions)
        self.session_review: SessionReviewDialog | None = None
        self.snapshot_box = QComboBox()
        self.snapshot_box.setAccessibleName(self.tr("Model calls of the session"))
        self.snapshot_box.currentIndexChanged.connect(self._snapshot_chosen)
        self.snapshot_text = QLabel()
        self.snapshot_text.setWordWrap(True)
        self.snapshot_text.setTextFormat(Qt.TextFormat.RichText)
        self.snapshot_text.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.snapshot_text.setObjectName("DetailInner")
        self.snapshot_text.setContentsMargins(8, 8, 8, 8)
        self.snapshot_text.linkActivated.connect(
            lambda href: self.memory_linked.emit(href.partition(":")[2])
        )
        self._layout()

    def _fixed_widths(self) -> None:
        """Short columns as wide as their longest value (measured with the table's font), so
        they never read "20…" whatever has been loaded."""
        for table, samples in (
            (
                self.event_table,
                {0: "2026-12-01 03:38", 2: "assistant", 3: "untrusted", 4: "message"},
            ),
            (self.session_table, {1: "99999", 2: "2026-12-01 03:38", 3: "opted out"}),
        ):
            table.ensurePolished()
            metrics = table.fontMetrics()
            header = table.horizontalHeader()
            for col, sample in samples.items():
                title = str(table.model().headerData(col, Qt.Orientation.Horizontal))
                width = max(metrics.horizontalAdvance(sample), metrics.horizontalAdvance(title))
                header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
                icon_room = 26 if table is self.session_table and col == 3 else 0
                table.setColumnWidth(col, width + 36 + icon_room)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Narrow: drop the last-activity and actor columns before anything gets cut."""
        super().resizeEvent(event)
        self.session_table.setColumnHidden(2, self.session_table.viewport().width() < 500)
        self.event_table.setColumnHidden(2, self.event_table.viewport().width() < 700)

    def _table(self, model, name: str) -> QTableView:  # type: ignore[no-untyped-def]
        table = QTableView()
        table.setModel(model)
        table.setAccessibleName(name)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.verticalHeader().hide()
        table.setShowGrid(False)
        table.setWordWrap(False)
        table.horizontalHeader().setStretchLastSection(True)
        return table

    def _layout(self) -> None:
        snap = QWidget()
        sl = QVBoxLayout(snap)
        row = QHBoxLayout()
        label = QLabel(self.tr("Model call"))
        label.setObjectName("SectionTitle")
        row.addWidget(label)
        row.addWidget(self.snapshot_box, 1)
        sl.addLayout(row)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.snapshot_text)
        sl.addWidget(scroll, 1)
        right_split = QSplitter(Qt.Orientation.Vertical)
        right_split.addWidget(self.event_table)
        right_split.addWidget(snap)
        right_split.setSizes([400, 260])
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.title)
        options = QHBoxLayout()
        options.addWidget(self.opt_out, 1)
        options.addWidget(self.review_button)
        rl.addLayout(options)
        rl.addWidget(right_split, 1)
        split = QSplitter()
        split.addWidget(self.session_table)
        split.addWidget(right)
        split.setSizes([450, 700])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 12, 12, 12)
        layout.addWidget(split)

    # --- loading -----------------------------------------------------------------------

    def refresh(self) -> None:
        """Reload the session list (and the open session)."""
        self._list_generation += 1
        generation = self._list_generation
        query(self.ctx, lambda s: s.events.list_sessions()).on_success(
            lambda sessions: self._sessions_loaded(sessions, generation)
        ).run(self)

    def _sessions_loaded(self, sessions: list[SessionInfo], generation: int = 0) -> None:
        if generation and generation != self._list_generation:
            return  # a newer list is on its way: an older one must not undo a newer state
        keep = self._wanted_session or (self.current.id if self.current else self._unlisted)
        self.sessions.set_sessions(sessions)
        row = self.sessions.row_of(keep) if keep else -1
        if row < 0 and self.sessions.rowCount() and not keep:
            row = 0
        if row >= 0:
            self.session_table.selectRow(row)
        elif keep:
            self._show_unlisted(keep)

    def _show_unlisted(self, session: str) -> None:
        """A session the list does not hold (model calls recorded, no events yet, as
        `inject --session NAME` leaves it): shown by name with its own calls, never the
        calls of the session shown before."""
        self.session_table.clearSelection()
        self.current = None
        self._unlisted = session
        self.title.setText(session)
        self.opt_out.setChecked(False)
        self.events.load(
            lambda before, limit: self.ctx.service.events.list_events(
                session=session, before_position=before, limit=limit, newest_first=True
            )
        )
        query(self.ctx, lambda s: snapshot_choices(s, session)).on_success(
            lambda choices: self._snapshots(choices, session)
        ).run(self)
        self._wanted_session = None
        self._wanted_event = None

    def show_session(self, session: str, event_id: str = "") -> None:
        """Open a session (and scroll to one of its events), e.g. from a memory's sources."""
        self._wanted_session = session
        self._wanted_event = event_id or None
        row = self.sessions.row_of(session)
        if row >= 0 and not self.dirty:
            self.session_table.selectRow(row)
            if self.current is not None and self.current.id == session:
                self._look_for_event()
        else:
            self.refresh_now()

    def _session_changed(self, current: QModelIndex, _prev: QModelIndex) -> None:
        info = self.sessions.session_at(current.row())
        if info is None:
            return
        changed = self.current is None or self.current.id != info.id
        self.current = info
        self._unlisted = None
        self.title.setText(info.id)
        if not self._opt_out_writes:  # the user's click stands until its write is done
            self.opt_out.setChecked(info.opted_out)
        if changed or self._wanted_session == info.id:
            name = info.id
            self.events.load(
                lambda before, limit: self.ctx.service.events.list_events(
                    session=name, before_position=before, limit=limit, newest_first=True
                )
            )
            query(self.ctx, lambda s: snapshot_choices(s, name)).on_success(
                lambda choices: self._snapshots(choices, name)
            ).run(self)
        self._wanted_session = None if self._wanted_event is None else self._wanted_session

    def _look_for_event(self, *_args: object) -> None:
        wanted = self._wanted_event
        if not wanted:
            return
        row = self.events.row_of(wanted)
        if row >= 0:
            self.event_table.selectRow(row)
            self.event_table.scrollTo(self.events.index(row, 0))
            self._wanted_event = None
            self._wanted_session = None
        elif self.events.canFetchMore():
            self.events.fetchMore()

    def selected_event(self) -> Event | None:
        """The event selected in the events table."""
        index = self.event_table.currentIndex()
        return self.events.event_at(index.row()) if index.isValid() else None

    def review_suggestions(self) -> None:
        """Open the shown session's suggestions on one screen."""
        session = self.current.id if self.current is not None else self._unlisted
        if session is None:
            return
        dialog = SessionReviewDialog(self.ctx, session, self)
        self.session_review = dialog
        dialog.finished.connect(lambda _c: setattr(self, "session_review", None))
        dialog.open()

    def show_snapshot(self, session: str, snapshot_id: str) -> None:
        """Open a session with one of its model calls replayed (from a usage trace)."""
        self._wanted_snapshot = snapshot_id
        if self._shown_session() == session and not self.dirty:
            found = self.snapshot_box.findData(snapshot_id)
            if found >= 0:
                self._wanted_snapshot = None
                self.snapshot_box.setCurrentIndex(found)
                return
        self.show_session(session)

    def _shown_session(self) -> str | None:
        return self.current.id if self.current is not None else self._unlisted

    def _snapshots(self, choices: list[tuple[str, str]], session: str) -> None:
        if session != self._shown_session():
            return  # the calls of a session shown before: another one is open now
        self.snapshot_box.blockSignals(True)
        self.snapshot_box.clear()
        for sid, label in choices:
            self.snapshot_box.addItem(label, sid)
        wanted = self.snapshot_box.findData(self._wanted_snapshot) if self._wanted_snapshot else -1
        self._wanted_snapshot = None
        index = max(wanted, 0)
        self.snapshot_box.setCurrentIndex(index)
        self.snapshot_box.blockSignals(False)
        if choices:
            self._snapshot_chosen(index)
        else:
            self.snapshot_text.setText(
                self.tr("No model call of this session recorded a snapshot.")
            )

    def _snapshot_chosen(self, index: int) -> None:
        sid = self.snapshot_box.itemData(index)
        if sid:
            query(self.ctx, lambda s: s.retrieval.replay(sid)).on_success(self._replayed).run(self)

    def _replayed(self, rep: Replay) -> None:
        self.snapshot_text.setText(replay_html(rep))

    # --- actions ------------------------------------------------------------------------

    def _opt_out_clicked(self, checked: bool) -> None:
        info = self.current
        if info is None:
            return
        self._opt_out_writes += 1

        def done(s: SessionInfo) -> None:
            self._opt_out_writes -= 1
            self._show_own(s)
            self.notified.emit(
                self.tr("Memory is off for %1.").replace("%1", s.id)
                if s.opted_out
                else self.tr("Memory is on for %1.").replace("%1", s.id),
                None,
            )

        def failed(exc: BaseException) -> None:
            self._opt_out_writes -= 1
            self._opt_out_failed(info, exc)

        set_session_opt_out(self.ctx, info.id, checked).on_success(done).on_failure(failed).run(
            self
        )

    def _show_own(self, info: SessionInfo) -> None:
        """Show the session as this view's own write left it (the view does not reload)."""
        row = self.sessions.row_of(info.id)
        if row >= 0:
            self.sessions.replace_row(row, info)
        if self.current is not None and self.current.id == info.id:
            self.current = info

    def shows_own_change(self, changes: Changes) -> bool:
        """An opt-out switch touches only sessions, and `_show_own` already shows it."""
        return changes.kinds <= {ChangeKind.SESSIONS}

    def _opt_out_failed(self, info: SessionInfo, exc: BaseException) -> None:
        from ui.errors import show_error

        self.opt_out.setChecked(info.opted_out)
        show_error(self, exc)
