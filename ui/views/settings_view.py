"""Settings: the store and its key (rotation with progress), and the language (R24)."""

from __future__ import annotations

import html

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core import ChangeKind, RotationReport, StoreStatus

from ui.context import UiContext
from ui.i18n import LANGUAGE_KEY, LANGUAGES
from ui.operations.keys import rotate_key
from ui.ops import query
from ui.presentation import status_text
from ui.views.base import RefreshingView


class SettingsView(RefreshingView):
    """Store facts, key management and preferences.

    Signals:
        notified: (str, object) status-bar message and undo callable.
    """

    notified = Signal(str, object)
    watched = frozenset({ChangeKind.KEYS, ChangeKind.SETTINGS, ChangeKind.MEMORIES})

    def __init__(self, ctx: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.setObjectName("SettingsView")
        self.values: dict[str, QLabel] = {}
        store = QGroupBox(self.tr("Store"))
        store_form = QFormLayout(store)
        store_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        for key, title in (
            ("path", self.tr("Data directory")),
            ("revision", self.tr("Revision")),
            ("schema", self.tr("Schema version")),
            ("counts", self.tr("Contents")),
        ):
            self.values[key] = self._value(title)
            store_form.addRow(title, self.values[key])
        key_box = QGroupBox(self.tr("Encryption key"))
        key_form = QFormLayout(key_box)
        key_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        for key, title in (
            ("source", self.tr("Key held in")),
            ("active", self.tr("Active key id")),
            ("keys", self.tr("Key ids")),
        ):
            self.values[key] = self._value(title)
            key_form.addRow(title, self.values[key])
        self.rotate_button = QPushButton(self.tr("Rotate key…"))
        self.rotate_button.setToolTip(
            self.tr(
                "Re-encrypt every event, memory and snapshot under a new key. Can be "
                "stopped and resumed."
            )
        )
        self.rotate_button.clicked.connect(self.rotate)
        key_form.addRow("", self.rotate_button)
        prefs = QGroupBox(self.tr("Preferences"))
        pref_form = QFormLayout(prefs)
        pref_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        self.language = QComboBox()
        self.language.setAccessibleName(self.tr("Language"))
        for code, name in LANGUAGES:
            self.language.addItem(name, code)
        current = str(QSettings().value(LANGUAGE_KEY, "system"))
        self.language.setCurrentIndex(max(0, self.language.findData(current)))
        self.language.currentIndexChanged.connect(self._language_chosen)
        pref_form.addRow(self.tr("Language"), self.language)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 18, 24, 18)
        heading = QLabel(self.tr("Settings"))
        heading.setObjectName("ViewTitle")
        layout.addWidget(heading)
        for box in (store, key_box, prefs):
            layout.addWidget(box)
        layout.addStretch(1)

    @staticmethod
    def _value(name: str) -> QLabel:
        label = QLabel()
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        label.setWordWrap(True)
        label.setAccessibleName(name)
        return label

    def refresh(self) -> None:
        """Reload the store status."""
        query(self.ctx, lambda s: s.status()).on_success(self._show).run(self)

    def _show(self, st: StoreStatus) -> None:
        v = self.values
        v["path"].setText(st.path)
        v["revision"].setText(str(st.revision))
        v["schema"].setText(str(st.schema_version))
        counts = ", ".join(f"{n} {status_text(k)}" for k, n in sorted(st.memory_counts.items()))
        v["counts"].setText(
            self.tr("%1 events in %2 sessions")
            .replace("%1", str(st.event_count))
            .replace("%2", str(st.session_count))
            + (f"; {counts}" if counts else "")
        )
        backend = f" ({st.key.keyring_backend})" if st.key.keyring_backend else ""
        source = {
            "keyring": self.tr("the operating system keyring"),
            "passphrase": self.tr("a passphrase-protected key file"),
        }.get(st.key.source, st.key.source)
        v["source"].setText(html.escape(source + backend))
        v["active"].setText(st.key.active_key_id)
        v["keys"].setText(", ".join(st.key.key_ids))

    def rotate(self) -> None:
        """Rotate the key with a progress dialog; Stop pauses it (run again to finish)."""
        self.rotate_button.setEnabled(False)

        def done(report: RotationReport) -> None:
            self.rotate_button.setEnabled(True)
            self.notified.emit(
                self.tr("Key rotated: %1 rows re-encrypted under %2.")
                .replace("%1", str(report.rows_reencrypted))
                .replace("%2", report.new_key_id),
                None,
            )
            self.refresh_now()

        def failed(exc: BaseException) -> None:
            from ui.errors import show_error

            self.rotate_button.setEnabled(True)
            show_error(self, exc)

        rotate_key(self.ctx).on_success(done).on_failure(failed).run(self)

    def _language_chosen(self, index: int) -> None:
        QSettings().setValue(LANGUAGE_KEY, self.language.itemData(index))
        self.notified.emit(
            self.tr("The language changes the next time Memory Center starts."), None
        )
