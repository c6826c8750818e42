"""The look: one stylesheet with light and dark colours that follow the system palette."""

from __future__ import annotations

from string import Template

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from ui.assets import asset_root
from ui.presentation import icon

LIGHT = {
    "bg": "#f6f7f9",
    "fg": "#1f2328",
    "muted": "#5f6670",
    "card": "#ffffff",
    "alt": "#fafbfc",
    "border": "#dfe3e8",
    "hover": "#eef1f5",
    "nav_bg": "#eef1f5",
    "accent": "#1a73e8",
    "accent_hover": "#1765cc",
    "accent_soft": "#dbe8fd",
    "accent_fg": "#0b57d0",
    "danger": "#c5221f",
    "disabled": "#a9afb7",
    "warn_bg": "#fff4e0",
    "warn_fg": "#5c3b00",
    "warn_border": "#f3c77a",
}
DARK = {
    "bg": "#1e1f22",
    "fg": "#e6e6e6",
    "muted": "#a0a6ad",
    "card": "#26282b",
    "alt": "#2b2d31",
    "border": "#3a3d42",
    "hover": "#32353a",
    "nav_bg": "#191a1c",
    "accent": "#4c8df6",
    "accent_hover": "#6aa1f8",
    "accent_soft": "#22395e",
    "accent_fg": "#a8c7fa",
    "danger": "#f28b82",
    "disabled": "#62676e",
    "warn_bg": "#3d2e10",
    "warn_fg": "#fbd38d",
    "warn_border": "#7a5a1c",
}
CJK_FAMILIES = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Micro Hei")


THEME_KEY = "ui/theme"
THEMES = ("system", "light", "dark")


def chosen_dark() -> bool:
    """The look the user chose (Preferences → Theme): light, dark, or the system's."""
    from PySide6.QtCore import QSettings

    theme = str(QSettings().value(THEME_KEY, "system"))
    if theme in ("light", "dark"):
        return theme == "dark"
    return is_dark()


def is_dark() -> bool:
    """True when the system asks for a dark appearance."""
    hints = QGuiApplication.styleHints()
    scheme = getattr(hints, "colorScheme", None)
    if scheme is not None and scheme() != Qt.ColorScheme.Unknown:
        return bool(scheme() == Qt.ColorScheme.Dark)
    return QGuiApplication.palette().color(QPalette.ColorRole.Window).lightness() < 128


def stylesheet(dark: bool) -> str:
    """The application stylesheet for the light or dark palette."""
    template = Template((asset_root() / "style" / "app.qss").read_text(encoding="utf-8"))
    icons = (asset_root() / "icons").as_posix()
    return template.safe_substitute({**(DARK if dark else LIGHT), "icons": icons})


def apply_style(app: QApplication, dark: bool | None = None) -> None:
    """Set font (with a CJK fallback), icon and stylesheet on the application."""
    font = QFont(app.font())
    families = [font.family(), "Noto Sans", "DejaVu Sans", *CJK_FAMILIES]
    font.setFamilies(families)
    app.setFont(font)
    app.setWindowIcon(icon("app"))
    dark_mode = chosen_dark() if dark is None else dark
    colours = DARK if dark_mode else LIGHT
    palette = app.palette()
    # Widgets the stylesheet does not colour (form labels, check boxes, spin boxes) follow
    # the palette: give it the same colours, or dark mode shows dark text on dark cards.
    role = QPalette.ColorRole
    for r, key in (
        (role.Window, "bg"),
        (role.WindowText, "fg"),
        (role.Base, "card"),
        (role.AlternateBase, "alt"),
        (role.Text, "fg"),
        (role.Button, "card"),
        (role.ButtonText, "fg"),
        (role.PlaceholderText, "muted"),
        (role.ToolTipBase, "card"),
        (role.ToolTipText, "fg"),
    ):
        palette.setColor(r, QColor(colours[key]))
    # Disabled text must look disabled (the loop above set every colour group alike).
    for r in (role.WindowText, role.Text, role.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, r, QColor(colours["disabled"]))
    palette.setColor(QPalette.ColorRole.Link, QColor(colours["accent"]))
    palette.setColor(QPalette.ColorRole.LinkVisited, QColor(colours["accent"]))
    app.setPalette(palette)
    app.setStyleSheet(stylesheet(dark_mode))
