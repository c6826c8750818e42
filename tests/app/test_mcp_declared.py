"""An agent over MCP says what its memory replaces or restates (#40), over real stdio: the
claim reaches the review queue with the other memory named; it never takes the user's fact
away on its own; a bad reference is refused naming the field."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.types import Implementation

from core import MemoryService
from tests.conftest import PASSPHRASE

REPO = Path(__file__).resolve().parents[2]
SCOPE = {"user": "mei"}


def _params(data_dir: Path) -> StdioServerParameters:
    env = {
        "PYTHONPATH": str(REPO),
        "MEMORY_CENTER_DATA_DIR": str(data_dir),
        "MEMORY_CENTER_PASSPHRASE": PASSPHRASE,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "OPENBLAS_NUM_THREADS": "1",
        "MEMORY_CENTER_EMBEDDER": "hashing",
    }
    code = "from app.mcp_server import main; main()"
    args = ["-c", code, "--scope", "user=mei", "--session", "planning"]
    return StdioServerParameters(command=sys.executable, args=args, env=env)


def test_an_agent_declares_what_its_memory_replaces(tmp_path: Path) -> None:
    data_dir = tmp_path / "store"
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        made = svc.memories.remember(SCOPE, "Swimming lessons are on Tuesdays at 5.").value
        same = svc.memories.remember(SCOPE, "Mei's swim coach is called Ana.").value
    assert made.record is not None and same.record is not None
    old, coach = made.record.id, same.record.id
    got: dict[str, Any] = {}

    async def go() -> None:
        info = Implementation(name="test-agent", version="9.9")
        async with Client(_params(data_dir), client_info=info, read_timeout_seconds=30) as c:
            got["context"] = await c.call_tool("get_context", {"goal": "swimming lessons"})
            got["replaces"] = await c.call_tool(
                "remember",
                {"content": "Lessons moved to Thursday evenings.", "replaces": [f"m:{old[-8:]}"]},
            )
            got["same"] = await c.call_tool(
                "remember", {"content": "The coach's name is Ana.", "same_as": coach}
            )
            got["bad"] = await c.call_tool(
                "remember",
                {
                    "content": "Lessons are cancelled.",
                    "replaces": ["mem_unknown"],
                    "evidence": "The pool's notice board says lessons are cancelled.",
                },
            )

    asyncio.run(go())
    assert f"m:{old[-8:]}" in got["context"].structured_content["block"]
    answer = got["replaces"].structured_content
    assert answer["status"] == "candidate" and answer["superseded"] == []
    assert any(r.startswith(f"possibly replaces {old}") for r in answer["reasons"])
    assert got["same"].structured_content["outcome"] == "merged"
    bad = "\n".join(getattr(c, "text", "") for c in got["bad"].content)
    assert got["bad"].is_error and "replaces" in bad and "mem_unknown" in bad
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        # Refused before its evidence was written: no trace but the audit event.
        texts = [e.text for e in svc.events.list_events(limit=1000)]
        assert not any("notice board" in t for t in texts)
        assert svc.memories.get_memory(old).status.value == "active"
        svc.review.answer_possible(answer["memory_id"], "replaces")
        assert svc.memories.get_memory(old).status.value == "superseded"
        assert svc.memories.history(coach)[-1].action == "merge"
