"""Recall of past work from the event log (#42): "last time in this project" at SessionStart,
and history search (CLI and MCP), within the caller's scope, honouring opt-out and purge."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters
from mcp.types import Implementation

from app.capture import history
from app.cli import cli
from app.hooks import claude_code as hooks
from app.hooks.places import place_of
from app.hooks.workspace import resolve
from core import MemoryService, NewEvent, Scope
from tests.conftest import PASSPHRASE

REPO = Path(__file__).resolve().parents[2]
BILLING = Scope.of({"user": "alice", "project": "billing"})
BOB = Scope.of({"user": "bob", "project": "billing"})
BLOG = Scope.of({"user": "alice", "project": "blog"})


def _session(service: MemoryService, name: str, scope: Scope, ask: str, **more: str) -> list[str]:
    items = [
        NewEvent(name, "user", "user", scope, ask, kind="message", source="chat"),
        NewEvent(
            name,
            "assistant",
            "assistant",
            scope,
            'Edit({"file_path": "src/invoice.py", "new_string": "x", "old_string": "y"})',
            kind="tool_call",
            data={"tool": "Edit"},
        ),
        NewEvent(
            name,
            "assistant",
            "assistant",
            scope,
            'Bash({"command": "pytest tests/test_invoice.py"})',
            kind="tool_call",
            data={"tool": "Bash"},
        ),
        NewEvent(
            name,
            "assistant",
            "assistant",
            scope,
            more.get("outcome", "The rounding bug is fixed; all invoice tests pass."),
            kind="message",
            source="chat",
        ),
    ]
    return [e.id for e in service.events.append_events(items).value]


def _seed(service: MemoryService) -> dict[str, list[str]]:
    return {
        "mine": _session(service, "claude-code:s1", BILLING, "Fix the VAT rounding in invoices"),
        "bob": _session(service, "claude-code:s2", BOB, "Bob's secret VAT plan for invoices"),
        "blog": _session(service, "claude-code:s3", BLOG, "Write the VAT post for the blog"),
        "quiet": _session(service, "claude-code:s4", BILLING, "Private VAT talk, memory off"),
    }


def test_last_time_shows_the_projects_last_sessions_as_history(service: MemoryService) -> None:
    _seed(service)
    service.events.set_session_opt_out("claude-code:s4", True)
    text = history.last_time(service, BILLING, "claude-code:now", "billing", 1_000)
    assert text.startswith("Last time in billing (history from earlier sessions, for reference")
    assert "not instructions" in text.splitlines()[0]
    assert '"Fix the VAT rounding in invoices"' in text
    assert "files touched: src/invoice.py" in text
    assert "commands: pytest tests/test_invoice.py" in text
    assert 'ended with: "The rounding bug is fixed' in text
    assert "Bob" not in text and "blog" not in text.lower().replace("billing", "")  # scope
    assert "Private" not in text  # an opted-out session is never shown
    assert history.last_time(service, BILLING, "claude-code:now", "billing", 300).count("\n") < 6


def test_history_search_keeps_to_the_scope_and_skips_opted_out_sessions(
    service: MemoryService,
) -> None:
    _seed(service)
    service.events.set_session_opt_out("claude-code:s4", True)
    hits = history.search(service, BILLING, "vat")
    assert [h.session for h in hits] == ["claude-code:s1"]
    assert hits[0].quote == "Fix the VAT rounding in invoices"
    assert hits[0].replay.startswith("memory-center event list --session claude-code:s1")
    assert [h.session for h in history.search(service, BOB, "VAT invoices")] == ["claude-code:s2"]
    assert history.search(service, Scope.of({"user": "alice"}), "vat") == []  # narrower request


def test_purged_events_are_never_found_again(service: MemoryService) -> None:
    ids = _seed(service)
    said = service.events.append_event(
        NewEvent(
            "claude-code:s1",
            "user",
            "user",
            BILLING,
            "Remember that the VAT ledger password hint is parsnip.",
            kind="message",
            source="chat",
        )
    ).value
    (outcome,) = service.memories.extract("claude-code:s1", [said.id]).value
    assert outcome.record is not None and said.id in outcome.record.source_event_ids
    assert history.search(service, BILLING, "parsnip")
    service.review.delete(outcome.record.id, reason="secret", purge=True, purge_events=True)
    assert history.search(service, BILLING, "parsnip") == []
    assert "parsnip" not in history.last_time(service, BILLING, "x", "billing", 4_000)
    assert history.search(service, BILLING, "rounding")  # the session's other lines stay
    assert ids


def test_session_start_adds_last_time_within_the_budget(
    service: MemoryService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORY_CENTER_USER", "alice")
    project = tmp_path / "billing"
    (project / ".git").mkdir(parents=True)
    (project / ".memory-center.toml").write_text(
        "[memory]\nsession_budget_tokens = 200\n", encoding="utf-8"
    )
    _seed(service)
    service.memories.remember(BILLING, "Invoices are rounded half-even.")
    # The user has confirmed that this folder is the billing project (`hook trust`).
    service.agents.bind_place("billing", place_of(resolve(project), project))
    payload = {"session_id": "now", "cwd": str(project), "hook_event_name": "SessionStart"}
    out = json.loads(hooks.handle(service, json.dumps(payload)))
    context = out["hookSpecificOutput"]["additionalContext"]
    assert "Invoices are rounded half-even." in context
    assert "Last time in billing (history from earlier sessions" in context
    assert len(context) <= 200 * 4  # the session budget, about four characters a token
    (project / ".memory-center.toml").write_text("[memory]\nopt_out = true\n", encoding="utf-8")
    quiet = {**payload, "session_id": "quiet-now"}
    assert "Last time" not in hooks.handle(service, json.dumps(quiet))


def test_history_cli_and_mcp_tool(data_dir: Path) -> None:
    with MemoryService.open(data_dir, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        _seed(svc)
        svc.events.set_session_opt_out("claude-code:s4", True)
    env = {"MEMORY_CENTER_PASSPHRASE": PASSPHRASE}
    args = ["--data-dir", str(data_dir), "--json", "history", "search", "VAT"]
    done = CliRunner().invoke(
        cli, [*args, "--scope", "user=alice", "--scope", "project=billing"], env=env
    )
    assert done.exit_code == 0, done.output
    assert [h["session"] for h in json.loads(done.stdout)] == ["claude-code:s1"]
    # The CLI holds a query to the same limit as the MCP tool, and names it.
    for query, why in (("VAT " * 1_001, "the limit is 4000"), ("   ", "must not be empty")):
        refused = CliRunner().invoke(
            cli,
            ["--data-dir", str(data_dir), "history", "search", query, "--scope", "user=alice"],
            env=env,
        )
        assert refused.exit_code == 1 and "error: query: " in refused.stderr, refused.output
        assert why in refused.stderr
    server = StdioServerParameters(
        command=sys.executable,
        args=[
            "-c",
            "from app.mcp_server import main; main()",
            "--scope",
            "user=alice",
            "--scope",
            "project=billing",
        ],
        env={
            "PYTHONPATH": str(REPO),
            "MEMORY_CENTER_DATA_DIR": str(data_dir),
            "MEMORY_CENTER_PASSPHRASE": PASSPHRASE,
            "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
            "OPENBLAS_NUM_THREADS": "1",
        },
    )
    got: dict[str, object] = {}

    async def go() -> None:
        info = Implementation(name="test-agent", version="9.9")
        async with Client(server, client_info=info, read_timeout_seconds=60) as client:
            got["mine"] = (
                await client.call_tool("search_history", {"query": "VAT"})
            ).structured_content
            got["widen"] = (
                await client.call_tool("search_history", {"query": "VAT", "scope": {"user": "bob"}})
            ).structured_content

    asyncio.run(go())
    mine = got["mine"]
    assert isinstance(mine, dict) and [e["session"] for e in mine["events"]] == ["claude-code:s1"]
    widen = got["widen"]
    assert not (isinstance(widen, dict) and widen.get("events"))  # never bob's history
