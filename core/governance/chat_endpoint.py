"""One OpenAI-compatible chat-completion endpoint the user configured (a local llama.cpp or
Ollama server, or a hosted one), for the optional model-backed parts of governance: the LLM
extractor and the model judge. Nothing uses it unless the user configures it.

Only the standard library (``urllib.request``): a timeout on connecting and a deadline on
reading the whole answer, a bound on its size, and every network, HTTP and JSON failure
raised as `ResourceUnavailableError` naming the endpoint; no half-read answer is returned.
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from core.errors import InvalidInputError, ResourceUnavailableError
from core.patterns import lazy

MAX_RESPONSE_BYTES = 2_000_000
CONTROL = lazy(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class ChatEndpoint:
    """POSTs chat-completion requests to `<base_url>/chat/completions`.

    Args:
        base_url: e.g. ``http://127.0.0.1:11434/v1``.
        model: the model name sent with each request.
        api_key: sent as the bearer token when given.
        timeout: seconds for connecting and for reading the whole answer.
        who: how errors name the caller ("LLM extractor", "model judge").
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        who: str = "model endpoint",
    ) -> None:
        self.endpoint = endpoint_url(base_url)
        if not isinstance(model, str) or not model.strip():
            raise InvalidInputError("model", "must be a non-empty model name")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            raise InvalidInputError("timeout", "must be a number of seconds")
        if not 0 < timeout <= 600:
            raise InvalidInputError("timeout", "must be between 0 and 600 seconds")
        self.model = model.strip()
        self.timeout = float(timeout)
        self.who = who
        self._api_key = api_key

    def complete(self, body: dict[str, Any]) -> str:
        """POST one request body; return the first choice's message content."""
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        request = urllib.request.Request(self.endpoint, data=data, headers=headers, method="POST")
        return self._message_content(self._send(request))

    def garbage(self, what: str) -> ResourceUnavailableError:
        """The error for an answer that cannot be used."""
        return ResourceUnavailableError(f"{self.who}: unusable answer from {self.endpoint}: {what}")

    def _send(self, request: urllib.request.Request) -> bytes:
        where = self.endpoint
        deadline = time.monotonic() + self.timeout
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return self._read_bounded(response, deadline)
        except urllib.error.HTTPError as exc:
            detail = _error_detail(exc)
            raise ResourceUnavailableError(
                f"{self.who}: {where} answered HTTP {exc.code} {exc.reason}{detail}"
            ) from exc
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise self._timeout() from exc
            raise ResourceUnavailableError(
                f"{self.who}: cannot reach {where}: {exc.reason}"
            ) from exc
        except TimeoutError as exc:
            raise self._timeout() from exc
        except (OSError, http.client.HTTPException) as exc:
            raise ResourceUnavailableError(
                f"{self.who}: connection to {where} failed: {exc!r}"
            ) from exc

    def _read_bounded(self, response: Any, deadline: float) -> bytes:
        chunks: list[bytes] = []
        total = 0
        while True:
            if time.monotonic() > deadline:
                raise self._timeout()
            chunk = response.read(65_536)
            if not chunk:
                return b"".join(chunks)
            total += len(chunk)
            if total > MAX_RESPONSE_BYTES:
                raise ResourceUnavailableError(
                    f"{self.who}: answer from {self.endpoint} is larger than "
                    f"{MAX_RESPONSE_BYTES} bytes"
                )
            chunks.append(chunk)

    def _timeout(self) -> ResourceUnavailableError:
        return ResourceUnavailableError(
            f"{self.who}: {self.endpoint} timed out after {self.timeout:g} s"
        )

    def _message_content(self, raw: bytes) -> str:
        """The first choice's message content of a chat-completion response."""
        try:
            reply = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            raise self.garbage(f"the response is not JSON ({exc})") from exc
        if not isinstance(reply, dict):
            raise self.garbage("the response is not a JSON object")
        choices = reply.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise self.garbage("no choices in the response")
        message = choices[0].get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            raise self.garbage("the first choice has no text content")
        return content


def endpoint_url(base_url: str) -> str:
    """`<base_url>/chat/completions`, after checking the base URL."""
    if not isinstance(base_url, str):
        raise InvalidInputError("base_url", "must be an http(s) URL")
    parts = urllib.parse.urlsplit(base_url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidInputError("base_url", "must be an http:// or https:// URL with a host")
    if parts.query or parts.fragment:
        raise InvalidInputError("base_url", "must not carry a query or fragment")
    root = urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))
    return root + "/chat/completions"


def _error_detail(exc: urllib.error.HTTPError) -> str:
    try:
        body = exc.read(300).decode("utf-8", "replace").strip()
    except (OSError, http.client.HTTPException):
        return ""
    return f": {CONTROL.sub(' ', body)[:200]}" if body else ""
