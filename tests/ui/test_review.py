"""Review queue actions, asserted on the store (R9, R25, R26)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QStyle, QStyleOptionViewItem
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from core import MemoryRecord, MemoryService
from tests.ui.conftest import TIMEOUT, find, status_of, wait_status

from ui.dialogs import SplitScopeDialog
from ui.main_window import MainWindow
from ui.models.review_model import load_queue
from ui.style import apply_style
from ui.views.highlight import differing_words
from ui.views.review_view import ReviewView
from ui.views.wrapped_rows import wrapped_height


def _open_review(qtbot: QtBot, window: MainWindow) -> ReviewView:
    window.nav.setCurrentRow(1)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=TIMEOUT)
    view = window.review
    qtbot.waitUntil(lambda: view.current_record() is not None, timeout=TIMEOUT)
    return view


def _select(qtbot: QtBot, view: ReviewView, needle: str) -> None:
    for row in view.model.selectable_rows():
        entry = view.model.entry(row)
        if entry is not None and entry.record is not None and needle in entry.record.content:
            view.list.setCurrentIndex(view.model.index(row, 0))
            qtbot.waitUntil(lambda: needle in view.card.content.text(), timeout=TIMEOUT)
            return
    raise AssertionError(f"{needle} not in the queue")


def test_queue_sections_and_model(qtbot: QtBot, window: MainWindow) -> None:
    """Candidates, conflicts and quarantined items are listed apart; the model is sound."""
    view = _open_review(qtbot, window)
    data = view.model.data_set
    # One of the four suggestions "possibly contradicts" another memory (#40): the user's word
    # waits for an answer when the judge cannot tell. Two conflict sets: the staging region,
    # and the family dinner at 外婆家 / 奶奶家.
    assert len(data.candidates) == 4 and len(data.quarantined) == 1 and len(data.conflicts) == 2
    ModelTester(qtbot).check(view.model, force_py=True)


def test_evidence_reasons_and_quarantine_warning(qtbot: QtBot, window: MainWindow) -> None:
    """The card shows the policy's reasons, highlighted evidence, and why quarantine is apart."""
    view = _open_review(qtbot, window)
    _select(qtbot, view, "爸爸早上喝绿茶")
    qtbot.waitUntil(lambda: "每天" in view.card.evidence.text(), timeout=TIMEOUT)
    assert "background-color" in view.card.evidence.text()
    assert view.card.reasons.text() not in ("", "Loading…")
    assert view.card.warning.isHidden()
    _select(qtbot, view, "Payly SDK")
    assert not view.card.warning.isHidden()
    assert "low-trust" in view.card.warning.text()


def test_approve_with_keyboard(qtbot: QtBot, window: MainWindow, demo: MemoryService) -> None:
    """A approves the current suggestion; the store says active; the next item is shown."""
    view = _open_review(qtbot, window)
    _select(qtbot, view, "squash-merges")
    qtbot.keyClick(view.list, Qt.Key.Key_A)
    wait_status(qtbot, demo, "squash-merges", "active")
    qtbot.waitUntil(lambda: len(view.model.data_set.candidates) == 3, timeout=TIMEOUT)
    assert view._row in view.model.selectable_rows()


def test_arrows_move(qtbot: QtBot, window: MainWindow) -> None:
    """Down and Up move between reviewable items, skipping section headers."""
    view = _open_review(qtbot, window)
    first = view._row
    qtbot.keyClick(view.list, Qt.Key.Key_Down)
    assert view._row > first
    qtbot.keyClick(view.list, Qt.Key.Key_Up)
    assert view._row == first


def test_edit_then_approve(qtbot: QtBot, window: MainWindow, demo: MemoryService) -> None:
    """E opens the editor; the new wording is stored as a revision and approved."""
    view = _open_review(qtbot, window)
    _select(qtbot, view, "terse replies")
    view.edit_current()
    dialog = view.active_dialog
    dialog.text.setPlainText("Alice wants diffs only, no explanations.")  # type: ignore[union-attr]
    dialog._check()  # type: ignore[union-attr]
    wait_status(qtbot, demo, "diffs only", "active")
    record = find(demo, "diffs only")
    assert len(demo.memories.revisions(record.id)) == 2


def test_change_scope_then_approve(qtbot: QtBot, window: MainWindow, demo: MemoryService) -> None:
    """S narrows the proposed scope before approving."""
    view = _open_review(qtbot, window)
    _select(qtbot, view, "terse replies")
    view.rescope_current()
    dialog = view.active_dialog
    dialog.whole.setText("user=alice project=web-shop")  # type: ignore[union-attr]
    dialog._check()  # type: ignore[union-attr]
    wait_status(qtbot, demo, "terse replies", "active")
    assert dict(find(demo, "terse replies").scope) == {"user": "alice", "project": "web-shop"}


def test_reject_with_reason(qtbot: QtBot, window: MainWindow, demo: MemoryService) -> None:
    """R rejects with the user's reason, recorded in the history."""
    view = _open_review(qtbot, window)
    _select(qtbot, view, "squash-merges")
    qtbot.keyClick(view.list, Qt.Key.Key_R)
    dialog = view.active_dialog
    dialog.reason.setText("we rebase instead")  # type: ignore[union-attr]
    dialog._check()  # type: ignore[union-attr]
    wait_status(qtbot, demo, "squash-merges", "rejected")
    history = demo.memories.history(find(demo, "squash-merges").id)
    assert any(d.action == "reject" and d.reason == "we rebase instead" for d in history)


def test_conflict_keep_this(qtbot: QtBot, window: MainWindow, demo: MemoryService) -> None:
    """A conflict set is shown side by side; Keep this supersedes the other member."""
    view = _open_review(qtbot, window)
    rows = [r for r in view.model.selectable_rows() if view.model.entry(r).conflict]  # type: ignore[union-attr]
    view.list.setCurrentIndex(view.model.index(rows[0], 0))
    qtbot.waitUntil(lambda: view.stack.currentIndex() == 2, timeout=TIMEOUT)
    members = view.model.entry(rows[0]).conflict  # type: ignore[union-attr]
    assert len(view.keep_buttons) == 2
    view.keep_buttons[0].click()
    kept, other = members[0], members[1]
    qtbot.waitUntil(
        lambda: demo.memories.get_memory(other.id).status.value == "superseded", timeout=TIMEOUT
    )
    assert demo.memories.get_memory(other.id).superseded_by == kept.id
    assert "conflict" not in demo.memories.get_memory(kept.id).flags
    assert status_of(demo, kept.content) == "active"


def test_conflict_marks_differing_words_and_hides_the_action_bar(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """Only the words that differ are marked; Approve/Edit/Reject vanish for a conflict set."""
    view = _open_review(qtbot, window)
    assert view.action_bar.isVisible()
    rows = [r for r in view.model.selectable_rows() if view.model.entry(r).conflict]  # type: ignore[union-attr]
    view.list.setCurrentIndex(view.model.index(rows[0], 0))
    qtbot.waitUntil(lambda: view.stack.currentIndex() == 2, timeout=TIMEOUT)
    assert not view.action_bar.isVisible()
    members = view.model.entry(rows[0]).conflict  # type: ignore[union-attr]
    stored = [demo.memories.get_memory(m.id) for m in members]
    assert all("conflict" in r.flags for r in stored)
    texts = [lab.text() for lab in view.conflict_page.findChildren(QLabel, "ConflictText")]
    assert len(texts) == 2 and all("#ffe082" in t for t in texts)
    assert differing_words(stored[0].content, stored[1].content) in texts[0]
    plain = [r for r in view.model.selectable_rows() if not view.model.entry(r).conflict]  # type: ignore[union-attr]
    view.list.setCurrentIndex(view.model.index(plain[0], 0))
    qtbot.waitUntil(lambda: view.stack.currentIndex() == 1, timeout=TIMEOUT)
    assert view.action_bar.isVisible()


def test_differing_words() -> None:
    """Words present in both texts stay plain; the changed ones are marked (CJK per char)."""
    out = differing_words("Deploys run on Fridays", "Deploys run on Mondays")
    assert out.count("<span") == 1 and ">Fridays</span>" in out
    assert differing_words("我喜欢香菜", "我不喜欢香菜").count("<span") == 0
    assert ">不</span>" in differing_words("我不喜欢香菜", "我喜欢香菜")


def test_few_shared_words_mark_only_the_numbers() -> None:
    """Function words are never marked; a rewording (few words shared) marks its numbers only,
    not nearly every word."""
    out = differing_words(
        "My work laptop is a 14-inch MacBook Pro with 16GB of RAM.",
        "the work MBP I have has 32 GB RAM.",
    )
    marked = {piece.split("<")[0] for piece in out.split(">")[1:] if "</span" in piece}
    assert marked == {"14", "16GB"}, out
    out = differing_words("The staging API is on port 8080", "The staging API is on port 8443")
    assert out.count("<span") == 1 and ">8080</span>" in out
    assert "<span" not in differing_words("Tests run on a runner", "Tests run in the runner")


def test_queue_rows_are_as_tall_as_their_wrapped_text(qtbot: QtBot, window: MainWindow) -> None:
    """A suggestion that wraps keeps its kind and scope line: the row was cut with "…".

    Each row's text is laid out as the style paints it, in the text rectangle of the row's
    actual place in the list, and must fit in it."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    apply_style(app)  # the item padding of the application's style sheet, as users see it
    try:
        _rows_fit(qtbot, window)
    finally:
        app.setStyleSheet("")


def _rows_fit(qtbot: QtBot, window: MainWindow) -> None:
    view = _open_review(qtbot, window)
    view.list.setFixedWidth(240)
    qtbot.wait(200)
    style = view.list.style()
    margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view.list) + 1
    rows = [r for r in view.model.selectable_rows() if view.model.entry(r).record is not None]  # type: ignore[union-attr]
    assert rows
    for row in rows:
        index = view.model.index(row, 0)
        option = QStyleOptionViewItem()
        option.initFrom(view.list)
        view.list.itemDelegate().initStyleOption(option, index)  # type: ignore[attr-defined]
        option.rect = view.list.visualRect(index)
        rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, option, view.list)
        height = wrapped_height(option.text, option.font, rect.width() - 2 * margin)
        assert height <= rect.height(), option.text


def _open_conflict(qtbot: QtBot, view: ReviewView) -> tuple[MemoryRecord, ...]:
    rows = [r for r in view.model.selectable_rows() if view.model.entry(r).conflict]  # type: ignore[union-attr]
    view.list.setCurrentIndex(view.model.index(rows[0], 0))
    qtbot.waitUntil(lambda: view.stack.currentIndex() == 2, timeout=TIMEOUT)
    return view.model.entry(rows[0]).conflict  # type: ignore[union-attr]


def test_conflict_keep_both(qtbot: QtBot, window: MainWindow, demo: MemoryService) -> None:
    """Keep both: every member stays active with its scope, the conflict flag is gone."""
    view = _open_review(qtbot, window)
    members = _open_conflict(qtbot, view)
    view.keep_both_button.click()

    def settled() -> bool:
        stored = [demo.memories.get_memory(r.id) for r in members]
        return all("conflict" not in s.flags for s in stored)

    qtbot.waitUntil(settled, timeout=TIMEOUT)
    for r in members:
        stored = demo.memories.get_memory(r.id)
        assert stored.status.value == "active"
        assert stored.scope == r.scope
    ids = {r.id for r in members}
    assert not any(ids & {r.id for r in c} for c in load_queue(demo).conflicts)


def test_conflict_split_by_scope(qtbot: QtBot, window: MainWindow, demo: MemoryService) -> None:
    """Split by scope: the dialog validates, previews, and each member is narrowed."""
    view = _open_review(qtbot, window)
    members = _open_conflict(qtbot, view)
    view.split_button.click()
    dialog = view.active_dialog
    assert isinstance(dialog, SplitScopeDialog)
    dialog._check()
    assert "Memory 1" in dialog.problem.text() and dialog.isVisible()
    dialog.set_extras("environment=eu", "environment=eu")
    assert "same" in dialog.problem_text()
    dialog.set_extras("environment=eu", "bogus=us")
    assert "Memory 2" in dialog.problem_text()
    dialog.set_extras("environment=eu", "environment=us extra")
    assert "exactly one" in dialog.problem_text()
    dialog.set_extras("environment=eu", "environment=us")
    assert dialog.problem_text() == ""
    assert "environment=eu" in dialog.preview.text() and "environment=us" in dialog.preview.text()
    dialog._check()
    first, second = members[0], members[1]
    qtbot.waitUntil(
        lambda: demo.memories.get_memory(first.id).scope.get("environment") == "eu", timeout=TIMEOUT
    )
    for r, env in ((first, "eu"), (second, "us")):
        stored = demo.memories.get_memory(r.id)
        assert stored.status.value == "active"
        assert "conflict" not in stored.flags
        assert dict(stored.scope.items()) == {**dict(r.scope.items()), "environment": env}


def test_conflict_not_in_conflict_then_undo(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """ "Not in conflict" takes one member out of the set (both stay active); the window's
    undo puts the set back as it was (#40)."""
    view = _open_review(qtbot, window)
    rows = [r for r in view.model.selectable_rows() if view.model.entry(r).conflict]  # type: ignore[union-attr]
    view.list.setCurrentIndex(view.model.index(rows[0], 0))
    qtbot.waitUntil(lambda: view.stack.currentIndex() == 2, timeout=TIMEOUT)
    members = view.model.entry(rows[0]).conflict  # type: ignore[union-attr]
    before = {m.id: demo.memories.get_memory(m.id) for m in members}
    assert len(view.not_in_conflict_buttons) == len(members) == 2
    view.not_in_conflict_buttons[0].click()
    out = members[0]
    qtbot.waitUntil(
        lambda: demo.memories.get_memory(out.id).conflict_set is None, timeout=3 * TIMEOUT
    )
    after = {m.id: demo.memories.get_memory(m.id) for m in members}
    # a set left with one member is settled: nobody was superseded, nothing is flagged
    assert all(r.status == before[r.id].status for r in after.values())
    assert all("conflict" not in r.flags for r in after.values())
    # The window has heard the change back (its message and Undo show): before that, its
    # history may not hold the change yet, and Undo would act on an older one.
    qtbot.waitUntil(window.undo_button.isVisible, timeout=3 * TIMEOUT)
    window.undo()
    qtbot.waitUntil(
        lambda: demo.memories.get_memory(out.id).conflict_set == before[out.id].conflict_set,
        timeout=3 * TIMEOUT,
    )
    restored = {m.id: demo.memories.get_memory(m.id) for m in members}
    assert all("conflict" in r.flags for r in restored.values())
    assert all(r.status == before[r.id].status for r in restored.values())


def _possible_rows(view: ReviewView, demo: MemoryService) -> list[int]:
    """The rows of "possibly ..." items (other items may need confirmation for other
    reasons, such as a scope broader than their evidence)."""
    out = []
    for row in view.model.selectable_rows():
        entry = view.model.entry(row)
        record = entry.record if entry is not None else None
        if record is not None and demo.memories.possible_relation(record.id) is not None:
            out.append(row)
    return out


def test_a_possible_relation_is_answered_beside_the_other_memory(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """ "Possibly contradicts m_…" (#40): the card shows the other memory with the words
    that differ marked, and one key per answer; "2" (replaces) supersedes the other."""
    view = _open_review(qtbot, window)
    rows = _possible_rows(view, demo)
    assert rows, "the demo store holds suggestions the judge could not decide"
    view.list.setCurrentIndex(view.model.index(rows[0], 0))
    record = view.current_record()
    assert record is not None
    qtbot.waitUntil(lambda: not view.card.possible.isHidden(), timeout=3 * TIMEOUT)
    found = demo.memories.possible_relation(record.id)
    assert found is not None
    asked, other = found
    assert asked in ("the same as", "replaces", "contradicts")
    assert "Possibly" in view.card.possible_title.text()
    assert "background-color" in view.card.possible_text.text()  # differing words marked
    assert set(view.card.answer_buttons) == {"same", "replaces", "both_true", "unrelated"}
    view.list.setFocus()
    qtbot.keyClick(view.list, Qt.Key.Key_2)
    qtbot.waitUntil(
        lambda: demo.memories.get_memory(other.id).status.value == "superseded",
        timeout=3 * TIMEOUT,
    )
    assert demo.memories.get_memory(record.id).status.value == "active"
    assert demo.memories.history(record.id)[-1].action == "answer_replaces"


def test_other_items_show_no_answers_and_ignore_the_keys(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    view = _open_review(qtbot, window)
    _select(qtbot, view, "爸爸早上喝绿茶")
    qtbot.waitUntil(lambda: "每天" in view.card.evidence.text(), timeout=3 * TIMEOUT)
    assert view.card.possible.isHidden()
    record = view.current_record()
    assert record is not None
    view.list.setFocus()
    qtbot.keyClick(view.list, Qt.Key.Key_3)
    qtbot.wait(200)
    assert demo.memories.get_memory(record.id).status.value == "candidate"
