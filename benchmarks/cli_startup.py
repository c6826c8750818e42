"""Whole-process wall time of `memory-center` commands on a small store (#13).

Usage:
    python benchmarks/cli_startup.py [--runs 10] [--before DIR] [--daemon]

Each command runs as its own process (`python -c "from app.launch import main; main()" ...`,
what the `memory-center` command runs), as an agent hook or a script calling the CLI per turn
would run it; the median of `--runs` runs is printed. With `--daemon`, a third column runs the
same commands with the store's daemon started (`memory-center daemon start`), which answers
the per-turn commands for the process; `--help` is always answered in process. With
`--before DIR` (a checkout of an older commit, e.g. made with `git worktree add`), the same
commands run from that checkout too, interleaved run by run with this one so both see the
same machine load; each checkout gets its own small store (a few memories and
events). `python -c pass` is timed as the floor. The load average is printed at the start and
the end. The store key is protected by a passphrase here (no OS keyring on a headless
machine), so every command that opens the store runs its scrypt derivation (the
`key derivation` row); since the one-shot path (app/one_shot.py) it runs on a second core
while the engine is imported. Numbers are printed, not asserted; results go to
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = "from app.launch import main; main()"
PASSPHRASE = "benchmark passphrase for the CLI"
SCOPE = ["--scope", "user=bench"]
SEED = [
    "I prefer green tea over coffee in the morning",
    "The project uses PostgreSQL 16 for the team store",
    "我每周三下午去游泳",
    "Flights to Lisbon should be booked with aisle seats",
]


def commands(run: int) -> dict[str, list[str]]:
    """The measured commands; `run` makes the writing ones write something new each time."""
    return {
        "--help": ["--help"],
        "status": ["status"],
        "inject": ["inject", *SCOPE, "what does the user drink in the morning"],
        "remember": ["remember", *SCOPE, "--text", f"Benchmark note number {run} about tea"],
        "event add": [
            *("event", "add", "--session", "bench", "--actor", "user", "--trust", "user"),
            *(*SCOPE, "--text", f"turn {run}: what should I pack for Lisbon?"),
        ],
        "memory list": ["memory", "list"],
        "verify": ["verify"],
    }


def environment(data_dir: Path, daemon: bool) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        MEMORY_CENTER_DATA_DIR=str(data_dir),
        MEMORY_CENTER_PASSPHRASE=PASSPHRASE,
        MEMORY_CENTER_CLI_DAEMON="1" if daemon else "0",
        # A private runtime directory for the daemon's socket, apart from the user's.
        XDG_RUNTIME_DIR=str(data_dir.parent),
        OPENBLAS_NUM_THREADS="1",
        OMP_NUM_THREADS="1",
    )
    return env


def run_cli(checkout: Path, args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one whole process."""
    before = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CLI, *args], cwd=checkout, env=env, capture_output=True
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip().splitlines()
        raise SystemExit(f"{checkout}: {' '.join(args)} failed: {message[-1:]}")
    return elapsed, _children_cpu() - before


def _children_cpu() -> float:
    # CPU time barely depends on how busy the machine is; wall time does.
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def prepare(checkout: Path, data_dir: Path, daemon: bool) -> dict[str, str]:
    data_dir.parent.mkdir(mode=0o700)
    env = environment(data_dir, daemon)
    run_cli(checkout, ["init"], env)
    for text in SEED:
        run_cli(checkout, ["remember", *SCOPE, "--text", text], env)
    if daemon:
        run_cli(checkout, ["daemon", "start", "--idle", "3600"], env)
    return env


def key_derivation_seconds() -> float:
    """One scrypt derivation with the store's parameters, timed alone."""
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    from core.crypto.keys import SCRYPT_N, SCRYPT_P, SCRYPT_R

    kdf = Scrypt(salt=os.urandom(16), length=32, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P)
    start = time.perf_counter()
    kdf.derive(PASSPHRASE.encode())
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--before", type=Path, help="A checkout of the code to compare with.")
    parser.add_argument("--daemon", action="store_true", help="Also time with a daemon running.")
    args = parser.parse_args()
    checkouts = {"after": ROOT}
    if args.before:
        checkouts = {"before": args.before.resolve(), **checkouts}
    if args.daemon:
        checkouts["daemon"] = ROOT
    for path in set(checkouts.values()):
        compile_bytecode(path)
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="mccli") as tmp:
        envs = {
            name: prepare(path, Path(tmp) / name / "store", name == "daemon")
            for name, path in checkouts.items()
        }
        times: dict[tuple[str, str], list[tuple[float, float]]] = {}
        floor: list[float] = []
        for run in range(args.runs):
            floor.append(timed_pass())
            for command, argv in commands(run).items():
                for name, path in checkouts.items():
                    times.setdefault((name, command), []).append(run_cli(path, argv, envs[name]))
        if args.daemon:
            run_cli(ROOT, ["daemon", "stop"], envs["daemon"])
    report(checkouts, times, floor, args.runs)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def compile_bytecode(checkout: Path) -> None:
    """Write the checkout's bytecode first, as an installed application has it.

    Without it, a process started with PYTHONDONTWRITEBYTECODE set (or from a fresh
    checkout) compiles every module of the project from source: ~0.15 s per command here,
    which is what made a second checkout look 0.12 s slower than the main one in earlier
    runs. Import reads existing bytecode whatever that variable says.
    """
    for package in ("app", "core", "resources"):
        if (checkout / package).is_dir():
            compileall.compile_dir(str(checkout / package), quiet=1)


def timed_pass() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - start


def report(
    checkouts: dict[str, Path],
    times: dict[tuple[str, str], list[tuple[float, float]]],
    floor: list[float],
    runs: int,
) -> None:
    names = list(checkouts)
    print(f"\nmedian of {runs} whole processes, seconds: wall time, then CPU time (user+sys)")
    heads = [f"{n} wall" for n in names] + [f"{n} cpu" for n in names]
    print(f"{'command':<14}" + "".join(f"{h:>13}" for h in heads))
    for command in commands(0):
        walls = [statistics.median(w for w, _ in times[(n, command)]) for n in names]
        cpus = [statistics.median(c for _, c in times[(n, command)]) for n in names]
        print(f"{command:<14}" + "".join(f"{v:>13.3f}" for v in walls + cpus))
    print(f"{'python -c pass':<14}{statistics.median(floor):>10.3f}")
    print(f"{'key derivation':<14}{key_derivation_seconds():>10.3f}  (scrypt, in-process)")


if __name__ == "__main__":
    main()
