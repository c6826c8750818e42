"""Review queue: approve (A), edit then approve (E), change scope then approve (S), reject (R),
all of the current one's session on one screen (G); arrows move; "possibly the same as /
replaces / contradicts" items beside the other memory, answered with 1-4 (#40); conflict sets
side by side with "Keep this", "Keep both" and "Split by scope…" (R9, R25, R26)."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import (
    QCoreApplication,
    QEvent,
    QModelIndex,
    QObject,
    Qt,
    Signal,
)
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListView,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from core import ChangeKind, MemoryRecord

from ui.context import UiContext
from ui.dialogs import EditDialog, ReasonDialog, ScopeDialog, SplitScopeDialog
from ui.keys import letters_are_text
from ui.models.review_model import Evidence, QueueData, ReviewQueueModel, load_evidence, load_queue
from ui.operations import memory as ops
from ui.ops import query
from ui.presentation import confidence_text, local_time, trust_text
from ui.views.base import RefreshingView
from ui.views.highlight import differing_words
from ui.views.review_card import ReviewCard
from ui.views.session_review import SessionReviewDialog, session_of
from ui.views.wrapped_rows import WrappedRows


def model_outcome(outcome: str) -> str:
    """What the model judge's answer did, in words."""
    words = {
        "merged": QCoreApplication.translate("Review", "merged into the other memory"),
        "replaced": QCoreApplication.translate("Review", "it replaces the other memory"),
        "conflict": QCoreApplication.translate("Review", "both kept in a conflict set"),
        "active": QCoreApplication.translate("Review", "both kept"),
        "left for review": QCoreApplication.translate("Review", "left for you to decide"),
        "skipped": QCoreApplication.translate("Review", "already answered"),
    }
    return words.get(outcome, outcome)


class ReviewView(RefreshingView):
    """The review queue.

    Signals:
        count_changed: (int) items waiting for a decision.
        notified: (str, object) status-bar message and undo callable (None here).
    """

    count_changed = Signal(int)
    notified = Signal(str, object)
    watched = frozenset({ChangeKind.MEMORIES, ChangeKind.CANDIDATES})

    def __init__(self, ctx: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.setObjectName("ReviewView")
        self.model = ReviewQueueModel()
        self.active_dialog: QWidget | None = None
        self._row = -1
        self.list = QListView()
        self.list.setModel(self.model)
        self.list.setAccessibleName(self.tr("Review queue"))
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setWordWrap(True)
        # Rows wrap to the list's width; a horizontal scroll bar would only ever show a sliver.
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setResizeMode(QListView.ResizeMode.Adjust)
        self.list.setSpacing(2)
        self.list.setItemDelegate(WrappedRows(self.list))
        self.list.selectionModel().currentRowChanged.connect(self._current_changed)
        self.card = ReviewCard()
        self.card.answered.connect(self.answer_current)
        self.card.ask_model.connect(self.ask_model_current)
        judge = ctx.service.review.model_judge  # set once, when the app opened the store
        self.card.set_model_judge(judge.model if judge is not None else None)
        self.conflict_page = QWidget()
        self.conflict_layout = QHBoxLayout()
        self.keep_both_button = QPushButton(self.tr("Keep both"))
        self.keep_both_button.setToolTip(
            self.tr("Both are true: keep every memory of the set as it is")
        )
        self.keep_both_button.clicked.connect(self.keep_both)
        self.split_button = QPushButton(self.tr("Split by scope…"))
        self.split_button.setToolTip(
            self.tr("Both are true in different places: narrow each to its own scope")
        )
        self.split_button.clicked.connect(self.split_by_scope)
        both_bar = QHBoxLayout()
        both_bar.addWidget(QLabel(self.tr("Or keep them all:")))
        both_bar.addWidget(self.keep_both_button)
        both_bar.addWidget(self.split_button)
        both_bar.addStretch(1)
        conflict_box = QVBoxLayout(self.conflict_page)
        conflict_box.setContentsMargins(0, 0, 0, 0)
        conflict_box.addWidget(QLabel(self.tr("These memories contradict each other.")))
        conflict_box.addLayout(self.conflict_layout)
        conflict_box.addLayout(both_bar)
        conflict_box.addStretch(1)
        self._conflict: tuple[MemoryRecord, ...] = ()
        self.empty = QLabel(
            self.tr("Nothing to review. New suggestions from your agents appear here.")
        )
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.stack = QStackedWidget()
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.card)
        for page in (self.empty, scroll, self.conflict_page):
            self.stack.addWidget(page)
        self.approve_button = QPushButton(self.tr("Approve  (A)"))
        self.approve_button.setObjectName("Primary")
        self.edit_button = QPushButton(self.tr("Edit, then approve  (E)"))
        self.scope_button = QPushButton(self.tr("Change scope, then approve  (S)"))
        self.reject_button = QPushButton(self.tr("Reject…  (R)"))
        self.reject_button.setObjectName("Danger")
        self.approve_button.clicked.connect(self.approve_current)
        self.edit_button.clicked.connect(self.edit_current)
        self.scope_button.clicked.connect(self.rescope_current)
        self.reject_button.clicked.connect(self.reject_current)
        self.session_button = QPushButton(self.tr("All from this session…  (G)"))
        self.session_button.setToolTip(
            self.tr("Every suggestion of the session this one came from, on one screen")
        )
        self.session_button.clicked.connect(self.review_session_of_current)
        self.session_review: SessionReviewDialog | None = None
        buttons = QHBoxLayout()
        for b in (self.approve_button, self.edit_button, self.scope_button, self.reject_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        # The session's screen on a line of its own: five buttons in one row made the pane
        # so wide at 1280 px that the queue's list was squeezed to one character per line.
        session_row = QHBoxLayout()
        session_row.addStretch(1)
        session_row.addWidget(self.session_button)
        bar = QVBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addLayout(buttons)
        bar.addLayout(session_row)
        self.action_bar = QWidget()
        self.action_bar.setLayout(bar)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.addWidget(self.stack, 1)
        rl.addWidget(self.action_bar)
        splitter = QSplitter()
        splitter.addWidget(self.list)
        splitter.addWidget(right)
        splitter.setSizes([340, 660])
        self.list.setMinimumWidth(220)
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 12, 12, 12)
        layout.addWidget(splitter)
        self._shortcuts()

    def _shortcuts(self) -> None:
        self._keys: dict[Qt.Key, Callable[[], None]] = {
            Qt.Key.Key_A: self.approve_current,
            Qt.Key.Key_E: self.edit_current,
            Qt.Key.Key_S: self.rescope_current,
            Qt.Key.Key_R: self.reject_current,
            Qt.Key.Key_G: self.review_session_of_current,
            Qt.Key.Key_1: lambda: self.answer_current("same"),
            Qt.Key.Key_2: lambda: self.answer_current("replaces"),
            Qt.Key.Key_3: lambda: self.answer_current("both_true"),
            Qt.Key.Key_4: lambda: self.answer_current("unrelated"),
            Qt.Key.Key_Down: lambda: self.move_by(1),
            Qt.Key.Key_Up: lambda: self.move_by(-1),
        }
        for key, slot in self._keys.items():
            sc = QShortcut(QKeySequence(key), self)
            sc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            sc.activated.connect(lambda slot=slot: self._shortcut(slot))
        self.list.installEventFilter(self)

    def _shortcut(self, slot: Callable[[], None]) -> None:
        """Run a queue shortcut unless the letter belongs to a text field or a dialog."""
        if not letters_are_text(self) and self.active_dialog is None:
            slot()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Keys typed in the list act on the queue (the list's own type-ahead is not wanted)."""
        if watched is self.list and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            slot = self._keys.get(Qt.Key(event.key()))
            if slot is not None and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
                self._shortcut(slot)
                return True
        return super().eventFilter(watched, event)

    # --- loading --------------------------------------------------------------------

    def refresh(self) -> None:
        """Reload the queue, keeping the position."""
        query(self.ctx, load_queue).on_success(self._loaded).run(self)

    def _loaded(self, data: QueueData) -> None:
        keep = max(self._row, 0)
        self.model.set_queue(data)
        self.count_changed.emit(data.count)
        rows = self.model.selectable_rows()
        if not rows:
            self._row = -1
            self.stack.setCurrentIndex(0)
            self.action_bar.setEnabled(False)
            return
        target = next((r for r in rows if r >= keep), rows[-1])
        self.list.setCurrentIndex(self.model.index(target, 0))

    def move_by(self, step: int) -> None:
        """Move to the next (1) or previous (-1) item."""
        rows = self.model.selectable_rows()
        if not rows:
            return
        ahead = [r for r in rows if (r > self._row if step > 0 else r < self._row)]
        target = (ahead[0] if step > 0 else ahead[-1]) if ahead else self._row
        self.list.setCurrentIndex(self.model.index(target, 0))

    def _current_changed(self, current: QModelIndex, _prev: QModelIndex) -> None:
        entry = self.model.entry(current.row())
        if entry is None or entry.is_header:
            return
        self._row = current.row()
        self._conflict = ()
        if entry.conflict:
            self._show_conflict(entry.conflict)
            return
        record = entry.record
        assert record is not None
        self.stack.setCurrentIndex(1)
        self.action_bar.setVisible(True)
        self.action_bar.setEnabled(True)
        self.card.show_record(record)
        self._style_approve(quarantined=record.status.value == "quarantined")
        query(self.ctx, lambda s: load_evidence(s, record)).on_success(
            lambda ev: self._evidence(record, ev)
        ).run(self)

    def _style_approve(self, *, quarantined: bool) -> None:
        """For a quarantined item, Approve is an ordinary button (Reject is the likely choice)."""
        name = "" if quarantined else "Primary"
        if self.approve_button.objectName() != name:
            self.approve_button.setObjectName(name)
            self.approve_button.style().unpolish(self.approve_button)
            self.approve_button.style().polish(self.approve_button)
        self.approve_button.setText(
            self.tr("Approve…  (A)") if quarantined else self.tr("Approve  (A)")
        )

    def _evidence(self, record: MemoryRecord, ev: Evidence) -> None:
        current = self.current_record()
        if current is not None and current.id == ev.memory_id:
            self.card.show_evidence(record, ev)

    def _show_conflict(self, members: tuple[MemoryRecord, ...]) -> None:
        self._conflict = members
        self.stack.setCurrentIndex(2)
        # Approve/Edit/Reject do not apply to a conflict set: only "Keep this" does.
        self.action_bar.setVisible(False)
        self.action_bar.setEnabled(False)
        while self.conflict_layout.count():
            item = self.conflict_layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.keep_buttons: list[QPushButton] = []
        self.not_in_conflict_buttons: list[QPushButton] = []
        for r in members:
            other = next((m for m in members if m.id != r.id), r)
            self.conflict_layout.addWidget(self._conflict_card(r, other))

    def _conflict_card(self, r: MemoryRecord, other: MemoryRecord) -> QFrame:
        card = QFrame()
        card.setObjectName("Card")
        lay = QVBoxLayout(card)
        marked = differing_words(r.content, other.content)
        text = QLabel(f"<p style='font-size:15px'>{marked}</p>")
        text.setObjectName("ConflictText")
        text.setAccessibleDescription(
            self.tr("Words that differ from the other memory are marked.")
        )
        text.setWordWrap(True)
        meta = QLabel(
            f"{html.escape(str(r.scope))}<br>{html.escape(trust_text(r.source_trust.value))} · "
            f"{confidence_text(r.confidence)} · {local_time(r.created_at)}"
        )
        meta.setWordWrap(True)
        keep = QPushButton(self.tr("Keep this"))
        keep.setObjectName("Primary")
        keep.setAccessibleName(self.tr("Keep this: %1").replace("%1", r.content[:60]))
        keep.clicked.connect(lambda: self.keep(r))
        self.keep_buttons.append(keep)
        # The judge can be wrong about a conflict ("PostgreSQL 16" / "port 5432"): the user
        # takes one member out; it stays as it is, the others stay in the set (#40).
        out = QPushButton(self.tr("Not in conflict"))
        out.setToolTip(
            self.tr("This memory does not contradict the others: take it out of the set")
        )
        out.setAccessibleName(self.tr("Not in conflict: %1").replace("%1", r.content[:60]))
        out.clicked.connect(lambda: self.take_out(r))
        self.not_in_conflict_buttons.append(out)
        buttons = QHBoxLayout()
        buttons.addWidget(keep)
        buttons.addWidget(out)
        buttons.addStretch(1)
        lay.addWidget(QLabel(self.tr("Conflicting memory")))
        lay.addWidget(text)
        lay.addWidget(meta)
        lay.addStretch(1)
        lay.addLayout(buttons)
        return card

    # --- actions -------------------------------------------------------------------------

    def current_record(self) -> MemoryRecord | None:
        """The memory under review (None for headers and conflict sets)."""
        entry = self.model.entry(self._row)
        return entry.record if entry is not None else None

    def _done(self, message: str, undo: tuple[str, str] | None = None) -> None:
        """Say what happened; with `undo` = (memory id, action), offer to undo it."""
        if undo is None:
            self.notified.emit(message, None)
            return
        mid, action = undo
        self.notified.emit(message, lambda: self._undo(mid, action))

    def _undo(self, mid: str, action: str) -> None:
        words = {
            "approve": self.tr("Approval undone: the memory is back in the queue."),
            "reject": self.tr("Rejection undone: the memory is back in the queue."),
        }
        ops.undo_decision(self.ctx, mid, action).on_success(
            lambda _r: self._done(words.get(action, self.tr("Undone.")))
        ).run(self)

    def approve_current(self) -> None:
        """Approve the current memory as it is; a quarantined one only after a confirmation."""
        r = self.current_record()
        if r is None:
            return
        if r.status.value == "quarantined":
            self._confirm_quarantined(r)
            return
        self._approve(r)

    def _approve(self, r: MemoryRecord) -> None:
        ops.approve_candidate(self.ctx, r.id).on_success(
            lambda _r: self._done(self.tr("Approved."), (r.id, "approve"))
        ).run(self)

    def _confirm_quarantined(self, r: MemoryRecord) -> None:
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            self.tr("Approve a quarantined memory?"),
            self.tr(
                "It came from a low-trust source (a web page, an e-mail, an issue) and may "
                "carry instructions meant for your agents. Approve it only if you checked "
                "that it is true and harmless."
            ),
            QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel,
            self,
        )
        box.button(QMessageBox.StandardButton.Ok).setText(self.tr("Approve anyway"))
        box.button(QMessageBox.StandardButton.Cancel).setText(self.tr("Cancel"))
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAccessibleName(self.tr("Confirm approval of a quarantined memory"))
        self._open(box, lambda: self._approve(r))

    def edit_current(self) -> None:
        """Edit the wording, then approve."""
        r = self.current_record()
        if r is None:
            return
        dialog = EditDialog(r, self)
        self._open(
            dialog,
            lambda: (
                ops.edit_and_approve(self.ctx, r.id, dialog.value())
                .on_success(
                    lambda _r: self._done(self.tr("Edited and approved."), (r.id, "approve"))
                )
                .run(self)
            ),
        )

    def rescope_current(self) -> None:
        """Change the scope, then approve."""
        r = self.current_record()
        if r is None:
            return
        dialog = ScopeDialog(r, self, allow_any=True)
        self._open(
            dialog,
            lambda: (
                ops.rescope_and_approve(self.ctx, r, dialog.scope())
                .on_success(
                    lambda _r: self._done(self.tr("Scope changed and approved."), (r.id, "approve"))
                )
                .run(self)
            ),
        )

    def reject_current(self) -> None:
        """Reject with a reason."""
        r = self.current_record()
        if r is None:
            return
        dialog = ReasonDialog(
            self.tr("Reject suggestion"),
            self.tr("It stays in the ledger so it is not suggested again."),
            self,
            required=False,
        )
        self._open(
            dialog,
            lambda: (
                ops.reject_candidate(self.ctx, r.id, dialog.value())
                .on_success(lambda _r: self._done(self.tr("Rejected."), (r.id, "reject")))
                .run(self)
            ),
        )

    def answer_current(self, answer: str) -> None:
        """Answer the current "possibly ..." item (keys 1-4); nothing for other items."""
        r = self.current_record()
        if r is None or self.card.possible.isHidden():
            return
        words = {
            "same": self.tr("Merged into the other memory as more evidence."),
            "replaces": self.tr("Approved; it replaces the other memory."),
            "both_true": self.tr("Approved; both are kept."),
            "unrelated": self.tr("Approved; both are kept."),
        }
        ops.answer_possible(self.ctx, r.id, answer).on_success(
            lambda _r: self._done(words[answer])
        ).run(self)

    def ask_model_current(self) -> None:
        """Put the current "possibly ..." item to the configured model judge."""
        r = self.current_record()
        if r is None or self.card.possible.isHidden():
            return
        ops.ask_model_judge(self.ctx, r.id).on_success(self._model_answered).run(self)

    def _model_answered(self, settled: list[Any]) -> None:
        if not settled:
            self._done(self.tr("Nothing to ask: the item was answered meanwhile."))
            return
        s = settled[0]
        if s.outcome == "failed":
            self._done(self.tr("The model judge could not answer: %1").replace("%1", s.reason))
            return
        said = self.tr("The model judge answered “%1”: %2").replace("%1", s.answer)
        self._done(said.replace("%2", s.reason) + " — " + model_outcome(s.outcome))

    def review_session_of_current(self) -> None:
        """Open every suggestion of the current one's session on one screen."""
        r = self.current_record()
        if r is None:
            return
        query(self.ctx, lambda s: session_of(s, r)).on_success(self.review_session).run(self)

    def review_session(self, session: str | None) -> None:
        """The one-screen review of `session`'s suggestions (nothing without a session)."""
        if session is None or self.active_dialog is not None:
            return
        dialog = SessionReviewDialog(self.ctx, session, self)
        self.session_review = dialog
        self.active_dialog = dialog

        def closed(_code: int) -> None:
            self.active_dialog = None
            self.session_review = None

        dialog.finished.connect(closed)
        dialog.open()

    def keep(self, r: MemoryRecord) -> None:
        """Resolve the shown conflict set by keeping `r`; only members that contradict it are
        superseded (undone like every command, from the window's history)."""
        ops.resolve_conflict(self.ctx, r).on_success(
            lambda _rs: self._done(self.tr("Conflict resolved."))
        ).run(self)

    def take_out(self, r: MemoryRecord) -> None:
        """ "Not in conflict": `r` leaves the shown set and stays as it is."""
        ops.take_out_of_conflict(self.ctx, r).on_success(
            lambda _rs: self._done(self.tr("Taken out of the conflict set."))
        ).run(self)

    def keep_both(self) -> None:
        """Resolve the shown conflict set by keeping every member with its scope."""
        members = self._conflict
        if not members:
            return
        ops.keep_conflicting(self.ctx, members, {r.id: None for r in members}).on_success(
            lambda _rs: self._done(self.tr("Conflict resolved: both kept."))
        ).run(self)

    def split_by_scope(self) -> None:
        """Ask for one extra key=value per member, then keep all, each in its own scope."""
        members = self._conflict
        if not members:
            return
        dialog = SplitScopeDialog(members, self)
        self._open(
            dialog,
            lambda: (
                ops.keep_conflicting(self.ctx, members, dialog.scopes())
                .on_success(lambda _rs: self._done(self.tr("Conflict resolved: split by scope.")))
                .run(self)
            ),
        )

    def _open(self, dialog: QWidget, on_accept: Callable[[], None]) -> None:
        self.active_dialog = dialog
        dialog.accepted.connect(on_accept)  # type: ignore[attr-defined]
        dialog.finished.connect(lambda _c: setattr(self, "active_dialog", None))  # type: ignore[attr-defined]
        dialog.open()  # type: ignore[attr-defined]
