"""The MCP server's stdio transport: every request line gets an answer (#38).

The MCP library's stdio transport hands a line it cannot parse to the session as an
exception, and the session drops it: a request holding a lone surrogate (in a tool argument
or in `initialize`'s clientInfo), invalid UTF-8, or JSON that is not a JSON-RPC message got
no answer at all, and the client waited for ever. Here each line is checked before the
library sees it; a line that would be dropped is answered with a JSON-RPC error (parse error,
id null, for a line that is not JSON; invalid request, with the request's id when it has
one, for the rest) and the server reads on. A request whose id is neither a string nor an
integer (1.5, true, null, an object) is one such line: the library reads it as a
notification and never answers, so it is refused here with id null (MCP: "the ID MUST NOT
be null"; JSON-RPC: null when the id cannot be read).

The standard descriptors are moved aside while serving, as the library does: fd 0 reads
the null device and fd 1 writes to stderr, so stray output of a handler never lands in the
protocol stream.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any, BinaryIO

import anyio
import anyio.to_thread

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
# A line longer than this is refused whole (the library would buffer it without bound).
MAX_LINE_BYTES = 16 * 1024 * 1024


def check_line(line: str) -> dict[str, Any] | None:
    """None when the library can take `line`; else the JSON-RPC error answer to send.

    `line` was decoded with `surrogateescape`, so undecodable bytes show up as lone
    surrogates and are refused with the rest of invalid Unicode.
    """
    import mcp_types

    try:
        doc = json.loads(line)
    except ValueError:
        return _error(None, PARSE_ERROR, "Parse error: the line is not a JSON value")
    except RecursionError:
        return _error(None, INVALID_REQUEST, "Invalid request: the message is nested too deeply")
    ident = _request_id(doc)
    # A text id with a lone surrogate is named below, with the other surrogates.
    if isinstance(doc, dict) and "method" in doc and ident is None and not _text_id(doc):
        return _error(
            None,
            INVALID_REQUEST,
            f"Invalid request: the id must be a string or an integer, not {_json_kind(doc['id'])}",
        )
    where = _lone_surrogate(doc)
    if where is not None:
        return _error(
            ident,
            INVALID_REQUEST,
            f"Invalid request: {where} is not valid Unicode (a lone surrogate or undecodable "
            "bytes); send UTF-8 text",
        )
    try:
        mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception as exc:  # any refusal of the library is answered here
        first = str(exc).splitlines()[:3]
        why = "Invalid request: not a JSON-RPC 2.0 message: " + "; ".join(first)
        return _error(ident, INVALID_REQUEST, why)
    return None


def _error(ident: object, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message[:500]}}


def _request_id(doc: object) -> str | int | None:
    if not isinstance(doc, dict):
        return None
    ident = doc.get("id")
    if isinstance(ident, bool) or not isinstance(ident, str | int):
        return None
    if isinstance(ident, str) and _surrogate_in(ident):
        return None
    return ident


def _text_id(doc: dict[str, Any]) -> bool:
    """True when `doc` has no id (a notification) or a text one."""
    return "id" not in doc or isinstance(doc["id"], str)


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, float):
        return f"the number {value!r}"
    return "an object" if isinstance(value, dict) else "a list"


def _surrogate_in(text: str) -> bool:
    return any("\ud800" <= ch <= "\udfff" for ch in text)


def _lone_surrogate(doc: object) -> str | None:
    """Where the first lone surrogate of a decoded JSON value is (`params.arguments.text`),
    or None. Iterative: a deeply nested value cannot exhaust the stack."""
    stack: list[tuple[object, str]] = [(doc, "")]
    while stack:
        value, at = stack.pop()
        if isinstance(value, str) and _surrogate_in(value):
            return at or "the message"
        if isinstance(value, dict):
            for key, item in value.items():
                if _surrogate_in(key):
                    return f"a key of {at or 'the message'}"
                stack.append((item, f"{at}.{key}" if at else key))
        elif isinstance(value, list):
            stack.extend((item, f"{at}[{i}]") for i, item in enumerate(value))
    return None


class _Wire:
    """The protocol's output: whole lines, one writer at a time (the library's answers and
    this transport's error answers share it)."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()

    def _put(self, text: str) -> None:
        data = text.encode("utf-8", "replace")
        with self._lock:
            self._stream.write(data)
            self._stream.flush()

    async def write(self, text: str) -> None:
        """Write `text` (the library writes one message and its newline per call)."""
        await anyio.to_thread.run_sync(self._put, text)

    async def flush(self) -> None:
        """Each write is flushed already."""

    async def answer(self, message: dict[str, Any]) -> None:
        """Send one error answer of this transport."""
        await self.write(json.dumps(message, ensure_ascii=True) + "\n")


class _CheckedLines:
    """The protocol's input as the library reads it (an async iterator of lines), with the
    lines it would drop answered here instead."""

    def __init__(self, stream: BinaryIO, wire: _Wire) -> None:
        self._stream = stream
        self._wire = wire

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    def _readline(self) -> bytes:
        return self._stream.readline(MAX_LINE_BYTES + 1)

    async def _lines(self) -> AsyncIterator[str]:
        while True:
            raw = await anyio.to_thread.run_sync(self._readline, abandon_on_cancel=True)
            if not raw:
                return
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                while raw and not raw.endswith(b"\n"):  # skip the rest of the line
                    raw = await anyio.to_thread.run_sync(self._readline, abandon_on_cancel=True)
                why = f"Invalid request: longer than {MAX_LINE_BYTES} bytes"
                await self._wire.answer(_error(None, INVALID_REQUEST, why))
                continue
            line = raw.decode("utf-8", "surrogateescape")
            if not line.strip(" \t\r\n"):  # JSON whitespace only: no message
                continue
            problem = check_line(line)
            if problem is None:
                yield line
            else:
                await self._wire.answer(problem)


@contextlib.contextmanager
def _claimed_stdio() -> Iterator[tuple[BinaryIO, BinaryIO]]:
    """The protocol's own duplicates of fd 0 and 1; fd 0 then reads the null device and
    fd 1 writes to stderr until the server stops."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    saved_in, saved_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
    finally:
        os.close(null)
    try:
        with os.fdopen(wire_in, "rb") as source, os.fdopen(wire_out, "wb") as sink:
            yield source, sink
    finally:
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)


async def _serve(server: Any, source: BinaryIO, sink: BinaryIO) -> None:
    from mcp.server.stdio import stdio_server

    wire = _Wire(sink)
    lowlevel = server._lowlevel_server  # what the library's own run_stdio_async runs
    lines: Any = _CheckedLines(source, wire)
    async with stdio_server(stdin=lines, stdout=wire) as (read_stream, write_stream):  # type: ignore[arg-type]
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


def run_stdio(server: Any, source: BinaryIO | None = None, sink: BinaryIO | None = None) -> None:
    """Serve `server` (an `MCPServer`) over stdio, or over `source`/`sink` when given."""
    if source is not None and sink is not None:
        anyio.run(_serve, server, source, sink)
        return
    with _claimed_stdio() as (wire_in, wire_out):
        anyio.run(_serve, server, wire_in, wire_out)
