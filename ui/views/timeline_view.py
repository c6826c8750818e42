"""Timeline: every memory (and, on request, every event) newest first, grouped by day (R25)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QDate, QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDateEdit,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core import ChangeKind, Event, MemoryRecord, MemoryService

from ui.context import UiContext
from ui.models.timeline_model import (
    COL_CONF,
    COL_CONTENT,
    COL_KIND,
    COL_SCOPE,
    COL_SOURCE,
    COL_STATUS,
    COL_TIME,
    IsDayRole,
    TimelineModel,
)
from ui.models.timeline_source import (
    ScanCache,
    TimelineFilter,
    TimelineStream,
    local_matcher,
    open_source,
    ranked_possible,
)
from ui.ops import query
from ui.presentation import (
    KINDS,
    STATUSES,
    TRUSTS,
    icon,
    kind_text,
    status_icon,
    status_text,
    trust_text,
)
from ui.views.base import RefreshingView

SEARCH_DELAY_MS = 250
NARROW = 900  # table width below which confidence and source columns hide
VERY_NARROW = 640  # ... and the kind column too


class MiddleElideDelegate(QStyledItemDelegate):
    """Elides in the middle: scopes keep their first and last key visible
    (`org=acme … project=checkout`); the whole scope is in the tooltip."""

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        """Middle elision for this column only."""
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideMiddle


WARM_DELAY_MS = 800


class TimelineView(RefreshingView):
    """The timeline with its filter bar.

    Signals:
        memory_selected: (str) id of the memory the user selected.
        event_selected: (Event) an event row the user selected.
        filtered: (int) number of memories the current filter admits (after each filter run).
    """

    memory_selected = Signal(str)
    event_selected = Signal(object)
    filtered = Signal(int)
    filter_applied = Signal(bool)
    watched = frozenset({ChangeKind.MEMORIES, ChangeKind.CANDIDATES, ChangeKind.EVENTS})

    def __init__(self, ctx: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.setObjectName("TimelineView")
        self._scan_cache = ScanCache()
        self._selected_id: str | None = None
        self._filter_generation = 0
        self._by_refresh = False
        self._filter_by_user = False
        self.model = TimelineModel(ctx.tasks, ctx.now)
        self._filter_rows: list[QHBoxLayout] = self._build_filters()
        self.table = self._build_table()
        # While the store is read: a moving bar (the window answers meanwhile, #43).
        self.loading_bar = QProgressBar()
        self.loading_bar.setRange(0, 0)
        self.loading_bar.setTextVisible(False)
        self.loading_bar.setMaximumHeight(4)
        self.loading_bar.setAccessibleName(self.tr("Loading your memories"))
        # An empty store: how memories get here.
        self.empty_hint = QLabel(
            self.tr(
                "No memories yet. Connect an agent (Settings → Connected agents: install the "
                "Claude Code hooks, or add the MCP server to your client), or import an "
                "earlier conversation history (File → Import transcripts…)."
            )
        )
        self.empty_hint.setObjectName("EmptyHint")
        self.empty_hint.setWordWrap(True)
        self.empty_hint.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 12, 12, 12)
        for row in self._filter_rows:
            layout.addLayout(row)
        layout.addWidget(self.loading_bar)
        layout.addWidget(self.empty_hint)
        layout.addWidget(self.table, 1)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self.apply_filter)
        self._warm_timer = QTimer(self)
        self._warm_timer.setSingleShot(True)
        self._warm_timer.setInterval(WARM_DELAY_MS)
        self._warm_timer.timeout.connect(self._warm)

    # --- building ---------------------------------------------------------------

    def _combo(
        self,
        name: str,
        all_text: str,
        values: tuple[str, ...],
        label: Callable[[str], str],
        with_icons: bool = False,
    ) -> QComboBox:
        box = QComboBox()
        box.setAccessibleName(name)
        box.addItem(all_text, "")
        for value in values:
            if with_icons:
                box.addItem(status_icon(value), label(value), value)
            else:
                box.addItem(label(value), value)
        box.currentIndexChanged.connect(self.apply_filter)
        return box

    def _build_filters(self) -> list[QHBoxLayout]:
        self.search = QLineEdit()
        self.search.setPlaceholderText(self.tr("Search memories…"))
        self.search.setAccessibleName(self.tr("Search"))
        self.search.setClearButtonEnabled(True)
        self.search.addAction(icon("search"), QLineEdit.ActionPosition.LeadingPosition)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        self.search.returnPressed.connect(self.apply_filter)
        self.status_filter = self._combo(
            self.tr("Status filter"), self.tr("All statuses"), STATUSES, status_text, True
        )
        self.kind_filter = self._combo(
            self.tr("Kind filter"), self.tr("All kinds"), KINDS, kind_text
        )
        self.trust_filter = self._combo(
            self.tr("Source trust filter"), self.tr("Any source"), TRUSTS, trust_text
        )
        self.scope_filter = QLineEdit()
        self.scope_filter.setPlaceholderText(self.tr("Scope, e.g. project=web-shop"))
        self.scope_filter.setAccessibleName(self.tr("Scope filter"))
        self.scope_filter.setClearButtonEnabled(True)
        self.scope_filter.textChanged.connect(lambda _t: self._search_timer.start())
        self.ranked = QCheckBox(self.tr("Rank by relevance"))
        self.ranked.setAccessibleName(self.tr("Rank search results by relevance in the scope"))
        self.ranked.setToolTip(
            self.tr(
                "With search text and a key=value scope, show the memories an agent in that "
                "scope would find, best match first."
            )
        )
        self.ranked.setEnabled(False)
        self.ranked.toggled.connect(self.apply_filter)
        self.use_dates = QCheckBox(self.tr("Between"))
        self.date_from = QDateEdit(QDate.currentDate().addDays(-30))
        self.date_to = QDateEdit(QDate.currentDate())
        for edit in (self.date_from, self.date_to):
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.setEnabled(False)
            edit.dateChanged.connect(self.apply_filter)
        self.date_from.setAccessibleName(self.tr("From date"))
        self.date_to.setAccessibleName(self.tr("To date"))
        self.use_dates.toggled.connect(self._dates_toggled)
        self.show_events = QCheckBox(self.tr("Show events"))
        self.show_events.setAccessibleName(self.tr("Show events in the timeline"))
        self.show_events.toggled.connect(self.apply_filter)
        self.count_label = QLabel()
        self.count_label.setObjectName("Muted")
        for line in (self.search, self.scope_filter):
            line.setMinimumWidth(90)
        for box in (self.status_filter, self.kind_filter, self.trust_filter):
            # Never narrower than its "All …" choice (no "Any sour"); the list shows all.
            box.setMinimumContentsLength(len(box.itemText(0)) + 1)
            box.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
        row1 = QHBoxLayout()
        row1.addWidget(self.search, 3)
        row1.addWidget(self.scope_filter, 2)
        row1.addWidget(self.show_events)
        row1.addWidget(self.ranked)
        row2 = QHBoxLayout()
        for combo in (self.status_filter, self.kind_filter, self.trust_filter):
            row2.addWidget(combo, 1)
        # The dates share the third row, so the three filters keep readable widths even
        # next to the detail panel at 1280x800.
        row3 = QHBoxLayout()
        row3.addWidget(self.use_dates)
        row3.addWidget(self.date_from)
        row3.addWidget(QLabel("–"))
        row3.addWidget(self.date_to)
        row3.addStretch(1)
        row3.addWidget(self.count_label)
        return [row1, row2, row3]

    def _build_table(self) -> QTableView:
        table = QTableView()
        table.setModel(self.model)
        table.setAccessibleName(self.tr("Timeline of memories"))
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.verticalHeader().hide()
        table.setShowGrid(False)
        table.setWordWrap(False)
        table.verticalHeader().setDefaultSectionSize(30)
        header = table.horizontalHeader()
        header.setMinimumSectionSize(40)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(COL_CONTENT, QHeaderView.ResizeMode.Stretch)
        # Short columns are as wide as their longest possible value (never "sugge…"),
        # computed from the font rather than from whichever rows happen to be loaded.
        for col, width in self._column_widths(table).items():
            table.setColumnWidth(col, width)
        self.model.rowsInserted.connect(self._span_days)
        self.model.modelReset.connect(table.clearSpans)
        table.selectionModel().currentRowChanged.connect(self._row_changed)
        return table

    def _column_widths(self, table: QTableView) -> dict[int, int]:
        # Measure with the stylesheet's fonts, which apply only once a widget is polished.
        table.ensurePolished()
        table.horizontalHeader().ensurePolished()
        cell, head = table.fontMetrics(), table.horizontalHeader().fontMetrics()
        pad, icon_w = 36, table.iconSize().width() + 8

        def widest(texts: list[str], extra: int = 0) -> int:
            return max(cell.horizontalAdvance(t) for t in texts) + pad + extra

        def titled(col: int, width: int) -> int:
            title = str(self.model.headerData(col, Qt.Orientation.Horizontal))
            return max(width, head.horizontalAdvance(title) + pad)

        return {
            COL_STATUS: titled(COL_STATUS, widest([status_text(s) for s in STATUSES], icon_w)),
            COL_KIND: titled(COL_KIND, widest([kind_text(k) for k in KINDS])),
            COL_SCOPE: 160,
            COL_CONF: titled(COL_CONF, widest(["100%"])),
            COL_SOURCE: titled(COL_SOURCE, widest([trust_text(t) for t in TRUSTS], icon_w)),
            # A time of day, or the date a memory of recorded history was said (#17).
            COL_TIME: titled(COL_TIME, widest(["00:00", "2000-00-00"])),
        }

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Narrow: drop the columns the detail panel also shows, so content stays readable."""
        super().resizeEvent(event)
        width = self.table.viewport().width()
        self.table.setColumnHidden(COL_CONF, width < NARROW)
        self.table.setColumnHidden(COL_SOURCE, width < NARROW)
        self.table.setColumnHidden(COL_KIND, width < VERY_NARROW)

    # --- behaviour ----------------------------------------------------------------

    def current_filter(self) -> TimelineFilter:
        """The filter the widgets describe."""

        def chosen(box: QComboBox) -> frozenset[str]:
            value = box.currentData()
            return frozenset({value}) if value else frozenset()

        dates = self.use_dates.isChecked()
        return TimelineFilter(
            statuses=chosen(self.status_filter),
            kinds=chosen(self.kind_filter),
            trusts=chosen(self.trust_filter),
            scope_text=self.scope_filter.text().strip(),
            text=self.search.text().strip(),
            date_from=self.date_from.date().toPython() if dates else None,  # type: ignore[arg-type]
            date_to=self.date_to.date().toPython() if dates else None,  # type: ignore[arg-type]
            show_events=self.show_events.isChecked(),
            ranked=self.ranked.isChecked(),
        )

    def refresh(self) -> None:
        """Re-run the filter against the store (a new revision invalidates the scan cache)."""
        self._by_refresh = True
        self.apply_filter()

    def admits(self, record: MemoryRecord) -> bool:
        """True when the filter the widgets describe admits `record`."""
        return local_matcher(self.current_filter(), self.ctx.now())(record)

    def apply_filter(self) -> None:
        """Ask the store for what the filter admits (off the UI thread); show the first page."""
        self._search_timer.stop()
        by_user, self._by_refresh = not self._by_refresh, False
        self._filter_by_user = by_user
        self._filter_generation += 1
        generation = self._filter_generation
        flt = self.current_filter()
        self.ranked.setEnabled(ranked_possible(flt))
        now, cache = self.ctx.now(), self._scan_cache

        def work(service: MemoryService) -> TimelineStream:
            return TimelineStream(open_source(service, flt, now, cache), flt, service)

        self.loading_bar.show()
        if not self.model.item_count:
            self.count_label.setText(self.tr("Loading your memories…"))
        query(self.ctx, work).on_success(lambda st: self._show_stream(generation, st)).run(self)

    def _show_stream(self, generation: int, stream: TimelineStream) -> None:
        if generation != self._filter_generation:
            return  # a newer filter is on its way
        self.model.set_stream(stream)
        self.loading_bar.hide()
        count = stream.memory_count
        f = self.current_filter()
        unfiltered = not (f.statuses or f.kinds or f.trusts or f.scope_text or f.text)
        self.empty_hint.setVisible(count == 0 and unfiltered and f.date_from is None)
        if stream.ranked:
            self.count_label.setText(self.tr("%n ranked results", "", count))
        else:
            self.count_label.setText(self.tr("%n memories", "", count))
        self.filtered.emit(count)
        self.filter_applied.emit(self._filter_by_user)
        self._warm_timer.start()

    def _warm(self) -> None:
        """Decrypt every record in the background so local filters answer from memory."""
        cache = self._scan_cache
        query(self.ctx, cache.warm).on_failure(lambda _exc: None).run(self)

    def _dates_toggled(self, on: bool) -> None:
        self.date_from.setEnabled(on)
        self.date_to.setEnabled(on)
        self.apply_filter()

    def _span_days(self, _parent: QModelIndex, first: int, last: int) -> None:
        columns = self.model.columnCount()
        for row in range(first, last + 1):
            if self.model.index(row, 0).data(IsDayRole):
                self.table.setSpan(row, 0, 1, columns)
        if self._selected_id and not self.table.selectionModel().hasSelection():
            found = self.model.row_of(self._selected_id)
            if found >= 0:
                self.table.selectRow(found)

    def _row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        item = self.model.item_at(current.row())
        if isinstance(item, MemoryRecord):
            self._selected_id = item.id
            self.memory_selected.emit(item.id)
        elif isinstance(item, Event):
            self.event_selected.emit(item)

    def select_memory(self, memory_id: str) -> None:
        """Select a memory's row if it is loaded."""
        self._selected_id = memory_id
        row = self.model.row_of(memory_id)
        if row >= 0:
            self.table.selectRow(row)
            self.table.scrollTo(self.model.index(row, 0))

    def keyPressEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        """Ctrl+F focuses the search box."""
        if event.key() == Qt.Key.Key_F and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.search.setFocus()
            return
        super().keyPressEvent(event)
