"""MCP `record_event` and `remember` take when it was said and who said it (#17), over real
stdio."""

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
    args = ["-c", code, "--scope", "user=mei", "--session", "history"]
    return StdioServerParameters(command=sys.executable, args=args, env=env)


def test_record_event_said_at_and_speaker(tmp_path: Path) -> None:
    """The event keeps both as data, the text stays clean, and a bad date is refused."""
    data_dir = tmp_path / "store"
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        svc.memories.remember({"user": "mei"}, "Our puppy sleeps on the sofa.", speaker="Mei")
    got: dict[str, Any] = {}

    async def go() -> None:
        info = Implementation(name="test-agent", version="9.9")
        async with Client(_params(data_dir), client_info=info, read_timeout_seconds=30) as c:
            got["ok"] = await c.call_tool(
                "record_event",
                {
                    "role": "user",
                    "text": "We adopted a puppy!",
                    "said_at": "2023-05-07T13:56:00+00:00",
                    "speaker": "Mei",
                },
            )
            got["remember"] = await c.call_tool(
                "remember", {"content": "Mei's puppy is called Biscuit.", "speaker": "Mei"}
            )
            got["search"] = await c.call_tool("search_memory", {"query": "puppy sofa"})
            got["bad"] = await c.call_tool(
                "record_event", {"role": "user", "text": "x", "said_at": "last tuesday"}
            )

    asyncio.run(go())
    assert not got["ok"].is_error
    bad = "\n".join(getattr(c, "text", "") for c in got["bad"].content)
    assert got["bad"].is_error and "invalid_input: event.said_at" in bad
    event_id = got["ok"].structured_content["event_id"]
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        events = [e for e in svc.events.list_events(session="history") if e.kind.value == "message"]
    (event,) = events
    assert event.id == event_id
    assert event.text == "We adopted a puppy!"
    assert event.data["speaker"] == "Mei"
    assert event.data["said_at"] == "2023-05-07T13:56:00+00:00"
    memory_id = got["remember"].structured_content["memory_id"]
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        suggested = svc.memories.get_memory(memory_id)
    assert suggested.speaker == "Mei" and suggested.content == "Mei's puppy is called Biscuit."
    (hit,) = got["search"].structured_content["memories"]
    assert hit["speaker"] == "Mei" and hit["content"] == "Our puppy sleeps on the sofa."
