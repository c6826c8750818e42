"""Run one hook call in this process, and record hook calls the daemon could not answer."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from app.compose import offline_writer, open_service
from app.hooks import claude_code
from core import (
    MemoryCenterError,
    MemoryService,
    OfflineWriter,
    ServerUnavailableError,
)
from core.model.commands import Command, Origin

log = logging.getLogger(__name__)
Note = Callable[[str | None, str | None], None]
HANDLERS = {"claude-code": claude_code.handle}


def handle(
    service: MemoryService, agent: str, raw: bytes | str, *, transcript_bytes: int | None = None
) -> str:
    """Dispatch one hook payload to its agent's adapter (never raises). `transcript_bytes`:
    how far the transcript reached when a queued call fired (read no further)."""
    handler = HANDLERS.get(agent)
    if handler is None:
        return ""
    return handler(service, raw, transcript_bytes=transcript_bytes)


class _Away:
    """Any namespace or call of a store whose server is away: calling fails as that."""

    def __init__(self, reason: str) -> None:
        self._reason = reason

    def __call__(self, *_args: Any, **_kwargs: Any) -> Any:
        raise ServerUnavailableError(self._reason)

    def __getattr__(self, name: str) -> Any:
        return _Away(self._reason)


class _SpoolOnlyCommands(_Away):
    """`service.commands` of `_SpoolOnly`: spoolable commands are kept in this machine's
    spool (stamped as the pipeline would), the rest is away."""

    def __init__(self, writer: OfflineWriter, reason: str) -> None:
        super().__init__(reason)
        self._writer = writer

    def run(self, command: Command[Any], origin: Origin) -> Any:
        from core.model.origin import stamp
        from core.services.commands import HANDLERS as OPERATIONS

        if not type(command).spoolable:
            raise ServerUnavailableError(self._reason)
        stamped = stamp(command, origin)
        namespace, operation = OPERATIONS[type(stamped)]
        arguments = {
            k: list(v) if isinstance(v, tuple) else v for k, v in stamped.arguments().items()
        }
        raise self._writer.spool(f"{namespace}.{operation}", **arguments)


class _SpoolOnly(_Away):
    """A server store that cannot be opened now, as the hook adapters see it (R23): their
    event writes go to this machine's spool; anything that reads fails as the server being
    away, which the adapter records (in the spool too) as a degraded call."""

    def __init__(self, writer: OfflineWriter, reason: str) -> None:
        super().__init__(reason)
        self.commands = _SpoolOnlyCommands(writer, reason)


def run_once(data_dir: Path, agent: str, raw: bytes, note: Note | None = None) -> str:
    """Open the store, handle one call, close. Nothing printed when the store cannot open;
    on a server store that cannot be reached, the call's events are spooled.

    `note(kind, message)` hears why the store could not be opened, `note(None, None)` that
    it opened: the thin client leaves the daemon's note for Settings and `hook status`."""
    try:
        # One call and done: the model loads only if the call needs it (an injection).
        service = open_service(data_dir, create=True, prompt=None, warm_model=False)
    except ServerUnavailableError as away:
        try:
            writer = offline_writer(data_dir, away.message)
        except MemoryCenterError as exc:
            log.warning("memory store unavailable for a hook: %s", exc.message)
            return ""
        return handle(cast(MemoryService, _SpoolOnly(writer, away.message)), agent, raw)
    except MemoryCenterError as exc:
        log.warning("memory store unavailable for a hook: %s", exc.message)
        if note is not None:
            note(exc.kind, exc.message)
        return ""
    if note is not None:
        note(None, None)
    try:
        return handle(service, agent, raw)
    finally:
        service.close()


def record_missed(service: MemoryService, missed: Path) -> int:
    """Record the notes of hook calls that got no memory (daemon not up in time)."""
    try:
        text = missed.read_text(encoding="utf-8")
        missed.unlink()
    except OSError:
        return 0
    count = 0
    for line in text.splitlines():
        try:
            note = json.loads(line)
        except ValueError:
            continue
        if not isinstance(note, dict):
            continue
        payload = {
            "hook_event_name": note.get("hook_event_name"),
            "session_id": note.get("session_id") or "hook-errors",
            "cwd": note.get("cwd"),
        }
        try:
            call = claude_code.parse_payload(payload)
        except MemoryCenterError:
            call = None
        reason = str(note.get("reason") or "no answer in time")
        claude_code.record_failure(service, call, TimeoutError(reason))
        count += 1
    return count
