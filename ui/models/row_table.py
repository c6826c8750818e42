"""The base of the flat table models: a list of rows of one type, and paged loading.

Every table in the window is "one Python object per row, one column per attribute"; the base
holds the rows and answers Qt's bookkeeping (counts, headers, bounds checks, selectability),
so a model only says what a cell shows (`cell`). Models that load lazily add a `PageFeed`,
which drops a page that arrives after the model was reset to something else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from ui.tasks import TaskRunner

T = TypeVar("T")
P = TypeVar("P")
Index = QModelIndex | QPersistentModelIndex


class RowTableModel(QAbstractTableModel, Generic[T]):
    """Rows of type `T` under fixed column titles; subclasses implement `cell`."""

    def __init__(self, columns: Sequence[str]) -> None:
        super().__init__()
        self._columns = tuple(columns)
        self._rows: list[T] = []

    # --- rows ----------------------------------------------------------------

    def row_at(self, row: int) -> T | None:
        """The object shown in a row, or None outside the table."""
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def find_row(self, match: Callable[[T], bool]) -> int:
        """The first row whose object matches, or -1 (not loaded, or not there)."""
        return next((i for i, r in enumerate(self._rows) if match(r)), -1)

    def reset_rows(self, rows: Iterable[T] = ()) -> None:
        """Replace every row (views drop their selection)."""
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def replace_row(self, row: int, value: T) -> None:
        """Show `value` in place of one row (views keep their selection)."""
        if not 0 <= row < len(self._rows):
            return
        self._rows[row] = value
        last = max(len(self._columns) - 1, 0)
        self.dataChanged.emit(self.index(row, 0), self.index(row, last))

    def append_rows(self, rows: Sequence[T]) -> None:
        """Add rows at the end (views keep their selection and scroll position)."""
        if not rows:
            return
        start = len(self._rows)
        self.beginInsertRows(QModelIndex(), start, start + len(rows) - 1)
        self._rows.extend(rows)
        self.endInsertRows()

    # --- what subclasses say -------------------------------------------------

    def cell(self, row: T, column: int, role: int) -> Any:
        """What one cell shows for `role` (None for nothing)."""
        raise NotImplementedError

    def selectable(self, row: T) -> bool:
        """Whether a row can be selected (section and day headers cannot)."""
        return True

    # --- Qt model ------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._columns)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        horizontal = orientation == Qt.Orientation.Horizontal
        if role == Qt.ItemDataRole.DisplayRole and horizontal and 0 <= section < len(self._columns):
            return self._columns[section]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        row = self.row_at(index.row()) if index.isValid() else None
        if row is None:
            return Qt.ItemFlag.NoItemFlags
        if not self.selectable(row):
            return Qt.ItemFlag.ItemIsEnabled
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = self.row_at(index.row()) if index.isValid() else None
        return None if row is None else self.cell(row, index.column(), role)


class PageFeed(Generic[P]):
    """Loads pages on the reader pool; a page of an older generation is dropped on arrival.

    `restart` starts a new generation (the model was reset); `loading` is true while the
    newest generation's page is being read.
    """

    def __init__(self, tasks: TaskRunner) -> None:
        self._tasks = tasks
        self._generation = 0
        self.loading = False

    def restart(self) -> None:
        """Forget pages still in flight."""
        self._generation += 1
        self.loading = False

    def load(
        self,
        read: Callable[[], P],
        land: Callable[[P], None],
        failed: Callable[[], None] = lambda: None,
    ) -> None:
        """Read a page in the background; `land` or `failed` run on the UI thread."""
        self.loading = True
        generation = self._generation

        def succeeded(page: P) -> None:
            if generation == self._generation:
                self.loading = False
                land(page)

        def broke(_exc: BaseException) -> None:
            if generation == self._generation:
                self.loading = False
                failed()

        self._tasks.run(read, succeeded, broke)
