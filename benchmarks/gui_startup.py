"""Start-up time of the desktop memory center: process start to first paint, and to a
usable window (the main window painted with its timeline filled).

Each run starts a fresh Python process (as a user's double click would) under the Qt
platform given by QT_QPA_PLATFORM (offscreen by default), with the store passphrase in the
environment, and reads two times from it:

* first paint: the first time any window of the application paints;
* main paint: the main window's first paint (the start window has handed over);
* ready: the memory center's main window has painted and its timeline shows memories;
* worst turn: the longest wait between two turns of the event loop (a 10 ms QTimer ping)
  from the main window's first paint until ready: how long input waited at worst;
* worst start: the same from the first paint of any window (the start window, which is the
  main window's frame with the progress state) until ready: the store's open and the
  main window's hand-over included;
* quit: from closing the main window (as a user does) to the end of the process.

Usage (repository root):
    .venv/bin/python benchmarks/gui_startup.py [--runs 5] [--root DIR] [--entry cli|launch]
        [--memories N [--store DIR]] [--unlock]

With --unlock the passphrase is not in the environment: the unlock dialog comes up, the probe
types it and presses Enter, and three more values are read from that Enter: the next paint
of any window ("unlock-paint": the dialog saying "Unlocking…", or what replaced it), the
main window's first paint, ready; and the worst wait between two loop turns after it.

--root points at another checkout (to compare with an older version); --entry chooses
`app.cli:main` (the default) or the light launcher `app.launch:main` when it exists.
Each run uses an existing store (created and filled with the demo once, beforehand), or
with --memories N a store of N memories bulk-loaded by `ui_bench_store.py` (kept in --store
DIR to be reused by later runs).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROBE = r"""
import os, sys, time
t0 = float(sys.argv[1]); entry = sys.argv[2]; args = sys.argv[3:]
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication
app = QApplication([sys.argv[0]])
seen = {}
def mark(name):
    if name not in seen:
        seen[name] = time.time() - t0
        print(f"{name} {seen[name]:.3f}", flush=True)
pings = []
ping = QTimer()
ping.setInterval(10)
ping.timeout.connect(lambda: pings.append(time.time()))
main_at = []
unlock_at = []
passphrase = os.environ.pop("BENCH_UNLOCK", "")
class Probe(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and obj.isWidgetType() and obj.isWindow():
            if unlock_at and time.time() > unlock_at[0]:
                mark("unlock-paint")
            if "first-paint" not in seen:
                mark("first-paint")
                pings.append(time.time())
                ping.start()
            if type(obj).__name__ == "MainWindow" and "main-paint" not in seen:
                mark("main-paint")
                main_at.append(time.time())
        return False
probe = Probe()
app.installEventFilter(probe)
def type_passphrase():
    for w in app.topLevelWidgets():
        if type(w).__name__ == "PassphraseDialog" and w.isVisible() and not unlock_at:
            from PySide6.QtCore import Qt
            from PySide6.QtTest import QTest
            w.first.setText(passphrase)
            mark("unlock")
            unlock_at.append(time.time())
            QTest.keyClick(w.first, Qt.Key.Key_Return)  # as the user's Enter
def poll():
    if passphrase and not unlock_at:
        type_passphrase()
    for w in app.topLevelWidgets():
        model = getattr(getattr(w, "timeline", None), "model", None)
        if type(w).__name__ == "MainWindow" and w.isVisible() and model is not None:
            if getattr(model, "item_count", 0) > 0 and "main-paint" in seen:
                mark("ready")
                marks = [*pings, time.time()]
                worst = max(b - a for a, b in zip(marks, marks[1:]))
                print(f"worst-start {worst:.3f}", flush=True)
                marks = [main_at[0], *[p for p in pings if p >= main_at[0]], time.time()]
                worst = max(b - a for a, b in zip(marks, marks[1:]))
                print(f"worst-turn {worst:.3f}", flush=True)
                if unlock_at:
                    marks = [unlock_at[0], *[p for p in pings if p >= unlock_at[0]], time.time()]
                    worst = max(b - a for a, b in zip(marks, marks[1:]))
                    print(f"worst-unlock {worst:.3f}", flush=True)
                def close():
                    print(f"quit-start {time.time() - t0:.3f}", flush=True)
                    w.close()
                QTimer.singleShot(200, close)
                return
    QTimer.singleShot(20, poll)
QTimer.singleShot(0, poll)
sys.argv = ["memory-center", *args]
if entry == "launch":
    from app.launch import main
else:
    from app.cli import main
try:
    main()
except SystemExit:
    pass
"""


TIMEOUT_S = 300
NAMES = (
    "first-paint",
    "main-paint",
    "ready",
    "worst-turn",
    "worst-start",
    "unlock-paint after unlock",
    "main-paint after unlock",
    "ready after unlock",
    "worst-unlock",
    "quit",
)


def run_once(root: Path, entry: str, env: dict[str, str], args: list[str]) -> dict[str, float]:
    t0 = time.time()
    try:
        out = subprocess.run(
            [sys.executable, "-c", PROBE, str(t0), entry, *args],
            cwd=root,
            env={**env, "PYTHONPATH": str(root)},
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            check=False,
        )
        stdout, stderr = out.stdout, out.stderr
    except subprocess.TimeoutExpired as exc:  # a process that would not quit: report the rest
        raw_out, raw_err = exc.stdout or b"", exc.stderr or b""
        stdout = raw_out.decode() if isinstance(raw_out, bytes) else raw_out
        stderr = raw_err.decode() if isinstance(raw_err, bytes) else raw_err
        print(f"(the process was still running after {TIMEOUT_S} s and was stopped)")
    ended = time.time() - t0
    times = {}
    for line in stdout.splitlines():
        name, _, value = line.partition(" ")
        if name in NAMES or name in ("quit-start", "unlock", "unlock-paint"):
            times[name] = float(value)
    if "quit-start" in times:
        times["quit"] = ended - times.pop("quit-start")
    if "unlock" in times:
        unlocked = times.pop("unlock")
        for name in ("unlock-paint", "main-paint", "ready"):
            if name in times:
                times[f"{name} after unlock"] = times[name] - unlocked
        times.pop("unlock-paint", None)
    if "ready" not in times:
        raise SystemExit(f"the window never became ready:\n{stdout}\n{stderr[-2000:]}")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--entry", choices=("cli", "launch"), default="cli")
    parser.add_argument("--extra", nargs="*", default=[], help="Arguments after `gui`.")
    parser.add_argument("--memories", type=int, default=0, help="A bulk-loaded store of N.")
    parser.add_argument("--store", type=Path, help="Where to keep (and reuse) that store.")
    parser.add_argument(
        "--unlock",
        action="store_true",
        help="No passphrase in the environment: the probe types it into the unlock dialog "
        "and times the window from that Enter (paint, main window, ready, worst turn).",
    )
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = opts.store or Path(tmp) / "store"
        env = {
            **os.environ,
            "MEMORY_CENTER_DATA_DIR": str(store),
            "MEMORY_CENTER_PASSPHRASE": (
                "benchmark passphrase" if opts.memories else "startup benchmark passphrase"
            ),
            "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
            "XDG_CONFIG_HOME": str(Path(tmp) / "config"),
            "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        }
        seed = (
            "from app.compose import open_service; from app.demo import seed_demo_if_empty; "
            "from app.paths import default_data_dir; s = open_service(default_data_dir()); "
            "seed_demo_if_empty(s); s.close()"
        )
        here = Path(__file__).resolve().parent
        command = (
            [
                sys.executable,
                str(here / "ui_bench_store.py"),
                str(store),
                str(opts.memories),
                "--bulk",
            ]
            if opts.memories
            else [sys.executable, "-c", seed]
        )
        subprocess.run(
            command, cwd=opts.root, env={**env, "PYTHONPATH": str(opts.root)}, check=True
        )
        if opts.unlock:
            env["BENCH_UNLOCK"] = env.pop("MEMORY_CENTER_PASSPHRASE")
        runs = [
            run_once(opts.root, opts.entry, env, ["gui", *opts.extra]) for _ in range(opts.runs)
        ]
    for name in NAMES:
        values = [r[name] for r in runs if name in r]
        if not values:
            continue
        print(
            f"{name:<25} median {statistics.median(values):.2f} s  "
            f"(min {min(values):.2f}, max {max(values):.2f}, {len(values)} runs)"
        )


if __name__ == "__main__":
    main()
