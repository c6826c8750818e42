"""The card of one memory under review: wording, warnings, policy reasons and evidence."""

from __future__ import annotations

import html

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from core import MemoryFlag, MemoryRecord, Sensitivity

from ui.models.review_model import Evidence
from ui.presentation import (
    actor_text,
    confidence_text,
    kind_text,
    local_time,
    source_text,
    trust_text,
)
from ui.reasons import reason_text
from ui.views.highlight import differing_words, highlight

# The answers to "possibly the same as / replaces / contradicts m_…" (#40), with their keys.
ANSWERS = ("same", "replaces", "both_true", "unrelated")


def answer_labels() -> dict[str, str]:
    """Button texts of the four answers, with their keys."""
    return {
        "same": QCoreApplication.translate("Review", "The same  (1)"),
        "replaces": QCoreApplication.translate("Review", "Replaces it  (2)"),
        "both_true": QCoreApplication.translate("Review", "Both true  (3)"),
        "unrelated": QCoreApplication.translate("Review", "Unrelated  (4)"),
    }


def doubt_title(asked: str) -> str:
    """What the judge could not decide, as the section's title."""
    titles = {
        "the same as": QCoreApplication.translate("Review", "Possibly the same as this memory:"),
        "replaces": QCoreApplication.translate("Review", "Possibly replaces this memory:"),
        "contradicts": QCoreApplication.translate("Review", "Possibly contradicts this memory:"),
    }
    return titles.get(asked, titles["the same as"])


def quarantine_warning() -> str:
    """Why quarantined items are kept apart."""
    return QCoreApplication.translate(
        "Review",
        "Quarantined: this came from a low-trust source (a web page, e-mail, issue or tool "
        "output) or was stopped in an incident. Such text can try to instruct the agent. "
        "Approve only if you checked the source and agree with it.",
    )


class ReviewCard(QFrame):
    """Shows one candidate or quarantined record with its evidence.

    Signals:
        answered: (str) the user's answer to "possibly ..." (one of `ANSWERS`).
        ask_model: the user asks the configured model judge about it.
    """

    answered = Signal(str)
    ask_model = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Card")
        self.warning = QLabel()
        self.warning.setObjectName("Warning")
        self.warning.setWordWrap(True)
        self.warning.setAccessibleName(QCoreApplication.translate("Review", "Warning"))
        self.content = QLabel()
        self.content.setObjectName("CardContent")
        self.content.setWordWrap(True)
        self.content.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.content.setAccessibleName(QCoreApplication.translate("Review", "Suggested memory"))
        self.meta = QLabel()
        self.meta.setWordWrap(True)
        self.meta.setTextFormat(Qt.TextFormat.RichText)
        self.reasons = QLabel()
        self.reasons.setWordWrap(True)
        self.reasons.setAccessibleName(QCoreApplication.translate("Review", "Policy reasons"))
        self.evidence = QLabel()
        self.evidence.setWordWrap(True)
        self.evidence.setTextFormat(Qt.TextFormat.RichText)
        self.evidence.setAccessibleName(QCoreApplication.translate("Review", "Evidence"))
        self.possible = self._possible_box()
        layout = QVBoxLayout(self)
        layout.addWidget(self.warning)
        layout.addWidget(self.content)
        layout.addWidget(self.meta)
        layout.addWidget(self.possible)
        title = QLabel(QCoreApplication.translate("Review", "Why it is here"))
        title.setObjectName("SectionTitle")
        layout.addWidget(title)
        layout.addWidget(self.reasons)
        title2 = QLabel(
            QCoreApplication.translate("Review", "Evidence (the memory's words are highlighted)")
        )
        title2.setObjectName("SectionTitle")
        layout.addWidget(title2)
        layout.addWidget(self.evidence)
        layout.addStretch(1)

    def _possible_box(self) -> QFrame:
        """The other memory of a "possibly ..." item, side by side, and one key per answer."""
        box = QFrame()
        box.setObjectName("Card")
        self.possible_title = QLabel()
        self.possible_title.setObjectName("SectionTitle")
        self.possible_text = QLabel()
        self.possible_text.setWordWrap(True)
        self.possible_text.setTextFormat(Qt.TextFormat.RichText)
        self.possible_text.setAccessibleName(
            QCoreApplication.translate("Review", "The other memory")
        )
        self.possible_text.setAccessibleDescription(
            QCoreApplication.translate(
                "Review", "Words that differ from the suggestion are marked."
            )
        )
        self.possible_meta = QLabel()
        self.possible_meta.setWordWrap(True)
        self.possible_meta.setTextFormat(Qt.TextFormat.PlainText)
        self.answer_buttons: dict[str, QPushButton] = {}
        row = QHBoxLayout()
        for answer, label in answer_labels().items():
            button = QPushButton(label)
            button.clicked.connect(lambda _c=False, a=answer: self.answered.emit(a))
            self.answer_buttons[answer] = button
            row.addWidget(button)
        row.addStretch(1)
        # Only when the user configured a model judge (`set_model_judge`); on a row of its
        # own, so the card never grows wider than the pane.
        self.ask_button = QPushButton()
        self.ask_button.clicked.connect(self.ask_model.emit)
        self.ask_button.setVisible(False)
        ask_row = QHBoxLayout()
        ask_row.addStretch(1)
        ask_row.addWidget(self.ask_button)
        lay = QVBoxLayout(box)
        lay.addWidget(self.possible_title)
        lay.addWidget(self.possible_text)
        lay.addWidget(self.possible_meta)
        lay.addLayout(row)
        lay.addLayout(ask_row)
        box.setVisible(False)
        return box

    def set_model_judge(self, model: str | None) -> None:
        """Offer "Ask <model>" on "possibly ..." items when a model judge is configured."""
        self.ask_button.setVisible(model is not None)
        if model is not None:
            self.ask_button.setText(
                QCoreApplication.translate("Review", "Ask %1…").replace("%1", model)
            )
            self.ask_button.setToolTip(
                QCoreApplication.translate(
                    "Review",
                    "Ask the model judge you configured; its answer is applied under the "
                    "trust rules, and an agent's suggestion still waits for you",
                )
            )

    def show_possible(self, r: MemoryRecord, possible: tuple[str, MemoryRecord] | None) -> None:
        """Show the other memory of a "possibly ..." item, or hide the section."""
        self.possible.setVisible(possible is not None)
        if possible is None:
            return
        asked, other = possible
        self.possible_title.setText(doubt_title(asked))
        marked = differing_words(other.content, r.content)
        self.possible_text.setText(f"<p style='font-size:15px'>{marked}</p>")
        self.possible_meta.setText(
            f"{other.scope} · {trust_text(other.source_trust.value)} · "
            f"{confidence_text(other.confidence)} · {local_time(other.created_at)}"
        )

    def show_record(self, r: MemoryRecord) -> None:
        """Show the record; evidence follows when loaded."""
        quarantined = r.status.value == "quarantined"
        self.warning.setVisible(quarantined or r.source_trust.value == "untrusted")
        self.warning.setText("⚠ " + quarantine_warning())
        self.content.setText(r.spoken())
        redacted = r.sensitivity != Sensitivity.NONE or MemoryFlag.REDACTED in r.flags
        parts = [
            f"<b>{html.escape(kind_text(r.kind.value))}</b>",
            QCoreApplication.translate("Review", "proposed scope")
            + f": <code>{html.escape(str(r.scope))}</code>",
            QCoreApplication.translate("Review", "source")
            + ": "
            + html.escape(trust_text(r.source_trust.value)),
            QCoreApplication.translate("Review", "confidence")
            + ": "
            + confidence_text(r.confidence),
        ]
        if redacted:
            parts.append(
                "▮ "
                + html.escape(
                    QCoreApplication.translate("Review", "redacted: sensitive parts were removed")
                )
            )
        if r.expires_at is not None:
            parts.append(
                QCoreApplication.translate("Review", "waits until") + " " + local_time(r.expires_at)
            )
        self.meta.setText(" · ".join(parts))
        self.reasons.setText(QCoreApplication.translate("Review", "Loading…"))
        self.evidence.setText("")
        self.possible.setVisible(False)

    def show_evidence(self, r: MemoryRecord, ev: Evidence) -> None:
        """Show the policy's reasons and each source event with the memory's words marked."""
        self.reasons.setText(reason_text(ev.reasons) if ev.reasons else "—")
        self.show_possible(r, ev.possible)
        rows = []
        for e in ev.events:
            body = (
                QCoreApplication.translate("Review", "(redacted)")
                if e.redacted
                else highlight(e.text[:1200], r.content)
            )
            rows.append(
                f"<p><b>{html.escape(actor_text(e.actor.value))}</b> · "
                f"{html.escape(trust_text(e.trust.value))}"
                f"{' · ' + html.escape(source_text(e.source.value)) if e.source else ''} · "
                f"{html.escape(e.session_id)} · {local_time(e.ts)}<br>{body}</p>"
            )
        self.evidence.setText(
            "".join(rows) or QCoreApplication.translate("Review", "No source events.")
        )
