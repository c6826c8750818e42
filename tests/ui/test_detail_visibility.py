"""The detail panel: never restored collapsed, opens on a selection, starts at the top for a
new memory, and never shows a memory the filter excludes (#14 defects 1 and 11)."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from core import ManualClock, MemoryRecord, MemoryService
from tests.ui.conftest import TIMEOUT

from ui.main_window import MainWindow


def _click_row(qtbot: QtBot, window: MainWindow, needle: str) -> MemoryRecord:
    table, model = window.timeline.table, window.timeline.model
    for row in range(model.rowCount()):
        item = model.item_at(row)
        if isinstance(item, MemoryRecord) and needle in item.content:
            table.scrollTo(model.index(row, 1))
            rect = table.visualRect(model.index(row, 1))
            qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
            return item
    raise AssertionError(f"{needle} is not in the timeline")


def _shown(qtbot: QtBot, window: MainWindow, record: MemoryRecord) -> None:
    panel = window.detail
    qtbot.waitUntil(
        lambda: panel.data is not None and panel.data.record.id == record.id, timeout=TIMEOUT
    )


def test_a_collapsed_panel_is_never_restored(
    qtbot: QtBot, demo: MemoryService, clock: ManualClock
) -> None:
    """Closed with nothing selected (panel width 0): the next window still shows the panel
    at a usable width when a memory is clicked."""
    first = MainWindow(demo, now=clock.now)
    qtbot.addWidget(first)
    first.show()
    qtbot.waitUntil(lambda: first.timeline.model.item_count > 0, timeout=TIMEOUT)
    assert first.detail.isHidden()
    first.close()
    QSettings().setValue("main_window/detail_split", [1280, 0])  # as older versions saved it
    second = MainWindow(demo, now=clock.now)
    qtbot.addWidget(second)
    second.show()
    qtbot.waitUntil(lambda: second.timeline.model.item_count > 0, timeout=TIMEOUT)
    record = _click_row(qtbot, second, "pnpm for every")
    _shown(qtbot, second, record)
    qtbot.waitUntil(lambda: second.detail.width() >= 300, timeout=TIMEOUT)
    assert second.detail.isVisible()
    assert not second.timeline_split.isCollapsible(1)
    second.close()
    saved = [int(x) for x in QSettings().value("main_window/detail_split")]
    assert saved[1] >= 300


def test_a_new_memory_starts_at_the_top(qtbot: QtBot, window: MainWindow) -> None:
    """Scrolled down in one memory, a click on another shows its headline and buttons."""
    window.resize(1280, 600)
    first = _click_row(qtbot, window, "pnpm for every")
    _shown(qtbot, window, first)
    bar = window.detail.scroll_area.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=TIMEOUT)
    bar.setValue(bar.maximum())
    second = _click_row(qtbot, window, "Payly")
    _shown(qtbot, window, second)
    assert bar.value() == 0
    assert window.detail.toggle_button.visibleRegion().boundingRect().height() > 0


def test_a_filter_that_excludes_the_memory_clears_the_panel(
    qtbot: QtBot, window: MainWindow
) -> None:
    """Typing a search the shown memory does not match empties the detail panel."""
    record = _click_row(qtbot, window, "pnpm for every")
    _shown(qtbot, window, record)
    window.timeline.search.setFocus()
    qtbot.keyClicks(window.timeline.search, "Payly")
    qtbot.keyClick(window.timeline.search, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.detail.data is None, timeout=TIMEOUT)
    assert window.detail.isHidden()
    qtbot.waitUntil(lambda: window.timeline.model.item_count > 0, timeout=TIMEOUT)
    kept = _click_row(qtbot, window, "Payly")
    _shown(qtbot, window, kept)
    window.timeline.search.setFocus()
    qtbot.keyClick(window.timeline.search, Qt.Key.Key_End)
    qtbot.keyClicks(window.timeline.search, " SDK")  # narrower, still matching: it stays
    qtbot.keyClick(window.timeline.search, Qt.Key.Key_Return)
    qtbot.wait(300)
    assert window.detail.data is not None and window.detail.data.record.id == kept.id
