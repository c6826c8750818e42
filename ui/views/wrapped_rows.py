"""List rows as tall as their text wrapped to the list's width (the review queue)."""

from __future__ import annotations

import math

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QFont, QTextLayout, QTextOption
from PySide6.QtWidgets import QListView, QStyle, QStyledItemDelegate, QStyleOptionViewItem


class WrappedRows(QStyledItemDelegate):
    """Rows as tall as their text wrapped to the list's width. The default size hint does not
    know the width, so a wrapped first line pushed the kind and scope line out of the row,
    and Qt cut the row with "…" after a sentence that was not cut."""

    def __init__(self, view: QListView) -> None:
        super().__init__(view)
        self._view = view

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        size = super().sizeHint(option, index)
        row_width = self._view.viewport().width() - 2 * self._view.spacing()
        if row_width <= 0 or not index.data(Qt.ItemDataRole.DisplayRole):
            return size
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.rect = QRect(0, 0, row_width, _TALL)
        # The text's own rectangle as the style paints it: after the icon, the item's padding
        # (the style sheet's) and the text margins.
        style = self._view.style()
        rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, opt, self._view)
        margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, opt, self._view) + 1
        width = rect.width() - 2 * margin
        if width <= 0:
            return size
        padding = _TALL - rect.height()
        return QSize(
            size.width(), max(size.height(), wrapped_height(opt.text, opt.font, width) + padding)
        )


_TALL = 10_000  # a row height no text reaches: what the style takes off it is its padding


def wrapped_height(text: str, font: QFont, width: int) -> int:
    """The height of `text` laid out as the item style lays it out to paint it, wrapped at
    word boundaries to `width` (lines of a QTextLayout: taller than the font's bounding box
    of the text)."""
    layout = QTextLayout(text.replace("\n", "\u2028"), font)
    text_option = QTextOption()
    text_option.setWrapMode(QTextOption.WrapMode.WordWrap)
    layout.setTextOption(text_option)
    height = 0.0
    layout.beginLayout()
    while (line := layout.createLine()).isValid():
        line.setLineWidth(width)
        height += line.height()
    layout.endLayout()
    return math.ceil(height)
