"""One screen for a session's suggestions, opened from the Sessions page and from the review
queue; decided with keys and clicks, asserted on the store (#42, R25)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from core import Actor, MemoryService, NewEvent, TrustLevel
from tests.ui.conftest import TIMEOUT, status_of, wait_status

from ui.main_window import REVIEW, SESSIONS, MainWindow
from ui.views.session_review import SessionReviewDialog

SESSION = "claude-code:review-one-screen"
SAID = (
    "I prefer pnpm over npm for every frontend project.",
    "We always squash-merge pull requests in this repo.",
    "Never push directly to main.",
)


def _session(service: MemoryService, session: str = SESSION, said: tuple[str, ...] = SAID) -> None:
    """A session whose extraction leaves one suggestion per thing the user said."""
    for text in said:
        service.events.append_event(
            NewEvent(session, Actor.USER, TrustLevel.USER, {"user": "alice"}, text)
        )
    service.memories.extract(session)
    assert all(status_of(service, text) == "candidate" for text in said)


def _contents(dialog: SessionReviewDialog) -> list[str]:
    return [row.item.record.content for row in dialog.rows]


def test_a_session_s_suggestions_are_decided_on_one_screen(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    _session(demo)
    window.nav.setCurrentRow(SESSIONS)
    view = window.sessions
    qtbot.waitUntil(lambda: view.sessions.row_of(SESSION) >= 0, timeout=TIMEOUT)
    view.show_session(SESSION)
    qtbot.waitUntil(lambda: view.title.text() == SESSION, timeout=TIMEOUT)
    qtbot.mouseClick(view.review_button, Qt.MouseButton.LeftButton)
    dialog = view.session_review
    assert dialog is not None
    qtbot.waitUntil(lambda: len(dialog.rows) == 3, timeout=TIMEOUT)
    # Only this session's suggestions (the demo's other sessions have theirs), each with the
    # words it came from and the policy's reasons.
    assert sorted(_contents(dialog)) == sorted(SAID)
    for row in dialog.rows:
        said = row.item.record.content
        assert said.split()[1] in row.card.evidence.text()
        assert SESSION in row.card.evidence.text()
        assert row.card.reasons.text() not in ("", "—")
    assert dialog.title.text().endswith("waiting for a decision: 3")
    first, second, third = dialog.rows
    assert dialog.current_row() is first
    dialog.activateWindow()
    qtbot.keyClick(dialog, Qt.Key.Key_A)  # approve the first; the next one becomes current
    wait_status(qtbot, demo, first.item.record.content, "active")
    qtbot.waitUntil(lambda: dialog.current_row() is second, timeout=TIMEOUT)
    qtbot.keyClick(dialog, Qt.Key.Key_R)  # reject the second
    wait_status(qtbot, demo, second.item.record.content, "rejected")
    qtbot.waitUntil(lambda: dialog.current_row() is third, timeout=TIMEOUT)
    qtbot.keyClick(dialog, Qt.Key.Key_Up)
    assert dialog.current_row() is second
    qtbot.keyClick(dialog, Qt.Key.Key_A)  # a decided one stays decided
    qtbot.mouseClick(third.reject_button, Qt.MouseButton.LeftButton)
    wait_status(qtbot, demo, third.item.record.content, "rejected")
    assert status_of(demo, second.item.record.content) == "rejected"
    qtbot.waitUntil(lambda: "is decided" in dialog.title.text(), timeout=TIMEOUT)
    assert [r.decided for r in dialog.rows] == ["approved", "rejected", "rejected"]
    assert not first.approve_button.isEnabled() and not dialog.approve_all_button.isEnabled()
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: view.session_review is None, timeout=TIMEOUT)


def test_from_the_review_queue_and_approve_all(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    _session(demo)
    window.nav.setCurrentRow(REVIEW)
    window.activateWindow()
    view = window.review
    qtbot.waitUntil(
        lambda: any(
            e is not None and e.record is not None and e.record.content == SAID[1]
            for e in map(view.model.entry, view.model.selectable_rows())
        ),
        timeout=TIMEOUT,
    )
    row = next(
        r
        for r in view.model.selectable_rows()
        if (e := view.model.entry(r)) is not None and e.record and e.record.content == SAID[1]
    )
    view.list.setCurrentIndex(view.model.index(row, 0))
    view.list.setFocus()
    qtbot.keyClick(view.list, Qt.Key.Key_G)
    qtbot.waitUntil(lambda: view.session_review is not None, timeout=TIMEOUT)
    dialog = view.session_review
    assert dialog is not None and dialog.session == SESSION
    qtbot.waitUntil(lambda: len(dialog.rows) == 3, timeout=TIMEOUT)
    dialog.activateWindow()
    qtbot.keyClick(dialog, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    for text in SAID:
        wait_status(qtbot, demo, text, "active")
    qtbot.waitUntil(lambda: "is decided" in dialog.title.text(), timeout=TIMEOUT)
    assert status_of(demo, "squash-merges every pull request") == "candidate"  # another session
    dialog.close()


def test_a_session_without_suggestions_says_so(qtbot: QtBot, window: MainWindow) -> None:
    dialog = SessionReviewDialog(window.ctx, "claude-code:nothing-here", window)
    qtbot.addWidget(dialog)
    dialog.open()
    qtbot.waitUntil(lambda: "No suggestions" in dialog.title.text(), timeout=TIMEOUT)
    assert dialog.rows == [] and not dialog.approve_all_button.isEnabled()
    qtbot.keyClick(dialog, Qt.Key.Key_A)  # nothing to act on: nothing happens
