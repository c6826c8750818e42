"""The review badge is the store's count of items waiting, by kind (#14 defect 5)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from core import MemoryService
from tests.ui.conftest import TIMEOUT, find

from ui.main_window import REVIEW, MainWindow


def _badge(window: MainWindow) -> str:
    return window.nav.item(REVIEW).text()


def test_badge_counts_the_store_before_the_queue_is_opened(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """4 suggestions (one of them "possibly contradicts" another memory, #40), 2 conflict sets
    and 1 quarantined item: 7, before and after opening."""
    qtbot.waitUntil(lambda: _badge(window).endswith("   7"), timeout=TIMEOUT)
    tip = window.nav.item(REVIEW).toolTip()
    assert "4 suggestions" in tip and "2 conflicts" in tip and "1 quarantined" in tip
    window.nav.setCurrentRow(REVIEW)
    qtbot.waitUntil(lambda: window.review.current_record() is not None, timeout=TIMEOUT)
    assert _badge(window).endswith("   7")
    # Another writer approves one suggestion: the badge follows.
    demo.review.approve(find(demo, "squash-merges").id)
    qtbot.waitUntil(lambda: _badge(window).endswith("   6"), timeout=TIMEOUT)
    assert "3 suggestions" in window.nav.item(REVIEW).toolTip()
