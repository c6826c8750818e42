"""A complete agent loop on the Memory Center SDK, runnable offline.

    python examples/agent_loop.py            # a throwaway store in a temporary directory
    MEMORY_CENTER_DATA_DIR=~/mc python examples/agent_loop.py   # or your own store

A stand-in `model()` plays the language model, so the example needs no network. Per turn the
runtime injects memory before the model call, the turn is synced to the event log, the old
part of the context is handed to `on_pre_compress` before it is "compacted", and the
conversation moves to a new session halfway through.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core import MemoryService
from core.sdk import MemoryRuntime, RuntimeConfig

SCOPE = {"user": "alice", "project": "webshop"}
CONTEXT_LIMIT = 6  # events kept "in context" before the stand-in compacts


def model(memory_block: str, user_text: str) -> str:
    """A stand-in language model: it answers from the memory block when something matches."""
    notes = [line for line in memory_block.splitlines() if line.startswith("- [")]
    if notes:
        first = notes[0].split("] ", 1)[-1]
        return f"(model) Going by my notes ({first!r}), here is my answer to: {user_text}"
    return f"(model) I have no notes on that; answering from scratch: {user_text}"


def open_store() -> MemoryService:
    """The store named by $MEMORY_CENTER_DATA_DIR, else a temporary one."""
    data_dir = os.environ.get("MEMORY_CENTER_DATA_DIR")
    where = Path(data_dir) if data_dir else Path(tempfile.mkdtemp()) / "store"
    passphrase = os.environ.get("MEMORY_CENTER_PASSPHRASE", "example passphrase, not secret")
    return MemoryService.open(where, passphrase=passphrase, prefer_keyring=False)


def turn(runtime: MemoryRuntime, user_text: str, context: list[str]) -> None:
    """One turn: inject, call the model, record what happened."""
    block, snapshot_id = runtime.inject(user_text)
    reply = model(block, user_text)
    ids = runtime.sync_turn(
        [
            {"role": "user", "text": user_text},
            {"role": "assistant", "text": reply},
        ]
    )
    context.extend(ids)
    print(f"[{runtime.session}] user: {user_text}")
    print(f"[{runtime.session}] snapshot {snapshot_id}, {len(block)} chars of memory injected")
    print(f"[{runtime.session}] {reply}")


def compact_if_needed(runtime: MemoryRuntime, context: list[str]) -> None:
    """Before the context is compacted, let memory look at what is about to leave it."""
    if len(context) <= CONTEXT_LIMIT:
        return
    leaving, context[:] = context[:-2], context[-2:]
    outcomes = runtime.on_pre_compress(leaving).result(timeout=30)
    for out in outcomes:
        content = out.record.content if out.record else "-"
        print(f"pre-compress suggestion: {out.outcome}: {content}")


def main() -> int:
    """Run the scripted conversation; print what the runtime did."""
    service = open_store()
    service.memories.remember(SCOPE, "Remember: the webshop deploys with blue-green releases")
    runtime = MemoryRuntime(
        service,
        SCOPE,
        "demo-session-1",
        config=RuntimeConfig(budget_tokens=400),
        agent="example-agent",
    )
    context: list[str] = []
    try:
        script = [
            "How do we deploy the webshop?",
            "We always run the linter before pushing.",
            "I prefer short answers with code first.",
            "Which database does staging use?",
        ]
        for text in script:
            runtime.prefetch(text)
            turn(runtime, text, context)
            compact_if_needed(runtime, context)
        extracted = runtime.on_session_switch("demo-session-1", "demo-session-2").result(30)
        print(f"session switch: {len(extracted)} suggestions from demo-session-1")
        turn(runtime, "Remind me how the webshop deploys?", context)
        pending = [m for m in service.memories.list_memories() if m.status.value == "candidate"]
        print(f"review queue: {len(pending)} suggestions wait for the user")
        for record in pending:  # what the user does in the memory center
            service.review.approve(record.id)
        hits = runtime.search_memory("linter before pushing")
        print(f"search_memory after review: {[h.content for h in hits]}")
        runtime.opt_out()
        block, _ = runtime.inject("How do we deploy the webshop?")
        print(f"after opt-out: {len(block)} chars injected")
        print(f"degraded turns: {runtime.state.degraded}")
    finally:
        runtime.close()
        service.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
