"""The store's facts: where it lives, its revision, schema and contents."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFormLayout, QLabel, QWidget

from core import StoreStatus

from ui.context import UiContext
from ui.presentation import status_text
from ui.views.settings.panel import SettingsPanel, value_label


class StorePanel(SettingsPanel):
    """Data directory, revision, schema version and what the store holds."""

    def __init__(self, ctx: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, self.tr("Store"), parent)
        self.values: dict[str, QLabel] = {}
        self.form = form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for key, title in (
            ("path", self.tr("Data directory")),
            ("revision", self.tr("Revision")),
            ("schema", self.tr("Schema version")),
            ("counts", self.tr("Contents")),
        ):
            self.values[key] = value_label(title)
            form.addRow(title, self.values[key])

    def show_status(self, st: StoreStatus) -> None:
        """Show the store status."""
        v = self.values
        # A store on a database server names its URL (its local data is derived indexes).
        on_server = "://" in st.path
        v["path"].setText(st.path if on_server else str(Path(st.path).parent))
        title = self.form.labelForField(v["path"])
        if isinstance(title, QLabel):
            title.setText(self.tr("Database server") if on_server else self.tr("Data directory"))
        v["path"].setToolTip(st.path)
        v["revision"].setText(str(st.revision))
        v["schema"].setText(str(st.schema_version))
        counts = ", ".join(f"{n} {status_text(k)}" for k, n in sorted(st.memory_counts.items()))
        v["counts"].setText(
            self.tr("%1 events in %2 sessions")
            .replace("%1", str(st.event_count))
            .replace("%2", str(st.session_count))
            + (f"; {counts}" if counts else "")
        )
