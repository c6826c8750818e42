"""What a large transcript import costs the other writers of the store (#42, #44).

Writes a Claude Code transcript of `--lines` lines (half of them user prompts that state a
fact, so extraction has thousands of proposals to decide), imports it with the CLI in one
process and, while it runs, remembers a short fact with the CLI in another every two
seconds. Prints the machine, each `remember`'s time and exit status, and the import's
time. Usage:

    .venv/bin/python benchmarks/import_contention_bench.py [--lines 6000] [--remembers 6]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

CLI = Path(sys.executable).with_name("memory-center")
FACTS = [
    "I prefer pnpm over npm for this repo.",
    "Our staging db is postgres 15 on port 5433.",
    "Please always run the linter before committing.",
    "我们的部署在周五下午不做。",
    "The API gateway is nginx 1.24.",
    "My timezone is Europe/Berlin.",
]


def transcript(path: Path, lines: int) -> None:
    """A linear Claude Code session: user prompts and assistant answers, alternating."""
    session, parent, out = str(uuid.uuid4()), None, []
    for i in range(lines):
        me = str(uuid.uuid4())
        ts = f"2026-06-05T0{i // 3600 % 10}:{i // 60 % 60:02d}:{i % 60:02d}.000Z"
        common = {"parentUuid": parent, "isSidechain": False, "uuid": me, "timestamp": ts}
        common |= {"sessionId": session, "version": "2.1.152", "cwd": "/home/dev/proj"}
        if i % 2 == 0:
            text = f"step {i}: {FACTS[i // 2 % len(FACTS)]} Also fix the test in module_{i}."
            out.append(common | {"type": "user", "message": {"role": "user", "content": text}})
        else:
            block = {"type": "text", "text": f"Done with step {i}. " + "x" * 400}
            message = {"role": "assistant", "content": [block]}
            out.append(common | {"type": "assistant", "message": message})
        parent = me
    path.write_text("".join(json.dumps(line) + "\n" for line in out), "utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=6000)
    parser.add_argument("--remembers", type=int, default=6)
    args = parser.parse_args()
    machine = platform.processor() or platform.machine()
    print(f"machine: {machine}, {os.cpu_count()} cores, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory(prefix="mc-import-") as tmp:
        env = os.environ | {
            "MEMORY_CENTER_DATA_DIR": str(Path(tmp) / "store"),
            "MEMORY_CENTER_PASSPHRASE": "import-contention-bench",
            "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        }
        source = Path(tmp) / f"{uuid.uuid4()}.jsonl"
        transcript(source, args.lines)
        subprocess.run([CLI, "init"], env=env, check=True, capture_output=True)
        start = time.perf_counter()
        importing = subprocess.Popen(
            [CLI, "import", "claude-code", str(source)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(4.0)  # the import is under way
        for n in range(args.remembers):
            began = time.perf_counter()
            text = f"note number {n} for the other project"
            scope = ["--scope", "user=dev", "--scope", "project=other"]
            done = subprocess.run(
                [CLI, "remember", *scope, "--text", text],
                env=env,
                capture_output=True,
                text=True,
            )
            took = time.perf_counter() - began
            why = done.stderr.strip().splitlines()[-1] if done.returncode else "ok"
            print(f"remember {n + 1} during the import: {took:.2f} s, {why}")
            time.sleep(2.0)
        importing.wait()
        print(f"import of {args.lines} lines: {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
