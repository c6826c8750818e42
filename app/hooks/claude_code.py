"""Claude Code hook events, handled over one `MemoryService` (R12, R15-R18, R2).

Claude Code runs a hook command per lifecycle event with a JSON object on stdin
(`session_id`, `transcript_path`, `cwd`, `hook_event_name`, and per event `source`,
`prompt`, `tool_name`/`tool_input`/`tool_response`/`tool_use_id`, `trigger`, `reason`).
For `SessionStart` and `UserPromptSubmit`, what the hook prints as
`{"hookSpecificOutput": {"hookEventName": ..., "additionalContext": ...}}` reaches the model.

- SessionStart: records the session and returns a short block of standing memories, then
  "last time in this project" (the last sessions' requests, files, commands and how they
  ended, from the event log; labelled as history), within the session budget.
- UserPromptSubmit: returns the memories relevant to the prompt (budgeted, snapshot kept).
- PostToolUse: records the call and its result; a command's output is `tool_verified`,
  fetched web content and file contents are `untrusted` (R2, R11).
- PreCompact: records the transcript, then extracts candidates from what arrived since
  the last extraction (R12; candidates only).
- Stop / SessionEnd: records what is new in the transcript (byte cursor in the store);
  SessionEnd (and Stop with `extract_each_turn`) also extracts from what arrived since the
  last extraction, through the ordinary policy.

`handle` never raises: any failure records a degraded event (when the store is reachable)
and returns no output, so the agent's turn goes on without memory.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.capture import claude_code as transcript
from app.capture import history as past_work
from app.capture.follow import Chunk, capture_file
from app.hooks.places import kept_apart
from app.hooks.workspace import Workspace, resolve
from app.importers import extraction
from app.importers.base import SourceEvent, clip
from core import (
    Actor,
    EventKind,
    InvalidInputError,
    MemoryCenterError,
    MemoryService,
    NewEvent,
    NotFoundError,
    Scope,
    TrustLevel,
)
from core.model import commands as c

HOOK = c.Origin("hook", "claude-code")


log = logging.getLogger(__name__)
AGENT = "claude-code"
SESSION_PREFIX = "claude-code:"
MAX_CONTEXT_CHARS = 9_500  # Claude Code cuts additionalContext beyond 10,000 characters
MAX_GOAL_CHARS = 4_000
CHARS_PER_TOKEN = 4  # a pasted log as a prompt still retrieves by its beginning
VERIFIED_TOOLS = {"Bash": "terminal", "BashOutput": "terminal"}
"""Tools whose result is an observation the agent made itself (a command's output)."""
OUTSIDE_TOOLS = {"WebFetch": "web_page", "WebSearch": "search_result"}
FILE_TOOLS = frozenset({"Read", "Grep", "Glob", "LS", "NotebookRead"})
EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "PreCompact", "Stop", "SessionEnd")


@dataclass(frozen=True)
class HookCall:
    """A validated hook payload."""

    event: str
    session: str
    cwd: str | None
    transcript: Path | None
    raw: Mapping[str, Any]
    until: int | None = None
    """How far the transcript reached when the hook fired (a queued call): read no further."""


def parse_payload(raw: object) -> HookCall:
    """Validate the hook's stdin object.

    Raises:
        InvalidInputError: not an object, an unknown event, or no session id (named).
    """
    if isinstance(raw, (str, bytes)):
        try:
            raw = json.loads(raw)
        except ValueError as exc:
            raise InvalidInputError("stdin", f"hook input is not valid JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise InvalidInputError("stdin", "hook input must be a JSON object")
    event = raw.get("hook_event_name")
    if event not in EVENTS:
        raise InvalidInputError("hook_event_name", f"unsupported hook event {event!r}")
    sid = raw.get("session_id")
    if not isinstance(sid, str) or not sid.strip():
        raise InvalidInputError("session_id", "missing or empty")
    cwd = raw.get("cwd") if isinstance(raw.get("cwd"), str) else None
    path = raw.get("transcript_path")
    return HookCall(
        event, SESSION_PREFIX + sid.strip(), cwd, Path(path) if isinstance(path, str) else None, raw
    )


def handle(service: MemoryService, raw: object, *, transcript_bytes: int | None = None) -> str:
    """Handle one hook call; return what to print on stdout ("" for nothing). Never raises."""
    call: HookCall | None = None
    try:
        call = dataclasses.replace(parse_payload(raw), until=transcript_bytes)
        return _dispatch(service, call, kept_apart(service, resolve(call.cwd), call.cwd))
    except Exception as exc:  # the agent never breaks because of memory
        record_failure(service, call, exc)
        return ""


def _dispatch(service: MemoryService, call: HookCall, ws: Workspace) -> str:
    if call.event == "SessionStart":
        return session_start(service, call, ws)
    if call.event == "UserPromptSubmit":
        return user_prompt(service, call, ws)
    if call.event == "PostToolUse":
        post_tool_use(service, call, ws)
    elif call.event == "PreCompact":
        sync_transcript(service, call, ws)
        record_compaction(service, call, ws)
        extract_since_mark(service, call.session, pre_compress=True)
    else:  # Stop, SessionEnd
        sync_transcript(service, call, ws)
        if call.event == "SessionEnd" or ws.extract_each_turn:
            extract_since_mark(service, call.session, pre_compress=False)
    return ""


def session_start(service: MemoryService, call: HookCall, ws: Workspace) -> str:
    """Record the session's start; the standing memories of its scope."""
    source = call.raw.get("source") if isinstance(call.raw.get("source"), str) else "startup"
    service.commands.run(
        c.AppendEvent(
            NewEvent(
                call.session,
                Actor.SYSTEM,
                TrustLevel.TOOL_VERIFIED,
                ws.scope,
                f"Claude Code session {source} in {ws.project}",
                kind=EventKind.MESSAGE,
                source="system",
                data={"hook": "SessionStart", "source": source, "agent": AGENT},
                by=AGENT,
            )
        ),
        HOOK,
    )
    goal = f"standing preferences, conventions and decisions for {ws.project}"
    return _inject(service, call, ws, goal, ws.session_budget_tokens, with_history=True)


def user_prompt(service: MemoryService, call: HookCall, ws: Workspace) -> str:
    """The memories relevant to the prompt, within the budget (a snapshot records them)."""
    prompt = call.raw.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        return ""
    return _inject(service, call, ws, prompt[:MAX_GOAL_CHARS], ws.budget_tokens)


def record_compaction(service: MemoryService, call: HookCall, ws: Workspace) -> None:
    """The log notes that the context was compacted here (R1), manual or automatic."""
    trigger = call.raw.get("trigger") if call.raw.get("trigger") in ("manual", "auto") else None
    service.commands.run(
        c.AppendEvent(
            NewEvent(
                call.session,
                Actor.SYSTEM,
                TrustLevel.TOOL_VERIFIED,
                ws.scope,
                f"Claude Code compacted the conversation ({trigger or 'unknown trigger'})",
                kind=EventKind.COMPACTION,
                source="system",
                data={"hook": "PreCompact", "trigger": trigger, "agent": AGENT},
                by=AGENT,
            )
        ),
        HOOK,
    )


def _inject(
    service: MemoryService,
    call: HookCall,
    ws: Workspace,
    goal: str,
    budget: int,
    *,
    with_history: bool = False,
) -> str:
    if ws.opt_out and not _opted_out(service, call.session):
        service.commands.run(c.SetSessionOptOut(call.session, True), HOOK)
    history = ""
    if with_history and not _opted_out(service, call.session):
        # At most half the budget (about four characters a token); memories get the rest.
        room = budget * CHARS_PER_TOKEN // 2
        history = past_work.last_time(service, ws.scope, call.session, ws.project, room)
    left = budget - (len(history) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN
    value = service.retrieval.inject(ws.scope, goal, max(left, 1), session=call.session).value
    text = "\n\n".join(part for part in (value.text.strip(), history) if part)
    out: dict[str, Any] = {}
    if ws.notice and call.event == "SessionStart":
        out["systemMessage"] = ws.notice  # to the user, once: the session starts here
    if text:
        out["hookSpecificOutput"] = {
            "hookEventName": call.event,
            "additionalContext": text[:MAX_CONTEXT_CHARS],
        }
    return json.dumps(out, ensure_ascii=False) if out else ""


def _opted_out(service: MemoryService, session: str) -> bool:
    try:
        return service.events.get_session(session).opted_out
    except NotFoundError:
        return False


def post_tool_use(service: MemoryService, call: HookCall, ws: Workspace) -> None:
    """Record a tool call and its result with the trust its origin deserves (R2, R11)."""
    name = call.raw.get("tool_name")
    if not isinstance(name, str) or not name:
        raise InvalidInputError("tool_name", "missing in a PostToolUse call")
    tool_id = call.raw.get("tool_use_id") if isinstance(call.raw.get("tool_use_id"), str) else None
    args = json.dumps(call.raw.get("tool_input", {}), ensure_ascii=False, sort_keys=True)
    call_text, call_cut = clip(f"{name}({args})")
    result_text, result_cut = clip(tool_output(call.raw.get("tool_response")))
    trust, source = tool_trust(name)
    base = {"tool": name, "tool_use_id": tool_id, "hook": "PostToolUse", "agent": AGENT}
    items = [
        NewEvent(
            call.session,
            Actor.ASSISTANT,
            TrustLevel.ASSISTANT,
            ws.scope,
            call_text,
            kind=EventKind.TOOL_CALL,
            data={**base, **call_cut},
            by=AGENT,
        )
    ]
    if result_text.strip():
        items.append(
            NewEvent(
                call.session,
                Actor.TOOL,
                trust,
                ws.scope,
                result_text,
                kind=EventKind.TOOL_RESULT,
                source=source,
                data={**base, **result_cut},
                by=AGENT,
            )
        )
    service.commands.run(c.AppendEvents(tuple(items)), HOOK)


def tool_trust(name: str) -> tuple[TrustLevel, str | None]:
    """Trust and source of a tool's live result: commands are verified, the rest is outside."""
    if name in VERIFIED_TOOLS:
        return TrustLevel.TOOL_VERIFIED, VERIFIED_TOOLS[name]
    if name in OUTSIDE_TOOLS:
        return TrustLevel.UNTRUSTED, OUTSIDE_TOOLS[name]
    if name in FILE_TOOLS:
        return TrustLevel.UNTRUSTED, "file"
    return TrustLevel.UNTRUSTED, None


def tool_output(response: object) -> str:
    """The text of a tool response (Bash: stdout and stderr; others: their text or JSON)."""
    if isinstance(response, str):
        return response
    if isinstance(response, dict):
        parts = [str(response[k]) for k in ("stdout", "stderr") if response.get(k)]
        if parts:
            return "\n".join(parts)
        for key in ("result", "output", "content", "text"):
            if isinstance(response.get(key), str):
                return str(response[key])
    if isinstance(response, list):
        texts = [b.get("text") for b in response if isinstance(b, dict)]
        if any(isinstance(t, str) for t in texts):
            return "\n".join(t for t in texts if isinstance(t, str))
    return "" if response is None else json.dumps(response, ensure_ascii=False, sort_keys=True)


def sync_transcript(service: MemoryService, call: HookCall, ws: Workspace) -> int:
    """Record what is new in the transcript since the last read; return the count."""
    if call.transcript is None or not call.transcript.is_file():
        return 0

    def scope_of(_chunk: Chunk) -> Scope:
        return ws.scope

    seen: dict[tuple[str, int], set[str]] = {}

    def seen_live(session: str, ev: SourceEvent, mark: int) -> bool:
        """True when a PostToolUse hook already recorded this tool call or result."""
        tool_id = ev.extra.get("tool_use_id")
        if not tool_id:
            return False
        if (session, mark) not in seen:
            seen[(session, mark)] = live_tool_ids(service, session, mark)
        return tool_id in seen[(session, mark)]

    report = capture_file(
        service,
        call.transcript,
        AGENT,
        transcript.parse_lines,
        scope_of,
        skip=seen_live,
        until=call.until,
    )
    return report.events


def live_tool_ids(service: MemoryService, session: str, after: int) -> set[str]:
    """Tool-use ids a hook recorded in `session` after event position `after`."""
    try:
        events = service.events.list_events(session=session, after_position=after, limit=10_000)
    except MemoryCenterError:
        return set()
    return {
        str(e.data["tool_use_id"])
        for e in events
        if e.data.get("hook") == "PostToolUse" and e.data.get("tool_use_id")
    }


def extract_since_mark(service: MemoryService, session: str, *, pre_compress: bool) -> int:
    """Candidates from the session's events since the last extraction (R12); return count."""
    # The session's extraction mark, shared with `import` and `watch` (they never extract
    # again what a hook extracted). Claimed before extracting: a hook is never repeated.
    cursor = extraction.mark_of(service, session)
    events = service.events.list_events(
        session=session, after_position=cursor.position, limit=10_000
    )
    ids = [e.id for e in events if e.actor != Actor.SYSTEM]
    if not events:
        return 0
    try:
        service.commands.run(
            c.AppendCaptured(tuple([]), cursor, events[-1].position, {"session_events": len(ids)}),
            HOOK,
        )
    except MemoryCenterError:
        return 0  # another hook is extracting these events right now
    if not ids:
        return 0
    result = (
        service.commands.run(c.PreCompress(session, ids), HOOK)
        if pre_compress
        else service.commands.run(c.Extract(session, ids), HOOK)
    )
    return len(result.value)


def record_failure(service: MemoryService, call: HookCall | None, exc: BaseException) -> None:
    """Record why a hook gave no memory (degraded event); never raises."""
    reason = (
        f"{exc.kind}: {exc.message}"
        if isinstance(exc, MemoryCenterError)
        else f"{type(exc).__name__}: {exc}"
    )
    try:
        scope = resolve(call.cwd).scope if call is not None else Scope.of({"agent": AGENT})
    except MemoryCenterError:
        scope = Scope.of({"agent": AGENT})
    data = {"reason": reason[:500], "by": AGENT, "hook": call.event if call else None}
    sessions = [call.session] if call is not None else []
    for session in [*sessions, SESSION_PREFIX + "hook-errors"]:
        item = NewEvent(
            session,
            Actor.SYSTEM,
            TrustLevel.TOOL_VERIFIED,
            scope,
            "degraded_memory_unavailable",
            kind=EventKind.DEGRADED,
            data=data,
            by=AGENT,
        )
        try:
            service.commands.run(c.AppendEvent(item), HOOK)
            return
        except InvalidInputError:
            continue  # a session id the store refuses: the shared hook-errors session then
        except Exception as err:  # the store itself may be what failed
            log.warning("could not record a hook failure: %s", err)
            return
