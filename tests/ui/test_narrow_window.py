"""At 1280x800 with the detail panel open, the filters stay readable and long scopes elide in
the middle with the whole scope in a tooltip (#14 narrow windows)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox
from pytestqt.qtbot import QtBot

from core import MemoryRecord, MemoryService
from tests.ui.conftest import TIMEOUT
from tests.ui.test_detail_visibility import _click_row, _shown

from ui.main_window import MainWindow
from ui.models.timeline_model import COL_CONF, COL_SCOPE, COL_SOURCE


def _fits(box: QComboBox) -> bool:
    text = box.itemText(0)
    return box.width() - 30 >= box.fontMetrics().horizontalAdvance(text)


def test_filters_and_scopes_at_1280x800(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    window.resize(1280, 800)
    record = _click_row(qtbot, window, "squash-merges")
    _shown(qtbot, window, record)
    view = window.timeline
    qtbot.waitUntil(lambda: window.detail.width() >= 300, timeout=TIMEOUT)
    for box in (view.status_filter, view.kind_filter, view.trust_filter):
        assert _fits(box), (box.itemText(0), box.width())
    assert window.minimumSizeHint().width() <= 1280
    # Narrow table: columns the detail panel also shows make room for the content.
    assert view.table.isColumnHidden(COL_CONF) and view.table.isColumnHidden(COL_SOURCE)
    delegate = view.table.itemDelegateForColumn(COL_SCOPE)
    assert delegate is not None and type(delegate).__name__ == "MiddleElideDelegate"
    model = view.model
    row = next(
        r
        for r in range(model.rowCount())
        if isinstance(model.item_at(r), MemoryRecord)
        and "squash-merges" in model.item_at(r).content  # type: ignore[union-attr]
    )
    tip = model.index(row, COL_SCOPE).data(Qt.ItemDataRole.ToolTipRole)
    assert tip == str(record.scope)
    # Wide screen: every column is back.
    window.resize(1920, 1080)
    qtbot.waitUntil(lambda: not view.table.isColumnHidden(COL_CONF), timeout=TIMEOUT)
