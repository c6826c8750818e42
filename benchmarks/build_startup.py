"""Size and start-up time of the desktop build (dist/memory-center, made by packaging/build.sh).

Usage:
    packaging/build.sh && python benchmarks/build_startup.py [--runs 5]

Prints the folder and tarball sizes, then for `--version`, `status` and the GUI the time of a
cold start (the build's own files evicted from the page cache first, so they are read from
disk again; shared system libraries stay cached) and the median of warm starts. The same
commands from the source checkout are timed for comparison. The GUI is timed until its main
window is mapped on a virtual X display (Xvfb + xdotool; skipped when they are missing).
Numbers are printed, not asserted; results go to docs/packaging.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "dist" / "memory-center"
EXE = APP / "memory-center"
SOURCE = [sys.executable, "-c", "from app.cli import main; main()"]
PASSPHRASE = "benchmark passphrase for the build"


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def evict(path: Path) -> None:
    """Drop the build's files from the page cache (only these files; nothing else)."""
    for p in path.rglob("*"):
        if p.is_file() and not p.is_symlink():
            with p.open("rb") as f:
                os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True, cwd=ROOT)
    return time.perf_counter() - start


def gui_window_time(command: list[str], env: dict[str, str]) -> float:
    """Seconds from launch until a window titled "Memory Center" is mapped."""
    with tempfile.TemporaryFile() as log:
        start = time.perf_counter()
        proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=log)
        try:
            while time.perf_counter() - start < 120:
                if window_shown(env):
                    return time.perf_counter() - start
                if proc.poll() is not None:
                    log.seek(0)
                    tail = log.read().decode(errors="replace")[-2000:]
                    raise RuntimeError(f"the GUI exited with {proc.returncode}:\n{tail}")
                time.sleep(0.02)
            raise TimeoutError("no window after 120 s")
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def window_shown(env: dict[str, str]) -> bool:
    found = subprocess.run(
        ["xdotool", "search", "--onlyvisible", "--name", "^Memory Center$"],
        env=env,
        capture_output=True,
        check=False,
    )
    return found.returncode == 0 and bool(found.stdout.strip())


def report(name: str, measure: Callable[[], float], runs: int, cold: bool) -> None:
    first = None
    if cold:
        evict(APP)
        first = measure()
    warm = statistics.median(measure() for _ in range(runs))
    cold_text = f"cold {first:6.2f} s   " if first is not None else " " * 17
    print(f"{name:28s} {cold_text}warm median {warm:6.2f} s  ({runs} runs)")


def start_xvfb(env: dict[str, str]) -> subprocess.Popen[bytes] | None:
    if not (shutil.which("Xvfb") and shutil.which("xdotool")):
        print("GUI: skipped (Xvfb or xdotool missing)")
        return None
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        stdout=subprocess.PIPE,
    )
    assert xvfb.stdout is not None
    env["DISPLAY"] = ":" + xvfb.stdout.readline().decode().strip()
    env["QT_QPA_PLATFORM"] = "xcb"
    return xvfb


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if not EXE.is_file():
        sys.exit(f"no build at {APP}: run packaging/build.sh first")
    tarballs = sorted((ROOT / "dist").glob("memory-center-*.tar.gz"))
    print(f"folder  {APP.relative_to(ROOT)}: {folder_size(APP) / 2**20:.0f} MiB")
    for tar in tarballs:
        print(f"tarball {tar.relative_to(ROOT)}: {tar.stat().st_size / 2**20:.0f} MiB")
    store = Path(tempfile.mkdtemp(prefix="mc-build-bench-")) / "store"
    env = {**os.environ, "MEMORY_CENTER_DATA_DIR": str(store)}
    env.update(MEMORY_CENTER_PASSPHRASE=PASSPHRASE, OPENBLAS_NUM_THREADS="1")
    env.update(PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring", PYTHONPATH=str(ROOT))
    # A store with a memory in it: an empty one would get the demo data on the first GUI start.
    subprocess.run([str(EXE), "init"], env=env, check=True, capture_output=True)
    remember = ["remember", "--scope", "user=alice", "--text", "I prefer pnpm"]
    subprocess.run([str(EXE), *remember], env=env, check=True, capture_output=True)
    for verb in (["--version"], ["status"]):
        name = " ".join(verb)
        report(f"build  {name}", lambda v=verb: timed([str(EXE), *v], env), args.runs, True)
        report(f"source {name}", lambda v=verb: timed([*SOURCE, *v], env), args.runs, False)
    xvfb = start_xvfb(env)
    if xvfb is None:
        return
    try:
        runs = max(1, args.runs // 2)
        build_gui, source_gui = [str(EXE), "gui"], [*SOURCE, "gui"]
        report("build  gui (window shown)", lambda: gui_window_time(build_gui, env), runs, True)
        report("source gui (window shown)", lambda: gui_window_time(source_gui, env), runs, False)
    finally:
        xvfb.terminate()
        xvfb.wait(timeout=30)
        if xvfb.stdout is not None:
            xvfb.stdout.close()
        shutil.rmtree(store.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
