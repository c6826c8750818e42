"""The interface language: English or Simplified Chinese, following the system by default.

English has a translation file too: it holds the plural forms ("1 memory", "2 memories").
Switching the language at run time replaces the installed translator; widgets then receive a
LanguageChange event and the main window rebuilds its views with the new texts.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLocale, QSettings, QTranslator

from ui.assets import asset

LANGUAGE_KEY = "ui/language"
LANGUAGES = (("system", "System default"), ("en", "English"), ("zh_CN", "简体中文"))
_installed: dict[int, QTranslator] = {}


def chosen_language() -> str:
    """`en`, `zh_CN`, or the system's language when the user chose 'system'."""
    value = str(QSettings().value(LANGUAGE_KEY, "system"))
    if value != "system":
        return value
    return "zh_CN" if QLocale.system().language() == QLocale.Language.Chinese else "en"


def install_translator(app: QCoreApplication, language: str | None = None) -> QTranslator | None:
    """Load and install the compiled translation for `language` (replacing the one installed
    before); None when no file could be loaded."""
    lang = language or chosen_language()
    old = _installed.pop(id(app), None)
    if old is not None:
        app.removeTranslator(old)
    translator = QTranslator(app)
    name = "en" if lang.startswith("en") else lang
    path = asset("i18n", f"memory_center_{name}.qm")  # None for a damaged setting: "../x"
    if path is not None and translator.load(str(path)):
        app.installTranslator(translator)
        _installed[id(app)] = translator
        return translator
    return None
