"""Save a PNG of every main view of the memory center, on a fresh demo store.

Usage (from the repository root):
    QT_QPA_PLATFORM=offscreen python packaging/screenshots.py [--dark] [--lang zh_CN] [OUT_DIR]
or under a real X server: xvfb-run -a python packaging/screenshots.py

The store lives in a temporary directory, protected by $MEMORY_CENTER_PASSPHRASE.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MEMORY_CENTER_PASSPHRASE", "screenshot passphrase")
os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")


def _settle(app: object, seconds: float, until: Callable[[], bool] | None = None) -> None:
    from PySide6.QtWidgets import QApplication

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        QApplication.processEvents()
        if until is not None and until():
            end = min(end, time.monotonic() + 0.3)
            until = None
        time.sleep(0.02)


def main() -> int:
    """Start the app on a demo store and grab each view."""
    parser = argparse.ArgumentParser()
    parser.add_argument("out", nargs="?", default=str(ROOT / "docs" / "screenshots"))
    parser.add_argument("--dark", action="store_true")
    parser.add_argument("--lang", default="en")
    args = parser.parse_args()
    from PySide6.QtCore import QCoreApplication, QSettings
    from PySide6.QtWidgets import QApplication

    from app.compose import open_service
    from app.demo import seed_demo_if_empty
    from app.gui_connectors import desktop_connectors
    from app.gui_start import StartWindow

    from ui.i18n import install_translator
    from ui.main_window import MainWindow
    from ui.style import apply_style

    app = QApplication(sys.argv[:1])
    QCoreApplication.setOrganizationName("Memory Center Screenshots")
    QSettings().clear()
    install_translator(app, args.lang)
    apply_style(app, dark=args.dark)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    suffix = ("-dark" if args.dark else "") + ("" if args.lang == "en" else f"-{args.lang}")
    with tempfile.TemporaryDirectory() as tmp:
        # Settings reads the Claude Code settings file: a fresh one, never the user's.
        os.environ["CLAUDE_CONFIG_DIR"] = str(Path(tmp) / "claude")
        service = open_service(Path(tmp) / "store")
        # As an agent's warm store: the demo's model calls are then answered by both
        # searches, not by keywords while the model still loads (their replays say which).
        service.index.warm_up(wait=60)
        seed_demo_if_empty(service)
        # The start window while the store opens: the main window's frame, with progress.
        loading = StartWindow()
        loading.resize(1280, 800)
        loading.show_progress(loading.tr("Loading your memories…"))
        loading.show()
        _settle(app, 0.8)
        path = out / f"starting{suffix}.png"
        loading.grab().save(str(path))
        print(path)
        loading.hand_over()
        start = StartWindow()
        start.resize(1280, 800)
        start.ask_choice()
        start.show()
        _settle(app, 0.8)
        path = out / f"first-run{suffix}.png"
        start.grab().save(str(path))
        print(path)
        start.hand_over()
        window = MainWindow(service, demo=True, connectors=desktop_connectors(Path(tmp) / "store"))
        window.resize(1280, 800)
        window.show()
        _settle(app, 2.0, lambda: window.timeline.model.rowCount() > 3)
        window.timeline.table.selectRow(1)
        _settle(app, 1.0)
        shots = [
            ("timeline", 0, None),
            ("review", 1, None),
            ("sessions", 2, None),
            ("settings", 3, None),
            ("agents", 4, None),
        ]
        for name, row, _ in shots:
            window.nav.setCurrentRow(row)
            _settle(app, 1.2)
            path = out / f"{name}{suffix}.png"
            window.grab().save(str(path))
            print(path)
        window.nav.setCurrentRow(1)
        _settle(app, 0.5)
        rows = [
            i
            for i in window.review.model.selectable_rows()
            if window.review.model.entry(i).conflict
        ]  # type: ignore[union-attr]
        if rows:
            window.review.list.setCurrentIndex(window.review.model.index(rows[0], 0))
            _settle(app, 0.8)
            window.grab().save(str(out / f"review-conflict{suffix}.png"))
        possible = [
            i
            for i in window.review.model.selectable_rows()
            if (entry := window.review.model.entry(i)) is not None
            and entry.record is not None
            and service.memories.possible_relation(entry.record.id) is not None
        ]
        if possible:
            # "Possibly contradicts ...": the other memory beside it, one key per answer (#40).
            window.review.list.setCurrentIndex(window.review.model.index(possible[0], 0))
            _settle(app, 0.8, lambda: not window.review.card.possible.isHidden())
            window.grab().save(str(out / f"review-possible{suffix}.png"))
        quarantined = [
            i
            for i in window.review.model.selectable_rows()
            if window.review.model.entry(i).section == "quarantined"
        ]  # type: ignore[union-attr]
        if quarantined:
            window.review.list.setCurrentIndex(window.review.model.index(quarantined[0], 0))
            _settle(app, 0.8)
            window.grab().save(str(out / f"review-quarantined{suffix}.png"))
        window.nav.setCurrentRow(0)
        window.timeline.show_events.setChecked(True)
        _settle(app, 1.2)
        window.grab().save(str(out / f"timeline-events{suffix}.png"))
        window.close()
        service.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
