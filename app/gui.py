"""Start the desktop memory center on a store directory."""

from __future__ import annotations

import sys
from pathlib import Path

from core import KeyUnavailableError, MemoryCenterError, MemoryService


def run_gui(data_dir: Path, argv: list[str] | None = None) -> int:
    """Open the store (asking for a passphrase if needed), seed a demo if empty, show the window.

    Returns:
        The process exit code.
    """
    from PySide6.QtWidgets import QApplication, QMessageBox

    from app.compose import open_service
    from app.demo import seed_demo_if_empty

    from ui.i18n import install_translator
    from ui.main_window import MainWindow
    from ui.passphrase_dialog import PassphraseDialog
    from ui.style import apply_style

    app = QApplication.instance() or QApplication(argv if argv is not None else sys.argv)
    assert isinstance(app, QApplication)
    app.setOrganizationName("Memory Center")
    app.setApplicationName("Memory Center")
    install_translator(app)
    apply_style(app)

    def ask(new_store: bool) -> str | None:
        dialog = PassphraseDialog(new_store)
        return dialog.passphrase() if dialog.exec() else None

    try:
        service: MemoryService = open_service(data_dir, prompt=ask)
        seed_demo_if_empty(service)
    except KeyUnavailableError as exc:
        QMessageBox.critical(None, "Memory Center is locked", exc.message)
        return 1
    except MemoryCenterError as exc:
        QMessageBox.critical(None, "Memory Center cannot open the store", exc.message)
        return 1
    window = MainWindow(service)
    window.show()
    code = app.exec()
    service.close()
    return int(code)
