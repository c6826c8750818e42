"""Fixtures for the governance tests: a canned OpenAI-compatible endpoint and event helpers."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from core import (
    Actor,
    Event,
    EventKind,
    EventSource,
    ManualClock,
    MemoryService,
    NewEvent,
    Scope,
    TrustLevel,
)
from tests.conftest import START

Reply = Callable[[dict[str, Any]], tuple[int, bytes]]


def completion(answer: object) -> bytes:
    """A chat-completion response whose message content is `answer` (JSON-encoded unless str)."""
    content = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
    body = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
    }
    return json.dumps(body).encode()


@dataclass
class FakeLLM:
    """A local HTTP server that answers /chat/completions with canned replies."""

    server: ThreadingHTTPServer
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    reply: Reply = lambda _body: (200, completion({"memories": []}))
    delay: float = 0.0
    release: threading.Event = field(default_factory=threading.Event)

    @property
    def base_url(self) -> str:
        port = self.server.server_address[1]
        return f"http://127.0.0.1:{port}/v1"

    def answer(self, memories: list[dict[str, Any]]) -> None:
        """Reply to every request with these memories."""
        self.reply = lambda _body: (200, completion({"memories": memories}))

    def raw(self, status: int, body: bytes) -> None:
        """Reply with this status and body."""
        self.reply = lambda _body: (status, body)

    @property
    def prompt(self) -> str:
        """The user message of the last request."""
        return str(self.requests[-1]["messages"][-1]["content"])


def _handler(fake: FakeLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            fake.requests.append(body)
            fake.headers.append(dict(self.headers.items()))
            fake.paths.append(self.path)
            if fake.delay:
                fake.release.wait(fake.delay)
            status, payload = fake.reply(body)
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, format: str, *args: object) -> None:
            return

    return Handler


@pytest.fixture
def fake_llm() -> Iterator[FakeLLM]:
    """A canned chat-completion endpoint on 127.0.0.1 (an ephemeral port)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    server.daemon_threads = True
    fake = FakeLLM(server)
    server.RequestHandlerClass = _handler(fake)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield fake
    fake.release.set()
    server.shutdown()
    server.server_close()
    thread.join(5)


SCOPE = {"user": "alice", "project": "web-shop"}


def add_event(
    svc: MemoryService,
    text: str,
    *,
    actor: str = "user",
    trust: str = "user",
    session: str = "s1",
    kind: str = "message",
    source: str | None = None,
    refs: tuple[str, ...] = (),
    scope: dict[str, str] | None = None,
) -> Event:
    """Append one event and return it."""
    item = NewEvent(
        session,
        actor,
        trust,
        scope or SCOPE,
        text,
        kind=kind,
        source=source,
        refs=refs,
    )
    return svc.events.append_event(item).value


def make_event(
    ident: str,
    text: str,
    *,
    actor: str = "user",
    trust: str = "user",
    kind: str = "message",
    source: str | None = None,
    position: int = 1,
    redacted: bool = False,
) -> Event:
    """An Event value without a store (for extractor unit tests)."""
    return Event(
        id=ident,
        position=position,
        session_id="s1",
        seq=position,
        ts=START,
        kind=EventKind(kind),
        actor=Actor(actor),
        trust=TrustLevel(trust),
        source=EventSource(source) if source else None,
        scope=Scope.of(SCOPE),
        text=text,
        data={},
        refs=(),
        by=None,
        prev_hash="0" * 64,
        hash="1" * 64,
        redacted=redacted,
    )


@pytest.fixture
def service(memory_keyring: type, data_dir: Path, clock: ManualClock) -> Iterator[MemoryService]:
    """Like the root `service`, but keyed through the in-process keyring.

    The governance tests open many stores; the passphrase KDF (~0.3 s per open) would
    dominate their run time and is not what they test.
    """
    svc = MemoryService.open(data_dir, clock=clock, prefer_keyring=True)
    yield svc
    svc.close()
