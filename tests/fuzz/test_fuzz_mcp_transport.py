"""Fuzz: the MCP server's stdio transport answers every line (#38).

The MCP library drops a line it cannot parse, so a request holding a lone surrogate (in a
tool argument or in `initialize`'s clientInfo), undecodable bytes or JSON that is not a
JSON-RPC message got no answer and the client waited for ever. One real server process
gets hostile lines; after each, a `ping` with a fresh id marks the end, and exactly one
answer must come before the ping's: a JSON-RPC error with the line's id (or null).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import MemoryService
from tests.conftest import PASSPHRASE
from tests.fuzz.conftest import examples, tallied
from tests.fuzz.strategies import SURROGATES, encode, hostile_text, json_values

REPO = Path(__file__).resolve().parents[2]
ANSWER_WAIT_S = 120  # a bound on a wait for an answer, not a measure of speed


class Server:
    """One MCP server process, spoken to in raw lines."""

    def __init__(self, store: Path) -> None:
        env = {
            **os.environ,
            "PYTHONPATH": str(REPO),
            "MEMORY_CENTER_DATA_DIR": str(store),
            "MEMORY_CENTER_PASSPHRASE": PASSPHRASE,
            "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
            "MEMORY_CENTER_EMBEDDER": "hashing",
            "OPENBLAS_NUM_THREADS": "1",
        }
        code = "from app.mcp_server import main; main()"
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code, "--scope", "user=alice"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            bufsize=0,  # unbuffered: select() sees every answer not yet read
        )
        self.next_id = 1000
        self._pending = b""

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line if line.endswith(b"\n") else line + b"\n")
        self.proc.stdin.flush()

    def answer(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        while b"\n" not in self._pending:
            ready, _, _ = select.select([self.proc.stdout], [], [], ANSWER_WAIT_S)
            assert ready, "the server gave no answer"
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            assert chunk, "the server stopped"
            self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        answer = json.loads(line)
        assert isinstance(answer, dict)
        return answer

    def answers_to(self, line: bytes, ident: object = None) -> list[dict[str, Any]]:
        """The answers to `line`. A ping with a fresh id follows it: the transport answers a
        refused line before it reads the ping; a request it passes on may be answered after
        the ping, so the wait goes on until the answer with `ident` (when given) came too."""
        self.next_id += 1
        mark = self.next_id
        self.send(line)
        self.send(json.dumps({"jsonrpc": "2.0", "id": mark, "method": "ping"}).encode())
        got: list[dict[str, Any]] = []
        pinged = False
        while not pinged or (ident is not None and all(a.get("id") != ident for a in got)):
            answer = self.answer()
            if answer.get("id") == mark:
                pinged = True
            else:
                got.append(answer)
        return got

    def close(self) -> str:
        _, err = self.proc.communicate(timeout=ANSWER_WAIT_S)
        return err.decode("utf-8", "replace")


def _initialize(client_info: Any, rid: int = 1) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client_info},
    }


def _raw(message: dict[str, Any], ascii_only: bool) -> bytes:
    return encode(message, ascii_only)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    store = tmp_path_factory.mktemp("mcp-transport") / "store"
    with MemoryService.open(store, passphrase=PASSPHRASE, prefer_keyring=False) as svc:
        svc.memories.remember({"user": "alice"}, "I prefer tea")
    srv = Server(store)
    # A lone surrogate in initialize's clientInfo, escaped and raw: answered, not dropped.
    for ascii_only in (True, False):
        hostile = _raw(_initialize({"name": "agent\ud800", "version": "1"}, 1), ascii_only)
        (answer,) = srv.answers_to(hostile, 1)
        assert answer["id"] == 1 and answer["error"]["code"] == -32600, answer
        assert "clientInfo.name" in answer["error"]["message"]
    (ok,) = srv.answers_to(_raw(_initialize({"name": "fuzz", "version": "1"}, 2), True), 2)
    assert "result" in ok, ok
    srv.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
    yield srv
    err = srv.close()
    assert "Traceback" not in err, err[-3000:]


def test_a_lone_surrogate_in_a_tool_argument_is_answered(server: Server) -> None:
    for n, surrogate in enumerate(SURROGATES):
        call = {
            "jsonrpc": "2.0",
            "id": f"call-{n}",
            "method": "tools/call",
            "params": {"name": "search_memory", "arguments": {"query": f"tea{surrogate}"}},
        }
        for ascii_only in (True, False):
            (answer,) = server.answers_to(_raw(call, ascii_only), f"call-{n}")
            assert answer["id"] == f"call-{n}", answer
            assert "params.arguments.query" in answer["error"]["message"]
    (good,) = server.answers_to(
        ident="good",
        line=json.dumps(
            {
                "jsonrpc": "2.0",
                "id": "good",
                "method": "tools/call",
                "params": {"name": "search_memory", "arguments": {"query": "tea"}},
            }
        ).encode(),
    )
    assert not good["result"].get("isError"), good


def test_lines_that_are_not_json_rpc_are_answered(server: Server) -> None:
    cases = [
        b"not json",
        b"{",
        b"[1, 2",
        b"\xff\xfe\x00",
        b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": "x"}',
        b'{"jsonrpc": "1.0", "id": 8, "method": "ping"}',
        b"[" * 100_000 + b"]" * 100_000,
        b"null",
        b'"\\ud800"',
    ]
    for line in cases:
        (answer,) = server.answers_to(line)
        assert "error" in answer, (line[:40], answer)
    assert server.answers_to(b"   ") == []  # a blank line is no message


def test_a_request_whose_id_is_not_a_string_or_an_integer_is_answered(server: Server) -> None:
    # The library read these as notifications and never answered: the client waited for ever.
    for ident in ("1.5", "1.0", "1e3", '{"a": 1}', "[1]", "true", "null"):
        line = '{"jsonrpc": "2.0", "id": %s, "method": "tools/call", "params": {"name": "x"}}'
        (answer,) = server.answers_to((line % ident).encode())
        assert answer["id"] is None and answer["error"]["code"] == -32600, (ident, answer)
        assert "the id must be a string or an integer" in answer["error"]["message"]
    (still,) = server.answers_to(b'{"jsonrpc": "2.0", "id": 9, "method": "ping"}', 9)
    assert still == {"jsonrpc": "2.0", "id": 9, "result": {}}, still


def test_an_unknown_prompt_is_invalid_params_without_a_traceback(server: Server) -> None:
    # The library answered with error code 0 and logged a traceback (the fixture checks
    # stderr for one when the server closes).
    for name in ("nope", "", "get_context"):
        line = {"jsonrpc": "2.0", "id": 31, "method": "prompts/get", "params": {"name": name}}
        (answer,) = server.answers_to(json.dumps(line).encode(), 31)
        assert answer["error"] == {"code": -32602, "message": f"Unknown prompt: {name}"}
    listed = {"jsonrpc": "2.0", "id": 32, "method": "prompts/list"}
    (answer,) = server.answers_to(json.dumps(listed).encode(), 32)
    assert answer["result"]["prompts"] == []


def _requests() -> st.SearchStrategy[bytes]:
    ids = st.one_of(
        st.integers(1, 10_000),
        st.text("abc", min_size=1, max_size=4),
        st.floats(allow_nan=False, allow_infinity=False),
        st.booleans(),
        st.none(),
    )
    arguments = st.dictionaries(
        st.sampled_from(["query", "goal", "content", "text", "role", "scope"]),
        json_values,
        max_size=3,
    )
    call = st.builds(
        lambda i, tool, args: {
            "jsonrpc": "2.0",
            "id": i,
            "method": "tools/call",
            "params": {"name": tool, "arguments": args},
        },
        ids,
        st.sampled_from(["search_memory", "get_context", "remember", "record_event", "nope"]),
        arguments,
    )
    init = st.builds(
        lambda i, name: _initialize({"name": name, "version": "1"}, i), ids, hostile_text
    )
    messages = st.builds(_raw, st.one_of(call, init), st.booleans())
    garbage = st.binary(min_size=1, max_size=80).map(lambda b: b.replace(b"\n", b" "))
    return st.one_of(messages, garbage.filter(lambda b: b.strip(b" \t\r\n") != b""))


def _expected_id(line: bytes) -> object:
    """The id an answer to `line` carries: the request's, when it is an integer or text
    that is valid Unicode; null for a line that is not a JSON object with such an id."""
    try:
        sent = json.loads(line.decode("utf-8", "surrogateescape"))
    except (ValueError, RecursionError):
        return None
    ident = sent.get("id") if isinstance(sent, dict) else None
    if isinstance(ident, bool) or not isinstance(ident, int | str):
        return None
    if isinstance(ident, str) and any("\ud800" <= c <= "\udfff" for c in ident):
        return None
    return ident


def test_fuzz_every_line_gets_one_answer(server: Server) -> None:
    @examples(150)
    @given(line=_requests())
    @tallied("mcp-transport")
    def run(line: bytes) -> None:
        line = line.replace(b"\n", b" ")
        ident = _expected_id(line)
        answers = server.answers_to(line, ident)
        assert len(answers) == 1, (line[:200], answers)
        assert answers[0]["id"] == ident, (line[:200], answers)

    run()
