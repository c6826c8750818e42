"""The delete dialog grows with its text when "purge" is ticked (#14 defect 6), and its
plurals read right (#14 defect 9)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from pytestqt.qtbot import QtBot

from core import MemoryService
from tests.ui.conftest import TIMEOUT, find
from tests.ui.test_detail import _show

from ui.dialogs import DeleteDialog
from ui.main_window import MainWindow


def _not_clipped(dialog: DeleteDialog) -> bool:
    label = dialog.intro
    return label.height() >= label.heightForWidth(label.width()) and dialog.rect().contains(
        label.geometry()
    )


def test_ticking_purge_grows_the_dialog(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """Click Delete…, click the purge box: every line of the longer explanation is visible."""
    panel = _show(qtbot, window, demo, "pnpm for every")
    qtbot.mouseClick(panel.delete_button, Qt.MouseButton.LeftButton)
    dialog = panel.active_dialog
    assert isinstance(dialog, DeleteDialog)
    qtbot.waitExposed(dialog)
    before = dialog.height()
    box = dialog.purge
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))
    assert box.isChecked()
    qtbot.waitUntil(lambda: _not_clipped(dialog), timeout=TIMEOUT)
    assert dialog.height() > before
    assert "all 1 revision;" in dialog.intro.text()
    assert "2 recorded model calls;" in dialog.intro.text()
    dialog.reject()


def test_purge_can_also_purge_the_source_events(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """#14 defect 7: with purge ticked, "also purge the source events" is offered with a
    before/after preview; afterwards the source event's text is gone from the store."""
    panel = _show(qtbot, window, demo, "pnpm for every")
    record = panel.data.record  # type: ignore[union-attr]
    source_ids = list(record.source_event_ids)
    assert demo.events.get_events(source_ids)[0].text
    qtbot.mouseClick(panel.delete_button, Qt.MouseButton.LeftButton)
    dialog = panel.active_dialog
    assert isinstance(dialog, DeleteDialog)
    qtbot.waitExposed(dialog)
    assert not dialog.purge_events.isEnabled()
    assert "After: unchanged" in dialog.intro.text()
    for box in (dialog.purge, dialog.purge_events):
        qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))
    assert dialog.purge_events.isChecked()
    assert "After: [redacted]" in dialog.intro.text()
    assert "Source event now:" in dialog.intro.text()
    qtbot.keyClicks(dialog.reason, "asked to forget")
    qtbot.keyClick(dialog.reason, Qt.Key.Key_Return)
    qtbot.waitUntil(
        lambda: demo.memories.get_memory(record.id).status.value == "deleted", timeout=TIMEOUT
    )
    events = demo.events.get_events(source_ids)
    assert all(e.redacted and "pnpm" not in e.text for e in events)


def test_a_deleted_memory_can_be_purged_later(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """#43 item 7: deleted without purge, the text stays "until purged"; the detail panel
    offers that purge (the button is not greyed) and it destroys the text."""
    record = find(demo, "pnpm for every")
    demo.review.delete(record.id, reason="no longer true")
    panel = _show(qtbot, window, demo, "pnpm for every")
    qtbot.waitUntil(lambda: panel.delete_button.isEnabled(), timeout=TIMEOUT)
    assert panel.delete_button.text() == "Purge…"
    qtbot.mouseClick(panel.delete_button, Qt.MouseButton.LeftButton)
    dialog = panel.active_dialog
    assert isinstance(dialog, DeleteDialog)
    qtbot.waitExposed(dialog)
    assert dialog.purge.isChecked() and not dialog.purge.isEnabled()
    qtbot.keyClicks(dialog.reason, "purge it")
    qtbot.keyClick(dialog.reason, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: demo.memories.tombstone(record.id).purged, timeout=TIMEOUT)
    assert "pnpm" not in demo.memories.get_memory(record.id).content
    qtbot.waitUntil(lambda: "purged" in window.message.text(), timeout=TIMEOUT)
    qtbot.waitUntil(lambda: not panel.delete_button.isEnabled(), timeout=TIMEOUT)
