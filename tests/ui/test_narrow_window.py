"""At 1280x800 with the detail panel open, the filters stay readable and long scopes show
their most specific key first with the whole scope in a tooltip (#14 narrow windows, #43)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLabel
from pytestqt.qtbot import QtBot

from core import MemoryRecord, MemoryService
from tests.ui.conftest import TIMEOUT
from tests.ui.test_detail_visibility import _click_row, _shown

from ui.dialogs import ScopeDialog
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
    model = view.model
    row = next(
        r
        for r in range(model.rowCount())
        if isinstance(model.item_at(r), MemoryRecord)
        and "squash-merges" in model.item_at(r).content  # type: ignore[union-attr]
    )
    tip = model.index(row, COL_SCOPE).data(Qt.ItemDataRole.ToolTipRole)
    assert tip.split("\n") == str(record.scope).split()
    # Wide screen: every column is back.
    window.resize(1920, 1080)
    qtbot.waitUntil(lambda: not view.table.isColumnHidden(COL_CONF), timeout=TIMEOUT)


def test_scope_column_leads_with_the_most_specific_key(
    qtbot: QtBot, window: MainWindow, demo: MemoryService
) -> None:
    """#43 item 6: "project…ser=kim" cut the middle out. The cell starts with the narrowest
    key (what tells the rows apart), the rest after it, the whole scope in the tooltip; the
    scope-change field shows a long scope whole; "Use embedder" is not clipped at 1280."""
    window.resize(1280, 800)
    record = _click_row(qtbot, window, "squash-merges")  # org=acme project=checkout
    model = window.timeline.model
    row = next(r for r in range(model.rowCount()) if model.item_at(r) == record)
    text = model.index(row, COL_SCOPE).data()
    assert text.startswith("project=checkout") and "org=acme" in text
    # Changing the scope of a memory with a long scope: the field shows all of it.
    long_scope = {
        "user": "kim",
        "org": "acme-corporation",
        "project": "webshop-frontend-redesign",
        "environment": "staging-eu-west",
    }
    demo.memories.remember(long_scope, "The redesign ships behind the beta flag.")
    window.refresh_all()
    mine = next(r for r in demo.memories.list_memories() if "beta flag" in r.content)
    dialog = ScopeDialog(mine, window, allow_any=True)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    field = dialog.whole
    assert field.width() - 12 >= field.fontMetrics().horizontalAdvance(field.text())
    dialog.reject()
    # The Settings page at 1280: the "Use embedder" label is as wide as its text.
    qtbot.keyClick(window.nav, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    panel = window.settings.index
    form = panel.layout()
    label = next(
        w for w in panel.findChildren(QLabel) if w.text() == "Use embedder" and form.indexOf(w) >= 0
    )
    qtbot.waitUntil(label.isVisible, timeout=TIMEOUT)
    assert label.width() >= label.sizeHint().width(), (label.width(), label.sizeHint())
    combo = panel.embedder
    assert combo.width() - 30 >= combo.fontMetrics().horizontalAdvance(combo.currentText())
