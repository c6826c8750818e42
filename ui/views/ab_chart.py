"""The A/B comparison of memory configurations (R29): an `eval ab` result shown as a bar
chart with the table of numbers beside it.

The chart is painted here (QtCharts is not part of the PySide6 wheels we depend on). Each
metric is a group of bars, one per configuration, scaled to the largest value of that metric
(rates to 1.0), with the value written at the end of the bar.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core import InvalidInputError, parse_json

from ui.tasks import TaskRunner

RATES = (
    "evidence_recall",
    "precision",
    "leakage_rate",
    "stale_citation_rate",
    "wrong_adoption_rate",
)
AMOUNTS = ("tokens_per_call", "latency_p50_ms")
Runner = Callable[[Path, list[Path]], object]
"""Runs `eval ab` over a sessions folder and configuration files; its JSON document."""
COLOURS = ("#3b82c4", "#e08a2e", "#4f9d5d", "#b5485d", "#7d62b3", "#5f6b7a")


def metric_titles() -> dict[str, str]:
    """The metrics shown, by key, in the user's language."""
    return {
        "evidence_recall": QCoreApplication.translate("AbChart", "Evidence recall"),
        "precision": QCoreApplication.translate("AbChart", "Precision of injected memory"),
        "leakage_rate": QCoreApplication.translate("AbChart", "Leakage (must be 0)"),
        "stale_citation_rate": QCoreApplication.translate("AbChart", "Stale citations"),
        "wrong_adoption_rate": QCoreApplication.translate("AbChart", "Wrong adoption"),
        "tokens_per_call": QCoreApplication.translate("AbChart", "Tokens injected per call"),
        "latency_p50_ms": QCoreApplication.translate("AbChart", "Latency p50 (ms)"),
    }


@dataclass(frozen=True)
class Comparison:
    """Per configuration, its total numbers (the `total` of an `eval ab` document)."""

    configurations: dict[str, dict[str, float]]
    sessions: tuple[str, ...]


def read_comparison(path: Path) -> Comparison:
    """Read an `eval ab` JSON document.

    Raises:
        InvalidInputError: the file cannot be read, is not JSON, or is not an A/B result.
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InvalidInputError(str(path), f"cannot be read ({exc.strerror})") from None
    return comparison_of(parse_json(raw, str(path)), str(path))


def comparison_of(doc: object, where: str) -> Comparison:
    """The comparison in a parsed document (see `read_comparison`)."""
    configs = doc.get("configurations") if isinstance(doc, Mapping) else None
    if not isinstance(configs, Mapping) or not configs:
        raise InvalidInputError(where, "is not an A/B result (no configurations)")
    out: dict[str, dict[str, float]] = {}
    for name, entry in configs.items():
        total = entry.get("total") if isinstance(entry, Mapping) else None
        if not isinstance(total, Mapping):
            raise InvalidInputError(where, f"configuration {name!r} has no totals")
        out[str(name)] = {
            key: float(total[key])
            for key in (*RATES, *AMOUNTS)
            if isinstance(total.get(key), int | float) and not isinstance(total.get(key), bool)
        }
    sessions = doc.get("sessions", []) if isinstance(doc, Mapping) else []
    names = tuple(str(s) for s in sessions) if isinstance(sessions, list) else ()
    return Comparison(out, names)


def shown_value(key: str, value: float) -> str:
    """A rate as a percentage, an amount as a number."""
    return f"{value * 100:.0f} %" if key in RATES else f"{value:g}"


class BarChart(QWidget):
    """Grouped horizontal bars: one group per metric, one bar per configuration."""

    BAR = 14
    GAP = 10

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.comparison = Comparison({}, ())
        self.setAccessibleName(QCoreApplication.translate("AbChart", "Comparison chart"))
        self.setMinimumWidth(360)

    def show_comparison(self, comparison: Comparison) -> None:
        """Draw `comparison`."""
        self.comparison = comparison
        self.setMinimumHeight(self.sizeHint().height())
        self.updateGeometry()
        self.update()

    def metrics(self) -> list[str]:
        """The metrics at least one configuration reports."""
        configs = self.comparison.configurations.values()
        return [k for k in (*RATES, *AMOUNTS) if any(k in c for c in configs)]

    def sizeHint(self) -> QSize:
        n = len(self.comparison.configurations)
        rows = len(self.metrics())
        legend = 24
        line = self._title_height() + 2
        return QSize(480, legend + rows * (line + n * (self.BAR + 2) + self.GAP))

    def _title_height(self) -> int:
        # Room for fallback fonts (CJK glyphs are taller than the UI font's metrics say).
        return int(self.fontMetrics().height() * 1.5)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        names = list(self.comparison.configurations)
        if not names:
            painter.setPen(self.palette().placeholderText().color())
            painter.drawText(
                QRectF(self.rect()),
                Qt.AlignmentFlag.AlignCenter,
                QCoreApplication.translate("AbChart", "Open a result to see the comparison."),
            )
            painter.end()
            return
        y = self._legend(painter, names)
        titles = metric_titles()
        width = self.width() - 90
        for key in self.metrics():
            painter.setPen(self.palette().windowText().color())
            line = self._title_height()
            painter.drawText(
                QRectF(0, y, self.width(), line), Qt.AlignmentFlag.AlignVCenter, titles[key]
            )
            y += line + 2
            values = [self.comparison.configurations[n].get(key, 0.0) for n in names]
            top = 1.0 if key in RATES else max(values) or 1.0
            for i, value in enumerate(values):
                length = max(1.0, width * value / top) if value else 1.0
                painter.fillRect(QRectF(0, y, length, self.BAR), QColor(COLOURS[i % len(COLOURS)]))
                painter.setPen(self.palette().windowText().color())
                painter.drawText(
                    QRectF(length + 6, y - 1, 90, self.BAR + 2),
                    Qt.AlignmentFlag.AlignVCenter,
                    shown_value(key, value),
                )
                y += self.BAR + 2
            y += self.GAP
        painter.end()

    def _legend(self, painter: QPainter, names: list[str]) -> float:
        x = 0.0
        for i, name in enumerate(names):
            painter.fillRect(QRectF(x, 4, 12, 12), QColor(COLOURS[i % len(COLOURS)]))
            painter.setPen(self.palette().windowText().color())
            text_width = painter.fontMetrics().horizontalAdvance(name)
            painter.drawText(
                QRectF(x + 16, 0, text_width + 4, 20), Qt.AlignmentFlag.AlignVCenter, name
            )
            x += 16 + text_width + 18
        return 24.0


class AbComparisonDialog(QDialog):
    """ "Open result…" loads an `eval ab` JSON file; the chart and the table show it."""

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        runner: Runner | None = None,
        tasks: TaskRunner | None = None,
    ) -> None:
        super().__init__(parent)
        self.runner = runner
        self.tasks = tasks
        self.setWindowTitle(self.tr("Memory A/B comparison"))
        intro = QLabel(
            self.tr(
                "Compare configurations of memory (for example memory on and off) on recorded "
                "sessions. Create a result with: memory-center eval ab --transcripts DIR "
                "--policy A.json --policy B.json --out result.json"
            )
        )
        intro.setWordWrap(True)
        intro.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_button = QPushButton(self.tr("Open result…"))
        self.open_button.clicked.connect(self.choose_and_load)
        self.run_button = QPushButton(self.tr("Run on recorded sessions…"))
        self.run_button.setToolTip(
            self.tr(
                "Choose a folder of recorded sessions, then two or more configuration files; "
                "each session is replayed under each configuration (this takes a while)."
            )
        )
        self.run_button.clicked.connect(self.choose_and_run)
        self.run_button.setVisible(runner is not None and tasks is not None)
        self.source = QLabel()
        self.source.setWordWrap(True)
        self.problem = QLabel()
        self.problem.setObjectName("Problem")
        self.problem.setWordWrap(True)
        self.chart = BarChart()
        self.table = QTableWidget(0, 0)
        self.table.setAccessibleName(self.tr("Comparison table"))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        chart_area = QScrollArea()
        chart_area.setWidgetResizable(True)
        chart_area.setFrameShape(QFrame.Shape.NoFrame)
        chart_area.setWidget(self.chart)
        body = QHBoxLayout()
        body.addWidget(chart_area, 1)
        body.addWidget(self.table, 1)
        top = QHBoxLayout()
        top.addWidget(self.open_button)
        top.addWidget(self.run_button)
        top.addWidget(self.source, 1)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.button(QDialogButtonBox.StandardButton.Close).setText(self.tr("Close"))
        close.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(top)
        layout.addWidget(self.problem)
        layout.addLayout(body, 1)
        layout.addWidget(close)
        self.resize(1040, 660)

    def choose_path(self) -> str:
        """Ask for the result file ("" when cancelled). Tests replace this."""
        name, _filter = QFileDialog.getOpenFileName(
            self,
            self.tr("Open an A/B result"),
            str(Path.home()),
            self.tr("JSON files (*.json);;All files (*)"),
        )
        return name

    def choose_run_inputs(self) -> tuple[Path, list[Path]] | None:
        """Ask for the sessions folder and the configuration files (None when cancelled).
        Tests replace this."""
        folder = QFileDialog.getExistingDirectory(
            self, self.tr("Folder of recorded sessions"), str(Path.home())
        )
        if not folder:
            return None
        names, _filter = QFileDialog.getOpenFileNames(
            self,
            self.tr("Configurations to compare (two or more)"),
            folder,
            self.tr("JSON files (*.json);;All files (*)"),
        )
        return (Path(folder), [Path(n) for n in names]) if names else None

    def choose_and_run(self) -> None:
        """Replay the chosen sessions under the chosen configurations (in the background)."""
        chosen = self.choose_run_inputs()
        if chosen is None or self.runner is None or self.tasks is None:
            return
        folder, policies = chosen
        if len(policies) < 2:
            self.problem.setText(self.tr("Choose two or more configuration files to compare."))
            return
        runner = self.runner
        self.problem.setText("")
        self.source.setText(self.tr("Replaying the recorded sessions… this takes a while."))
        self.run_button.setEnabled(False)
        self.open_button.setEnabled(False)
        self.tasks.run(lambda: runner(folder, policies), self._ran(folder), self._run_failed)

    def _ran(self, folder: Path) -> Callable[[object], None]:
        def done(doc: object) -> None:
            self._running_done()
            try:
                comparison = comparison_of(doc, str(folder))
            except InvalidInputError as exc:
                self.problem.setText(exc.message)
                return
            self.show_comparison(comparison, folder.name)

        return done

    def _run_failed(self, exc: BaseException) -> None:
        self._running_done()
        self.source.setText("")
        self.problem.setText(getattr(exc, "message", str(exc)))

    def _running_done(self) -> None:
        self.run_button.setEnabled(True)
        self.open_button.setEnabled(True)

    def choose_and_load(self) -> None:
        """Ask for a file and show it."""
        name = self.choose_path()
        if name:
            self.load(Path(name))

    def load(self, path: Path) -> None:
        """Show the result in `path`; a bad file is one message and the last result stays."""
        try:
            comparison = read_comparison(path)
        except InvalidInputError as exc:
            self.problem.setText(exc.message)
            return
        self.show_comparison(comparison, path.name)

    def show_comparison(self, comparison: Comparison, name: str) -> None:
        """Show `comparison` (named after its file or sessions folder)."""
        self.problem.setText("")
        self.source.setText(
            self.tr("%1 — %n recorded session(s)", "", len(comparison.sessions)).replace("%1", name)
        )
        self.chart.show_comparison(comparison)
        self._fill_table(comparison)

    def _fill_table(self, comparison: Comparison) -> None:
        names = list(comparison.configurations)
        keys = self.chart.metrics()
        titles = metric_titles()
        self.table.clear()
        self.table.setRowCount(len(keys))
        self.table.setColumnCount(len(names))
        self.table.setHorizontalHeaderLabels(names)
        self.table.setVerticalHeaderLabels([titles[k] for k in keys])
        for row, key in enumerate(keys):
            for col, name in enumerate(names):
                value = comparison.configurations[name].get(key)
                text = shown_value(key, value) if value is not None else "—"
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(row, col, item)
