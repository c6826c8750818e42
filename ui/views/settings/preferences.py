"""Preferences: the interface language and the theme (both switch at once)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QSettings
from PySide6.QtWidgets import QApplication, QComboBox, QFormLayout, QWidget

from ui.context import UiContext
from ui.i18n import LANGUAGE_KEY, LANGUAGES, install_translator
from ui.style import THEME_KEY, apply_style
from ui.views.settings.panel import SettingsPanel


class PreferencesPanel(SettingsPanel):
    """The language and theme choices, stored in QSettings."""

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
        self.theme = QComboBox()
        self.theme.setAccessibleName(self.tr("Theme"))
        for code, name in (
            ("system", self.tr("Same as the system")),
            ("light", self.tr("Light")),
            ("dark", self.tr("Dark")),
        ):
            self.theme.addItem(name, code)
        theme = str(QSettings().value(THEME_KEY, "system"))
        self.theme.setCurrentIndex(max(0, self.theme.findData(theme)))
        self.theme.currentIndexChanged.connect(self._theme_chosen)
        form.addRow(self.tr("Theme"), self.theme)

    def _theme_chosen(self, index: int) -> None:
        """Store the choice and restyle the application now."""
        QSettings().setValue(THEME_KEY, self.theme.itemData(index))
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_style(app)

    def _language_chosen(self, index: int) -> None:
        """Store the choice and switch now: the window rebuilds its texts."""
        QSettings().setValue(LANGUAGE_KEY, self.language.itemData(index))
        app = QCoreApplication.instance()
        if app is not None:
            install_translator(app)
