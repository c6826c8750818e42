"""The interface language: English or Simplified Chinese, following the system by default."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLocale, QSettings, QTranslator

from core import InvalidInputError, resource_path

LANGUAGE_KEY = "ui/language"
LANGUAGES = (("system", "System default"), ("en", "English"), ("zh_CN", "简体中文"))


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
    try:
        path = resource_path("i18n", f"memory_center_{lang}.qm")
    except InvalidInputError:  # a damaged setting such as "../x": fall back to English
        return None
    translator = QTranslator(app)
    if translator.load(str(path)):
        app.installTranslator(translator)
        return translator
    return None
