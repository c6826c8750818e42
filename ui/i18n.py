"""The interface language: English or Simplified Chinese, following the system by default."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLocale, QSettings, QTranslator

from ui.presentation import RESOURCES

LANGUAGE_KEY = "ui/language"
LANGUAGES = (("system", "System default"), ("en", "English"), ("zh_CN", "简体中文"))
I18N = RESOURCES / "i18n"


def chosen_language() -> str:
    """`en`, `zh_CN`, or the system's language when the user chose 'system'."""
    value = str(QSettings().value(LANGUAGE_KEY, "system"))
    if value != "system":
        return value
    return "zh_CN" if QLocale.system().language() == QLocale.Language.Chinese else "en"


def install_translator(app: QCoreApplication, language: str | None = None) -> QTranslator | None:
    """Load and install the compiled translation for `language`; None for English."""
    lang = language or chosen_language()
    if lang.startswith("en"):
        return None
    translator = QTranslator(app)
    if translator.load(str(I18N / f"memory_center_{lang}.qm")):
        app.installTranslator(translator)
        return translator
    return None
