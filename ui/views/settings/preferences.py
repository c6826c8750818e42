"""Preferences: the interface language (switches at once)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QSettings
from PySide6.QtWidgets import QComboBox, QFormLayout, QWidget

from ui.context import UiContext
from ui.i18n import LANGUAGE_KEY, LANGUAGES, install_translator
from ui.views.settings.panel import SettingsPanel


class PreferencesPanel(SettingsPanel):
    """The language choice, stored in QSettings."""

    def __init__(self, ctx: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, self.tr("Preferences"), parent)
        form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        self.language = QComboBox()
        self.language.setAccessibleName(self.tr("Language"))
        for code, name in LANGUAGES:
            self.language.addItem(self.tr("System default") if code == "system" else name, code)
        current = str(QSettings().value(LANGUAGE_KEY, "system"))
        self.language.setCurrentIndex(max(0, self.language.findData(current)))
        self.language.currentIndexChanged.connect(self._language_chosen)
        form.addRow(self.tr("Language"), self.language)

    def _language_chosen(self, index: int) -> None:
        """Store the choice and switch now: the window rebuilds its texts."""
        QSettings().setValue(LANGUAGE_KEY, self.language.itemData(index))
        app = QCoreApplication.instance()
        if app is not None:
            install_translator(app)
