"""Memory detail: content, scope, validity, lineage, history, sources and usage (R25, R26).

Actions: downgrade scope, disable/enable (with undo), exclude from a session, quarantine,
delete with an optional purge.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from core import ChangeKind, MemoryRecord

from ui.dialogs import DeleteDialog, ReasonDialog, ScopeDialog, SessionDialog
from ui.operations import memory as ops
from ui.ops import query
from ui.presentation import (
    confidence_text,
    kind_text,
    local_time,
    relative_expiry,
    status_icon,
    status_text,
    trust_text,
)
from ui.views.base import RefreshingView
from ui.views.detail_data import DetailData, load_detail
from ui.views.detail_text import history_html, revisions_html, sources_html
from ui.views.usage_trace import uses_html

Undo = Callable[[], None] | None


def _section(title: str) -> QLabel:
    label = QLabel(title)
    label.setObjectName("SectionTitle")
    return label


def _wrapping(label: QLabel) -> QLabel:
    """Wrap, and never ask for more width than the panel has (long ids, scopes, paths)."""
    label.setWordWrap(True)
    label.setMinimumWidth(1)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    return label


def _rich() -> QLabel:
    label = _wrapping(QLabel())
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
    return label


class DetailPanel(RefreshingView):
    """The side panel for one memory.

    Signals:
        memory_linked: (str) the user followed a supersedes/conflict link.
        session_linked: (str, str) session and event id of a source event the user clicked.
        replay_linked: (str, str) session and snapshot id of a model call to replay.
        notified: (str, object) a message for the status bar and an undo callable or None.
    """

    memory_linked = Signal(str)
    session_linked = Signal(str, str)
    replay_linked = Signal(str, str)
    notified = Signal(str, object)
    watched = frozenset({ChangeKind.MEMORIES, ChangeKind.CANDIDATES, ChangeKind.SNAPSHOTS})

    def __init__(self, ctx, parent: QWidget | None = None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx, parent)
        self.setObjectName("DetailPanel")
        self.data: DetailData | None = None
        self.memory_id: str | None = None
        self.active_dialog: QWidget | None = None
        self._shown_id: str | None = None
        self._build()
        self.show_empty()

    # --- building -------------------------------------------------------------------

    def _build(self) -> None:
        self.status = QLabel()
        self.status.setObjectName("DetailStatus")
        self.status.setAccessibleName(self.tr("Memory status"))
        self.status_icon = QLabel()
        self.content = QLabel()
        self.content.setObjectName("DetailContent")
        _wrapping(self.content)
        _wrapping(self.status)
        self.content.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.content.setAccessibleName(self.tr("Memory content"))
        self.fields = QFormLayout()
        self.fields.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.field_labels: dict[str, QLabel] = {}
        for key, title in self._field_titles():
            label = _rich()
            label.linkActivated.connect(self._link)
            label.setAccessibleName(title)
            self.field_labels[key] = label
            self.fields.addRow(title, label)
        self.downgrade_button = QPushButton(self.tr("Narrow scope…"))
        self.toggle_button = QPushButton(self.tr("Disable"))
        self.exclude_button = QPushButton(self.tr("Exclude…"))
        self.exclude_button.setToolTip(self.tr("Keep this memory out of one session's injections"))
        self.quarantine_button = QPushButton(self.tr("Quarantine…"))
        self.delete_button = QPushButton(self.tr("Delete…"))
        self.delete_button.setObjectName("Danger")
        self.downgrade_button.clicked.connect(self.ask_downgrade)
        self.toggle_button.clicked.connect(self.toggle_enabled)
        self.exclude_button.clicked.connect(self.ask_exclude)
        self.quarantine_button.clicked.connect(self.ask_quarantine)
        self.delete_button.clicked.connect(self.ask_delete)
        actions = QGridLayout()
        for i, b in enumerate(
            (
                self.toggle_button,
                self.downgrade_button,
                self.exclude_button,
                self.quarantine_button,
                self.delete_button,
            )
        ):
            actions.addWidget(b, i // 2, i % 2)
        self.sources = _rich()
        self.usage = _rich()
        self.history = _rich()
        self.revision_list = _rich()
        for label in (self.sources, self.usage, self.history, self.revision_list):
            label.linkActivated.connect(self._link)
        inner = QWidget()
        inner.setObjectName("DetailInner")
        lay = QVBoxLayout(inner)
        head = QHBoxLayout()
        head.addWidget(self.status_icon)
        head.addWidget(self.status, 1)
        lay.addLayout(head)
        lay.addWidget(self.content)
        # Everything below the headline shows only when a memory is selected.
        body = QWidget()
        body_lay = QVBoxLayout(body)
        body_lay.setContentsMargins(0, 0, 0, 0)
        body_lay.addLayout(actions)
        body_lay.addLayout(self.fields)
        for title, label in (
            (self.tr("Source events"), self.sources),
            (self.tr("Usage trace"), self.usage),
            (self.tr("History of decisions"), self.history),
            (self.tr("Revisions"), self.revision_list),
        ):
            body_lay.addWidget(_section(title))
            body_lay.addWidget(label)
        lay.addWidget(body)
        lay.addStretch(1)
        self._body = body
        for button in (
            self.toggle_button,
            self.downgrade_button,
            self.exclude_button,
            self.quarantine_button,
            self.delete_button,
        ):
            button.setMinimumWidth(1)
            button.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
            button.setToolTip(button.text())
        self.setMinimumWidth(340)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(inner)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        self._inner = inner
        self.scroll_area = scroll

    def _field_titles(self) -> list[tuple[str, str]]:
        return [
            ("kind", self.tr("Kind")),
            ("scope", self.tr("Scope")),
            ("confidence", self.tr("Confidence")),
            ("trust", self.tr("Source trust")),
            ("validity", self.tr("Valid")),
            ("said", self.tr("Said")),
            ("speaker", self.tr("Speaker")),
            ("sensitivity", self.tr("Sensitivity")),
            ("lineage", self.tr("Supersedes")),
            ("conflict", self.tr("Conflict set")),
            ("owner", self.tr("Owner")),
            ("id", self.tr("Id")),
        ]

    # --- loading --------------------------------------------------------------------------

    def show_memory(self, memory_id: str) -> None:
        """Load and show one memory, from its headline (another memory starts at the top)."""
        if memory_id != self.memory_id:
            self.scroll_area.verticalScrollBar().setValue(0)
        self.memory_id = memory_id
        self.show()
        self.refresh_now()

    def show_empty(self) -> None:
        """Nothing selected."""
        self.memory_id = None
        self.data = None
        self._body.hide()
        # With nothing to show, the panel gives its width back to the timeline.
        self.hide()
        self.status_icon.clear()
        self.status.setText(
            self.tr("Select a memory to see where it came from and how it is used.")
        )
        self.content.setText("")

    def refresh(self) -> None:
        """Reload the shown memory."""
        mid = self.memory_id
        if mid is None:
            return
        query(self.ctx, lambda s: load_detail(s, mid)).on_success(self._loaded).run(self)

    def _loaded(self, data: DetailData) -> None:
        if data.record.id != self.memory_id:
            return
        self.data = data
        r = data.record
        now = self.ctx.now()
        status = r.effective_status(now)
        self._body.show()
        pix = status_icon(status).pixmap(18, 18)
        self.status.setText(
            f"<span>{html.escape(status_text(status).upper())}</span> · "
            f"{html.escape(kind_text(r.kind.value))} · {confidence_text(r.confidence)}"
        )
        self.status_icon.setPixmap(pix)
        self.content.setText(r.content or self.tr("(content purged)"))
        if self._shown_id != r.id:
            self._shown_id = r.id
            self.scroll_area.verticalScrollBar().setValue(0)
        self._fill_fields(r, data)
        self.sources.setText(sources_html(data.chain.source_events))
        self.usage.setText(uses_html(data.uses, len(data.chain.injections)))
        self.history.setText(history_html(data.chain.decisions))
        self.revision_list.setText(revisions_html(data.revisions))
        self._update_actions(status)

    def _fill_fields(self, r: MemoryRecord, data: DetailData) -> None:
        now = self.ctx.now()
        f = self.field_labels
        f["kind"].setText(html.escape(kind_text(r.kind.value)))
        f["scope"].setText(html.escape(str(r.scope)))
        f["confidence"].setText(confidence_text(r.confidence))
        f["trust"].setText(html.escape(trust_text(r.source_trust.value)))
        f["validity"].setText(
            html.escape(
                self.tr("from %1, expires %2")
                .replace("%1", local_time(r.valid_from))
                .replace("%2", relative_expiry(r.expires_at, now))
            )
        )
        # Imported history has a time of its own: when it was said, not when it was stored.
        said = r.own_time()
        f["said"].setText(
            html.escape(
                self.tr("%1, recorded %2")
                .replace("%1", local_time(said))
                .replace("%2", local_time(r.created_at))
                if said is not None
                else self.tr("when recorded (%1)").replace("%1", local_time(r.created_at))
            )
        )
        f["speaker"].setText(html.escape(r.speaker) if r.speaker else "—")
        sensitivity = {
            "none": self.tr("nothing sensitive found"),
            "redacted": self.tr("sensitive parts removed"),
            "sensitive": self.tr("sensitive"),
        }.get(r.sensitivity.value, r.sensitivity.value)
        f["sensitivity"].setText(html.escape(sensitivity))
        lineage = []
        if r.supersedes:
            lineage.append(
                self.tr("supersedes") + f' <a href="memory:{r.supersedes}">{r.supersedes}</a>'
            )
        if r.superseded_by:
            lineage.append(
                self.tr("superseded by")
                + f' <a href="memory:{r.superseded_by}">{r.superseded_by}</a>'
            )
        f["lineage"].setText("<br>".join(lineage) or "—")
        members = [
            f'<a href="memory:{m.id}">{html.escape(m.content[:60])}</a>'
            for m in data.conflict_members
            if m.id != r.id
        ]
        conflict = self.tr("in conflict with: ") + "; ".join(members) if members else "—"
        f["conflict"].setText(conflict if r.conflict_set else "—")
        f["owner"].setText(html.escape(r.owner))
        f["id"].setText(
            f"<code>{r.id}</code><br>"
            + html.escape(self.tr("wording version %1").replace("%1", str(r.revision)))
        )

    def _update_actions(self, status: str) -> None:
        live = status in ("active", "disabled", "candidate", "quarantined", "expired")
        self.toggle_button.setText(
            self.tr("Enable") if status == "disabled" else self.tr("Disable")
        )
        self.toggle_button.setEnabled(status in ("active", "disabled"))
        self.downgrade_button.setEnabled(status in ("active", "candidate", "disabled"))
        self.exclude_button.setEnabled(status == "active")
        self.quarantine_button.setEnabled(status in ("active", "candidate", "disabled"))
        # A memory deleted but not purged keeps its encrypted text "until purged": the
        # button then offers that purge.
        record = self.data.record if self.data is not None else None
        unpurged = status == "deleted" and record is not None and bool(record.content)
        self.delete_button.setText(self.tr("Purge…") if unpurged else self.tr("Delete…"))
        self.delete_button.setEnabled(live or unpurged or status in ("superseded", "rejected"))

    def _link(self, href: str) -> None:
        kind, _, rest = href.partition(":")
        if kind == "memory":
            self.memory_linked.emit(rest)
        elif kind == "session":
            session, _, event_id = rest.partition("#")
            self.session_linked.emit(session, event_id)
        elif kind == "replay":
            session, _, snapshot_id = rest.partition("#")
            self.replay_linked.emit(session, snapshot_id)

    # --- actions -------------------------------------------------------------------------

    def _record(self) -> MemoryRecord | None:
        return self.data.record if self.data else None

    def toggle_enabled(self) -> None:
        """Disable an active memory or enable a disabled one; offer undo."""
        r = self._record()
        if r is None:
            return
        if r.status.value == "disabled":
            self._run_enable(r.id)
        else:
            self._run_disable(r.id)

    def _run_disable(self, mid: str) -> None:
        ops.disable_memory(self.ctx, mid).on_success(
            lambda _r: self.notified.emit(
                self.tr("Memory disabled."), lambda: self._run_enable(mid)
            )
        ).run(self)

    def _run_enable(self, mid: str) -> None:
        ops.enable_memory(self.ctx, mid).on_success(
            lambda _r: self.notified.emit(
                self.tr("Memory enabled."), lambda: self._run_disable(mid)
            )
        ).run(self)

    def ask_downgrade(self) -> None:
        """Ask for the extra key=value, then narrow the scope (undo widens it back)."""
        r = self._record()
        if r is None:
            return
        dialog = ScopeDialog(r, self)
        old = dict(r.scope.items())

        def done() -> None:
            undo = lambda: ops.widen_scope(self.ctx, r.id, old).run(self)  # noqa: E731
            ops.downgrade_scope(self.ctx, r.id, dialog.scope()).on_success(
                lambda _r: self.notified.emit(self.tr("Scope narrowed."), undo)
            ).run(self)

        self._open(dialog, done)

    def ask_exclude(self) -> None:
        """Ask which session, then keep this memory out of it (undo includes it again)."""
        r = self._record()
        if r is None or self.data is None:
            return
        dialog = SessionDialog(self.data.sessions, self)
        self._open(dialog, lambda: self._run_exclude(r.id, dialog.value()))

    def _run_exclude(self, mid: str, session: str) -> None:
        ops.exclude_from_session(self.ctx, mid, session).on_success(
            lambda _r: self.notified.emit(
                self.tr("Excluded from the session."), lambda: self._run_include(mid, session)
            )
        ).run(self)

    def _run_include(self, mid: str, session: str) -> None:
        ops.include_in_session(self.ctx, mid, session).on_success(
            lambda _r: self.notified.emit(
                self.tr("Included in the session again."),
                lambda: self._run_exclude(mid, session),
            )
        ).run(self)

    def ask_quarantine(self) -> None:
        """Ask why, then stop injecting the memory everywhere."""
        r = self._record()
        if r is None:
            return
        dialog = ReasonDialog(
            self.tr("Quarantine memory"),
            self.tr("It will not be injected anywhere until you approve it again."),
            self,
        )
        self._open(
            dialog,
            lambda: (
                ops.quarantine_memory(self.ctx, r.id, dialog.value())
                .on_success(
                    lambda rep: self.notified.emit(
                        self.tr(
                            "Quarantined; %n session(s) had used it.",
                            "",
                            len(rep.affected_sessions),
                        ),
                        lambda: self._undo_quarantine(r.id),
                    )
                )
                .run(self)
            ),
        )

    def _undo_quarantine(self, mid: str) -> None:
        ops.undo_decision(self.ctx, mid, "quarantine").on_success(
            lambda _r: self.notified.emit(self.tr("Quarantine undone."), None)
        ).run(self)

    def ask_delete(self) -> None:
        """Confirm, then tombstone (and optionally purge) the memory."""
        r, data = self._record(), self.data
        if r is None or data is None:
            return
        sources = [e.text for e in data.chain.source_events if not e.redacted]
        deleted = r.status.value == "deleted"
        dialog = DeleteDialog(
            r,
            len(data.revisions),
            len(data.chain.injections),
            self,
            sources=sources,
            deleted=deleted,
        )
        done = self.tr("Memory purged.") if deleted else self.tr("Memory deleted.")
        self._open(
            dialog,
            lambda: (
                ops.delete_memory(
                    self.ctx,
                    r.id,
                    dialog.value(),
                    purge=dialog.purge.isChecked(),
                    purge_events=dialog.purge.isChecked() and dialog.purge_events.isChecked(),
                )
                .on_success(lambda _t: self.notified.emit(done, None))
                .run(self)
            ),
        )

    def _open(self, dialog: QWidget, on_accept: Callable[[], None]) -> None:
        self.active_dialog = dialog
        dialog.accepted.connect(on_accept)  # type: ignore[attr-defined]
        dialog.finished.connect(lambda _code: setattr(self, "active_dialog", None))  # type: ignore[attr-defined]
        dialog.open()  # type: ignore[attr-defined]
