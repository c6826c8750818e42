"""One screen for the suggestions of one session: every memory the session produced that
waits for a decision, each with its evidence, approved or rejected in place (#42, R25).

Opened from the Sessions page ("Review its suggestions…") and from the review queue ("All
from this session…"). Keys: Down/Up (or J/K) move, A approves, R rejects (no reason asked:
the whole screen is one sitting), Ctrl+Enter approves every remaining suggestion that is not
quarantined; Escape closes. A quarantined suggestion is approved only after a confirmation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from core import MemoryFilter, MemoryRecord, MemoryService, MemoryStatus

from ui.context import UiContext
from ui.models.review_model import Evidence, load_evidence
from ui.operations import memory as ops
from ui.ops import query
from ui.views.review_card import ReviewCard

PENDING = (MemoryStatus.CANDIDATE, MemoryStatus.QUARANTINED)


@dataclass(frozen=True)
class Suggestion:
    """A memory waiting for review, with why it is there and what it came from."""

    record: MemoryRecord
    evidence: Evidence


def session_of(service: MemoryService, record: MemoryRecord) -> str | None:
    """The session a suggestion came from (its first source event's), None without one."""
    if not record.source_event_ids:
        return None
    events = service.events.get_events(list(record.source_event_ids[:1]))
    return events[0].session_id if events else None


def load_session_suggestions(service: MemoryService, session: str) -> list[Suggestion]:
    """Every suggestion waiting for review that cites an event of `session`, oldest first."""
    pending = service.memories.list_memories(MemoryFilter(statuses=PENDING, limit=10_000_000))
    cited = sorted({i for r in pending for i in r.source_event_ids})
    in_session = {e.id for e in service.events.get_events(cited) if e.session_id == session}
    mine = [r for r in pending if in_session.intersection(r.source_event_ids)]
    mine.sort(key=lambda r: (r.created_at, r.id))
    return [Suggestion(r, load_evidence(service, r)) for r in mine]


class SuggestionRow(QFrame):
    """One suggestion: its card and its two decisions, then what was decided."""

    def __init__(self, item: Suggestion, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.item = item
        self.decided = ""
        self.setObjectName("SessionSuggestion")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setLineWidth(2)
        self.card = ReviewCard()
        self.card.show_record(item.record)
        self.card.show_evidence(item.record, item.evidence)
        self.approve_button = QPushButton(self.tr("Approve  (A)"))
        self.approve_button.setObjectName("Primary")
        self.reject_button = QPushButton(self.tr("Reject  (R)"))
        self.reject_button.setObjectName("Danger")
        self.state = QLabel()
        self.state.setObjectName("Muted")
        bar = QHBoxLayout()
        bar.addWidget(self.approve_button)
        bar.addWidget(self.reject_button)
        bar.addWidget(self.state, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.card)
        layout.addLayout(bar)

    def mark(self, decided: str, text: str) -> None:
        """Show the decision; the buttons are done."""
        self.decided = decided
        self.state.setText(text)
        self.approve_button.setEnabled(False)
        self.reject_button.setEnabled(False)

    def set_current(self, current: bool) -> None:
        """The row the keys act on is drawn raised."""
        self.setFrameShadow(QFrame.Shadow.Raised if current else QFrame.Shadow.Plain)
        self.setFrameShape(QFrame.Shape.Box if current else QFrame.Shape.StyledPanel)


class SessionReviewDialog(QDialog):
    """Every waiting suggestion of one session, with evidence, decided on one screen."""

    def __init__(self, ctx: UiContext, session: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.session = session
        self.rows: list[SuggestionRow] = []
        self.current = -1
        self.confirmation: QMessageBox | None = None
        self.setWindowTitle(self.tr("Suggestions from one session"))
        self.setAccessibleName(self.tr("Suggestions of the session %1").replace("%1", session))
        self.resize(820, 640)
        self.title = QLabel(self.tr("Loading…"))
        self.title.setObjectName("ViewTitle")
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.body = QWidget()
        self.body_layout = QVBoxLayout(self.body)
        self.body_layout.addStretch(1)
        self.scroller = QScrollArea()
        self.scroller.setWidgetResizable(True)
        self.scroller.setWidget(self.body)
        self.approve_all_button = QPushButton(self.tr("Approve all remaining  (Ctrl+Enter)"))
        self.approve_all_button.clicked.connect(self.approve_all)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.button(QDialogButtonBox.StandardButton.Close).setText(self.tr("Close"))
        buttons.addButton(self.approve_all_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.scroller, 1)
        layout.addWidget(buttons)
        keys: dict[str, Callable[[], None]] = {
            "A": self.approve_current,
            "R": self.reject_current,
            "Down": lambda: self.move_by(1),
            "J": lambda: self.move_by(1),
            "Up": lambda: self.move_by(-1),
            "K": lambda: self.move_by(-1),
            "Ctrl+Return": self.approve_all,
            "Ctrl+Enter": self.approve_all,
        }
        for key, slot in keys.items():
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.activated.connect(lambda slot=slot: self._key(slot))
        self.load()

    def _key(self, slot: Callable[[], None]) -> None:
        if self.confirmation is None:  # keys belong to the confirmation while it is open
            slot()

    def load(self) -> None:
        """Read the session's waiting suggestions (off the UI thread)."""
        session = self.session
        query(self.ctx, lambda s: load_session_suggestions(s, session)).on_success(
            self._loaded
        ).run(self)

    def _loaded(self, items: list[Suggestion]) -> None:
        for row in self.rows:
            row.setParent(None)
            row.deleteLater()
        self.rows = []
        for item in items:
            row = SuggestionRow(item)
            row.approve_button.clicked.connect(lambda _c=False, r=row: self.approve(r))
            row.reject_button.clicked.connect(lambda _c=False, r=row: self.reject_row(r))
            self.body_layout.insertWidget(self.body_layout.count() - 1, row)
            self.rows.append(row)
        self._show_count()
        self.select(0 if self.rows else -1)

    def _show_count(self) -> None:
        left = sum(1 for r in self.rows if not r.decided)
        if not self.rows:
            text = self.tr("No suggestions from the session %1 wait for review.")
        elif left:
            text = self.tr("Suggestions from the session %1 waiting for a decision: %2")
        else:
            text = self.tr("Every suggestion from the session %1 is decided.")
        self.title.setText(text.replace("%2", str(left)).replace("%1", self.session))
        self.approve_all_button.setEnabled(
            any(not r.decided and not _quarantined(r) for r in self.rows)
        )

    # --- moving ---------------------------------------------------------------------

    def select(self, index: int) -> None:
        """Make row `index` the one the keys act on, and scroll to it."""
        for i, row in enumerate(self.rows):
            row.set_current(i == index)
        self.current = index
        if 0 <= index < len(self.rows):
            self.scroller.ensureWidgetVisible(self.rows[index], 0, 40)

    def move_by(self, step: int) -> None:
        """To the next (1) or previous (-1) suggestion."""
        if self.rows:
            self.select(min(max(self.current + step, 0), len(self.rows) - 1))

    def _next_open(self) -> None:
        """After a decision: the next undecided suggestion below, else above."""
        order = list(range(self.current + 1, len(self.rows))) + list(range(self.current))
        for i in order:
            if not self.rows[i].decided:
                self.select(i)
                return

    def current_row(self) -> SuggestionRow | None:
        """The row the keys act on (None when there is none)."""
        return self.rows[self.current] if 0 <= self.current < len(self.rows) else None

    # --- deciding -------------------------------------------------------------------

    def approve_current(self) -> None:
        """Approve the current suggestion (a quarantined one after a confirmation)."""
        row = self.current_row()
        if row is not None:
            self.approve(row)

    def reject_current(self) -> None:
        """Reject the current suggestion."""
        row = self.current_row()
        if row is not None:
            self.reject_row(row)

    def approve(self, row: SuggestionRow) -> None:
        """Approve one suggestion."""
        if row.decided:
            return
        self.select(self.rows.index(row))
        if _quarantined(row):
            self._confirm(row)
            return
        self._approve(row)

    def _approve(self, row: SuggestionRow) -> None:
        ops.approve_candidate(self.ctx, row.item.record.id).on_success(
            lambda _r: self._decided(row, "approved", self.tr("Approved."))
        ).run(self)

    def reject_row(self, row: SuggestionRow) -> None:
        """Reject one suggestion; it stays in the ledger so it is not suggested again."""
        if row.decided:
            return
        self.select(self.rows.index(row))
        ops.reject_candidate(self.ctx, row.item.record.id, "").on_success(
            lambda _r: self._decided(row, "rejected", self.tr("Rejected."))
        ).run(self)

    def approve_all(self) -> None:
        """Approve every remaining suggestion that is not quarantined (those need a look)."""
        for row in self.rows:
            if not row.decided and not _quarantined(row):
                self._approve(row)

    def _decided(self, row: SuggestionRow, decided: str, text: str) -> None:
        row.mark(decided, text)
        self._show_count()
        if self.current_row() is row:
            self._next_open()

    def _confirm(self, row: SuggestionRow) -> None:
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
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.accepted.connect(lambda: self._approve(row))
        box.finished.connect(lambda _r: setattr(self, "confirmation", None))
        self.confirmation = box
        box.open()


def _quarantined(row: SuggestionRow) -> bool:
    return row.item.record.status == MemoryStatus.QUARANTINED
