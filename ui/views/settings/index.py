"""The search index: embedder in use, its size, switching embedder and rebuilding (R7-R11)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ui.context import UiContext
from ui.errors import show_error
from ui.operations.settings import (
    EMBEDDERS,
    rebuild_indexes,
    use_conversation_windows,
    use_embedder,
)
from ui.presentation import embedder_title, installing_hint
from ui.views.settings.panel import SettingsPanel, left, value_label


class IndexPanel(SettingsPanel):
    """Index status, "Use and rebuild" for another embedder and "Rebuild indexes"."""

    def __init__(self, ctx: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, self.tr("Search index"), parent)
        self.values: dict[str, QLabel] = {}
        form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for key, title in (
            ("embedder", self.tr("Embedder")),
            ("vectors", self.tr("Vectors")),
            ("windows", self.tr("Conversation windows")),
            ("keywords", self.tr("Keyword documents")),
        ):
            self.values[key] = value_label(title)
            form.addRow(title, self.values[key])
        self.windows = QCheckBox(self.tr("Embed each recorded turn with the turns around it"))
        self.windows.setToolTip(
            self.tr(
                "Finds more of what a long conversation taught. Costs about three times the "
                "embedding work of an imported history, in the background; switching it off "
                "drops the stored windows."
            )
        )
        self.windows.clicked.connect(self.choose_windows)
        form.addRow("", self.windows)
        self.embedder = QComboBox()
        self.embedder.setAccessibleName(self.tr("Embedder to use"))
        # Elide a long embedder name rather than widen the page past the window.
        self.embedder.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.embedder.setMinimumContentsLength(18)
        for name in EMBEDDERS:
            self.embedder.addItem(embedder_title(name), name)
        self.use_embedder_button = QPushButton(self.tr("Use and rebuild"))
        self.use_embedder_button.setToolTip(
            self.tr(
                "Switch the embedder and rebuild the vector index with it. Some embedders "
                "need an optional package; a model may take a while to load."
            )
        )
        self.use_embedder_button.clicked.connect(self.choose_embedder)
        # The box and its button on a row of their own, under the label: beside the label
        # the embedder's name was cut short at 1280 px.
        chooser = QVBoxLayout()
        chooser.addWidget(self.embedder)
        chooser.addWidget(self.use_embedder_button, 0, Qt.AlignmentFlag.AlignLeft)
        form.addRow(QLabel(self.tr("Use embedder")))
        form.addRow(chooser)
        self.rebuild_button = QPushButton(self.tr("Rebuild indexes"))
        self.rebuild_button.setToolTip(
            self.tr("Throw away the keyword and vector indexes and rebuild them from the store.")
        )
        self.rebuild_button.clicked.connect(self.rebuild)
        form.addRow("", left(self.rebuild_button))
        form.addRow(self._build_busy())
        self._set_index_busy("")

    def _build_busy(self) -> QVBoxLayout:
        self.index_busy = QProgressBar()
        self.index_busy.setRange(0, 0)
        self.index_busy.setTextVisible(False)
        self.index_busy.setMaximumHeight(8)
        self.index_busy.setAccessibleName(self.tr("Rebuilding the index"))
        self.index_busy_label = QLabel()
        self.index_busy_label.setWordWrap(True)
        busy = QVBoxLayout()
        busy.addWidget(self.index_busy_label)
        busy.addWidget(self.index_busy)
        return busy

    def show_embedders(self, choices: dict[str, str]) -> None:
        """Embedders that are not installed stay listed, greyed out, saying what is missing."""
        model = self.embedder.model()
        assert isinstance(model, QStandardItemModel)
        for row in range(self.embedder.count()):
            name = str(self.embedder.itemData(row))
            item = model.item(row)
            problem = choices.get(name, self.tr("unknown embedder"))
            item.setEnabled(not problem)
            item.setToolTip(
                self.tr("Not installed on this computer.") + " " + installing_hint(name)
                if problem
                else ""
            )

    def show_index(self, index: dict[str, object]) -> None:
        """Show `index_status()`: the embedder, vectors and keyword documents."""
        v = self.values
        vector = index.get("vector")
        if isinstance(vector, dict):
            full = str(vector.get("embedder", ""))
            name, _, version = full.partition("@")
            v["embedder"].setText(embedder_title(name))
            v["embedder"].setToolTip(version)
            v["vectors"].setText(str(vector.get("vectors", 0)))
            enabled = vector.get("windows_enabled") is not False
            v["windows"].setText(self._windows_text(vector) if enabled else self.tr("off"))
            self.windows.setEnabled(not self.index_working)
            self.windows.setChecked(enabled)
            if not self.index_working:
                found = self.embedder.findData(name)
                if found >= 0:
                    self.embedder.setCurrentIndex(found)
        else:
            v["embedder"].setText(self.tr("none (keyword search only)"))
            v["embedder"].setToolTip("")
            v["vectors"].setText("0")
            v["windows"].setText(self.tr("off"))
            self.windows.setChecked(False)
            self.windows.setEnabled(False)  # no embedder, nothing to embed windows with
        v["keywords"].setText(str(index.get("keyword_documents", 0)))

    def _windows_text(self, vector: dict[object, object]) -> str:
        held, waiting = str(vector.get("windows", 0)), vector.get("windows_pending") or 0
        if not waiting:
            return held
        return self.tr("%1 (%2 waiting)").replace("%1", held).replace("%2", str(waiting))

    @property
    def index_working(self) -> bool:
        """True while an embedder switch or a rebuild runs."""
        return not self.rebuild_button.isEnabled()

    def _set_index_busy(self, text: str) -> None:
        working = bool(text)
        self.index_busy_label.setText(text)
        self.index_busy_label.setVisible(working)
        self.index_busy.setVisible(working)
        for w in (self.embedder, self.use_embedder_button, self.rebuild_button, self.windows):
            w.setEnabled(not working)

    def choose_embedder(self) -> None:
        """Switch to the chosen embedder and rebuild the vector index (in the background)."""
        name = str(self.embedder.currentData())
        self._set_index_busy(
            self.tr("Loading %1 and rebuilding the vector index… this can take a while.").replace(
                "%1", embedder_title(name)
            )
        )

        def done(used: str) -> None:
            self._set_index_busy("")
            self.notified.emit(
                self.tr("Now searching with %1; the vector index was rebuilt.").replace(
                    "%1", embedder_title(used)
                ),
                None,
            )
            self.reload_requested.emit()

        use_embedder(self.ctx, name).on_success(done).on_failure(self._index_failed).run(self)

    def choose_windows(self, enabled: bool) -> None:
        """Switch conversation windows on or off (the store keeps the choice)."""

        def done(_on: bool) -> None:
            self.notified.emit(
                self.tr("Conversation windows on: turns are embedded with their neighbours.")
                if enabled
                else self.tr("Conversation windows off: the stored windows were dropped."),
                None,
            )
            self.reload_requested.emit()

        use_conversation_windows(self.ctx, enabled).on_success(done).on_failure(
            self._index_failed
        ).run(self)

    def rebuild(self) -> None:
        """Rebuild the keyword and vector indexes from the store (in the background)."""
        self._set_index_busy(self.tr("Rebuilding the indexes…"))

        def done(index: dict[str, object]) -> None:
            self._set_index_busy("")
            self.show_index(index)
            self.notified.emit(self.tr("Indexes rebuilt."), None)

        rebuild_indexes(self.ctx).on_success(done).on_failure(self._index_failed).run(self)

    def _index_failed(self, exc: BaseException) -> None:
        self._set_index_busy("")
        show_error(self, exc)
        self.reload_requested.emit()
