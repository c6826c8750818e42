"""Quitting the desktop (#43): the process ends without the interpreter's teardown
(`app.one_shot.end_process`), so only after the window saved its settings and the store was
closed with every write applied. A real `memory-center gui` process on a real store, its
window closed as a user closes it.
"""

from __future__ import annotations

import configparser
import subprocess
import sys
from pathlib import Path

import pytest

from app.gui_start import settings_dir
from core import MemoryService
from tests.conftest import PASSPHRASE
from tests.support.cli_process import checkout_env

pytestmark = pytest.mark.slow

# The steps in the real program: wait for the main window, remember one thing through the
# window's own service, resize the window (a setting), then close it.
DRIVE = """
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
app = QApplication([sys.argv[0]])
def close_main():
    for w in app.topLevelWidgets():
        if type(w).__name__ == "MainWindow" and w.isVisible():
            from core.model import commands as c
            w.service.commands.run(
                c.Remember(scope={"user": "ana"}, text="Ana's bike is a green Gazelle."),
                c.Origin("desktop"),
            )
            w.resize(777, 555)
            QTimer.singleShot(50, w.close)
            return
    QTimer.singleShot(50, close_main)
QTimer.singleShot(50, close_main)
sys.argv = ["memory-center", "--data-dir", sys.argv[1], "gui"]
from app.launch import main
main()
"""


def test_quit_keeps_the_settings_and_every_write(tmp_path: Path) -> None:
    store = tmp_path / "store"
    MemoryService.open(store, passphrase=PASSPHRASE, prefer_keyring=False).close()
    env = checkout_env(store, PASSPHRASE, MEMORY_CENTER_EMBEDDER="hashing")
    env["QT_QPA_PLATFORM"] = "offscreen"
    done = subprocess.run(
        [sys.executable, "-c", DRIVE, str(store)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    ini = settings_dir(store) / "Memory Center" / "Memory Center.ini"
    assert ini.exists(), "the window's settings were not written before the process ended"
    saved = configparser.ConfigParser()
    saved.read(ini)
    assert saved.has_option("main_window", "geometry")
    with MemoryService.open(store, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        assert svc.verify().ok
        texts = [m.content for m in svc.memories.list_memories()]
    assert "Ana's bike is a green Gazelle." in texts
