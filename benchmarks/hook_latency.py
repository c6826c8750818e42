"""Wall time of a Claude Code hook that injects, including process start, at 10k memories.

Runs the exact command `memory-center hook install` writes (`python -S .../client.py
claude-code --data-dir DIR`) as a fresh process per call, with a UserPromptSubmit payload
on stdin, the way Claude Code runs it. Measured: the first call (starts the daemon), warm
calls through the daemon, PostToolUse calls (the write path), and calls with the daemon
switched off (the in-process fallback). Then the cases a hook must survive without
stalling the agent (#42): the store locked by another writer, a Stop with a large
transcript, and a store whose passphrase is not in the hook's environment. Usage:

    .venv/bin/python benchmarks/hook_latency.py [--memories 10000] [--calls 100]
        [--embedder hashing] [--transcript-mb 200] [--stress-calls 5]
        [--program dist/memory-center/memory-center]

With `--program`, the command is the desktop build's, as the bundle's `hook install` writes
it: `<bundle>/memory-center-hook claude-code --data-dir DIR` (`<program> --data-dir DIR hook
claude-code` for a bundle without the hook program).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from inject_bench import THINGS, TOOLS, fill, pct, wait_for_vectors  # noqa: E402

from app.hooks.client import Paths  # noqa: E402
from core import MemoryService  # noqa: E402

PASSPHRASE = "benchmark passphrase"
CLIENT = ROOT / "app" / "hooks" / "client.py"


GIVE_UP = 120.0  # seconds: a hook still running then is reported as such
PROGRAM: list[Path] = []
"""With --program: the desktop build's executable, whose installed command is
`<program> --data-dir DIR hook claude-code`."""


def hook_argv(data_dir: Path) -> list[str]:
    """The command the installer writes: the checkout's thin client, or the bundle's hook
    program (its main program's `hook` verb in a bundle without one)."""
    if PROGRAM:
        hook = PROGRAM[0].with_name("memory-center-hook")
        if hook.is_file():
            return [str(hook), "claude-code", "--data-dir", str(data_dir)]
        return [str(PROGRAM[0]), "--data-dir", str(data_dir), "hook", "claude-code"]
    return [sys.executable, "-S", str(CLIENT), "claude-code", "--data-dir", str(data_dir)]


def call(data_dir: Path, payload: dict[str, object], env: dict[str, str]) -> tuple[float, str]:
    """One hook process: (wall seconds, stdout)."""
    t0 = time.perf_counter()
    try:
        done = subprocess.run(
            hook_argv(data_dir),
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            env=env,
            check=False,
            timeout=GIVE_UP,
        )
    except subprocess.TimeoutExpired:
        return time.perf_counter() - t0, ""
    return time.perf_counter() - t0, done.stdout


def prompt_payload(project: Path, rng: random.Random, i: int) -> dict[str, object]:
    """A UserPromptSubmit call about one of the benchmark's topics."""
    return {
        "session_id": f"bench-{i % 5}",
        "transcript_path": str(project / "none.jsonl"),
        "cwd": str(project),
        "hook_event_name": "UserPromptSubmit",
        "prompt": f"How does the {rng.choice(THINGS)} use {rng.choice(TOOLS)}?",
    }


def tool_payload(project: Path, i: int) -> dict[str, object]:
    """A PostToolUse call (Bash) for the write path."""
    return {
        "session_id": "bench-tools",
        "transcript_path": str(project / "none.jsonl"),
        "cwd": str(project),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": f"git log -1 --format=%h # {i}"},
        "tool_response": {"stdout": f"{i:07x}", "stderr": "", "interrupted": False},
        "tool_use_id": f"toolu_bench_{i}",
    }


def report(name: str, times: list[float], injected: int | None = None) -> None:
    """One result line."""
    extra = f"; {injected}/{len(times)} injected" if injected is not None else ""
    print(
        f"{name}: p50 {pct(times, 50):.0f} ms  p95 {pct(times, 95):.0f} ms  "
        f"p99 {pct(times, 99):.0f} ms  max {max(times) * 1000:.0f} ms  (n={len(times)}){extra}"
    )


def build_store(data_dir: Path, n: int, scopes: int) -> float:
    """Fill the store and build its vector index; seconds taken."""
    t0 = time.perf_counter()
    svc = MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False)
    fill(svc, n, scopes, random.Random(n))
    svc.index.catalog.sync()
    wait_for_vectors(svc, n)
    svc.close()
    return time.perf_counter() - t0


def measure(data_dir: Path, project: Path, env: dict[str, str], calls: int) -> None:
    """First call, warm calls, tool calls, in-process calls."""
    rng = random.Random(7)
    first, out = call(data_dir, prompt_payload(project, rng, 0), env)
    print(f"first call (starts the daemon): {first * 1000:.0f} ms, injected: {bool(out)}")
    for _ in range(100):  # until the daemon answers
        if call(data_dir, prompt_payload(project, rng, 0), env)[1]:
            break
    warm = [call(data_dir, prompt_payload(project, rng, i), env) for i in range(calls)]
    report("UserPromptSubmit via daemon", [t for t, _ in warm], sum(bool(o) for _, o in warm))
    tools = [call(data_dir, tool_payload(project, i), env)[0] for i in range(calls // 2)]
    report("PostToolUse via daemon", tools)
    alone = {**env, "MEMORY_CENTER_HOOK_DAEMON": "0"}
    cold = [call(data_dir, prompt_payload(project, rng, i), alone) for i in range(5)]
    report(
        "UserPromptSubmit in-process (no daemon)",
        [t for t, _ in cold],
        sum(bool(o) for _, o in cold),
    )
    report(
        "PostToolUse in-process (no daemon)",
        [call(data_dir, tool_payload(project, 1000 + i), alone)[0] for i in range(5)],
    )


def stress(data_dir: Path, project: Path, env: dict[str, str], calls: int, mb: int) -> None:
    """The store locked by another writer; a Stop with a large transcript; no passphrase."""
    rng = random.Random(11)
    lock = sqlite3.connect(data_dir / "memory-center.sqlite3", timeout=0, isolation_level=None)
    lock.execute("BEGIN EXCLUSIVE")
    try:
        tools = [call(data_dir, tool_payload(project, 5000 + i), env)[0] for i in range(calls)]
        prompts = [call(data_dir, prompt_payload(project, rng, i), env) for i in range(calls)]
    finally:
        lock.execute("COMMIT")
        lock.close()
    report("PostToolUse, store locked", tools)
    report(
        "UserPromptSubmit, store locked", [t for t, _ in prompts], sum(bool(o) for _, o in prompts)
    )
    big = project / "big.jsonl"
    line = json.dumps(
        {
            "type": "assistant",
            "uuid": "x",
            "sessionId": "bench-big",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "y" * 1000}]},
        }
    )
    with big.open("w", encoding="utf-8") as out:
        for i in range(mb * 1000):
            out.write(line.replace('"x"', f'"x{i}"') + "\n")
    stop = {**tool_payload(project, 0), "hook_event_name": "Stop", "session_id": "bench-big"}
    stop["transcript_path"] = str(big)
    report(f"Stop, {mb} MB transcript", [call(data_dir, stop, env)[0]])
    big.unlink()
    bare = {k: v for k, v in env.items() if k != "MEMORY_CENTER_PASSPHRASE"}
    locked = data_dir.parent / "store-without-passphrase"
    MemoryService.open(locked, passphrase=PASSPHRASE, prefer_keyring=False).close()
    report(
        "PostToolUse, no passphrase",
        [call(locked, tool_payload(project, i), bare)[0] for i in range(calls)],
    )
    no_key = [call(locked, prompt_payload(project, rng, i), bare) for i in range(calls)]
    report("UserPromptSubmit, no passphrase", [t for t, _ in no_key])
    stop_daemon(locked)


def stop_daemon(data_dir: Path) -> None:
    """SIGTERM the daemon (its pid is in its lock file)."""
    try:
        pid = int(Path(Paths(data_dir).lock).read_text().strip() or "0")
        if pid:
            os.kill(pid, signal.SIGTERM)
    except (OSError, ValueError):
        pass


def main() -> None:
    """Build a store, run the hook processes, print the numbers."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--scopes", type=int, default=20)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--embedder", default="hashing")
    parser.add_argument("--transcript-mb", type=int, default=200)
    parser.add_argument("--stress-calls", type=int, default=5)
    parser.add_argument(
        "--program", type=Path, help="the desktop build's memory-center (its hook command)"
    )
    args = parser.parse_args()
    if args.program is not None:
        PROGRAM.append(args.program.resolve())
    with tempfile.TemporaryDirectory(prefix="mchb") as tmp:
        base = Path(tmp)
        os.environ.update(
            {
                "MEMORY_CENTER_EMBEDDER": args.embedder,
                "XDG_RUNTIME_DIR": str(base),
                "MEMORY_CENTER_PASSPHRASE": PASSPHRASE,
                "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
                "MEMORY_CENTER_USER": "user0",
            }
        )
        data_dir = base / "store"
        project = base / "project0"
        (project / ".git").mkdir(parents=True)
        built = build_store(data_dir, args.memories, args.scopes)
        # The user confirms that the folder is project0, whose memories the store holds.
        subprocess.run(
            [sys.executable, "-c", "from app.cli import main; main()", "--data-dir",
             str(data_dir), "hook", "trust", "--folder", str(project)],
            check=True, capture_output=True, cwd=ROOT,
        )  # fmt: skip
        print(
            f"machine: {os.cpu_count()} cores; python {sys.version.split()[0]}; "
            f"{args.memories:,} memories over {args.scopes} project scopes "
            f"({args.memories // args.scopes} visible to the hook); embedder {args.embedder}; "
            f"store built in {built:.1f} s"
        )
        try:
            measure(data_dir, project, dict(os.environ), args.calls)
            stress(data_dir, project, dict(os.environ), args.stress_calls, args.transcript_mb)
        finally:
            stop_daemon(data_dir)


if __name__ == "__main__":
    main()
