"""The Python SDK for agent runtimes: the lifecycle hooks of R16 around one `MemoryService`.

An agent runtime keeps one `MemoryRuntime` per conversation and calls, per turn:

    runtime.prefetch(goal)            # optional: warm retrieval off the hot path
    block, snapshot_id = runtime.inject(goal)   # before each model call (bounded time)
    runtime.sync_turn(events)         # after the turn: append what happened to the log
    runtime.on_pre_compress(ids)      # before the context is compacted: candidates only
    runtime.on_session_switch(old, new)

and gives the model `runtime.search_memory(query)` as a tool. The hot path (`inject`,
`search_memory`) never raises on a memory failure and never waits longer than its budget: it
degrades to "no memory" and says so (R17). Writes (`sync_turn`) are never reported
successful when they failed: they raise. Extraction runs in a background worker.

This module also holds the two rules every agent gateway shares (the MCP server uses them):
`narrow_scope` (a call may add scope keys, never change or drop configured ones) and
`trust_for` (which trust a caller may claim for an event, by role).
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

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
from core.errors import ScopeWidenedError
from core.model.memory import MemoryOutcome, SearchHit

T = TypeVar("T")
log = logging.getLogger(__name__)

ROLES = ("user", "assistant", "tool")
"""Roles an agent may record events for (system events are the store's own)."""

ROLE_ACTOR = {"user": Actor.USER, "assistant": Actor.ASSISTANT, "tool": Actor.TOOL}
DEFAULT_TRUST = {
    "user": TrustLevel.USER,
    "assistant": TrustLevel.ASSISTANT,
    "tool": TrustLevel.UNTRUSTED,
}
"""Trust an event gets when the caller names none: tool output is outside content (R2, R11)."""

TRUST_CEILING = {
    "user": TrustLevel.USER,
    "assistant": TrustLevel.ASSISTANT,
    "tool": TrustLevel.TOOL_VERIFIED,
}
"""The most a caller may claim per role: a tool's output can be tool-verified, never the user's."""


def narrow_scope(
    base: Scope, requested: Mapping[str, str] | None, *, field: str = "scope"
) -> Scope:
    """The configured scope, narrowed by `requested` (which may only add keys).

    Raises:
        ScopeRequiredError: nothing is configured (there is nothing to narrow).
        ScopeWidenedError: `requested` changes or drops a configured key.
        InvalidInputError: `requested` has an unknown key or a bad value.
    """
    base = Scope.required(dict(base.items_), field="configured scope")
    if not requested:
        return base
    asked = Scope.of(requested, field=field)
    for key, value in base.items_:
        if key not in asked:
            continue
        if asked[key] != value:
            raise ScopeWidenedError(
                field,
                f"{key}={asked[key]} would leave the configured scope {base}; "
                "a call may only add keys",
            )
    return Scope.of({**dict(asked.items_), **dict(base.items_)}, field=field)


def trust_for(
    role: str, trust: str | None, *, ceiling: Mapping[str, TrustLevel] = TRUST_CEILING
) -> tuple[Actor, TrustLevel]:
    """The actor and trust of an event an agent records, by role.

    The caller may lower trust, never raise it above the role's ceiling.

    Raises:
        InvalidInputError: an unknown role or trust, or a trust above the ceiling.
    """
    if role not in ROLES:
        raise InvalidInputError("role", f"unknown role {role!r}; allowed: {', '.join(ROLES)}")
    top = ceiling[role]
    if trust is None:
        default = DEFAULT_TRUST[role]
        return ROLE_ACTOR[role], default if default.authority <= top.authority else top
    try:
        level = TrustLevel(trust.strip().lower())
    except ValueError:
        allowed = ", ".join(t.value for t in TrustLevel)
        raise InvalidInputError("trust", f"unknown trust {trust!r}; allowed: {allowed}") from None
    if level.authority > top.authority:
        raise InvalidInputError(
            "trust", f"a {role} event may claim at most {top.value!r}, not {level.value!r}"
        )
    return ROLE_ACTOR[role], level


@dataclass(frozen=True)
class RuntimeConfig:
    """Limits of the hot path (R15, R17).

    Attributes:
        budget_tokens: injection budget per model call.
        hot_path_seconds: the most `inject` may take before it degrades to "no memory".
        search_seconds: the same for the model's `search_memory` tool.
        search_limit: hits returned by `search_memory`.
        prefetch_ttl_seconds: how long a prefetched look-up stays fresh.
        failure_cooldown_seconds: after a failed or slow read, skip memory this long.
    """

    budget_tokens: int = 800
    hot_path_seconds: float = 1.0
    search_seconds: float = 2.0
    search_limit: int = 5
    prefetch_ttl_seconds: float = 30.0
    failure_cooldown_seconds: float = 5.0


@dataclass
class TurnState:
    """What the runtime last did (for tests, logs and the agent's own diagnostics)."""

    last_snapshot_id: str | None = None
    degraded: int = 0
    last_error: str | None = None
    injections: int = 0
    prefetched: dict[str, tuple[float, list[SearchHit]]] = field(default_factory=dict)


class MemoryRuntime:
    """Lifecycle hooks of one agent conversation over a `MemoryService` (R16, R17, R30).

    Args:
        service: the open service (shared by every runtime of the process).
        scope: who and where this agent works; every read and write uses it.
        session: the current session (conversation) id.
        config: hot-path limits.
        agent: a name recorded as `by` on the events this runtime writes.
    """

    def __init__(
        self,
        service: MemoryService,
        scope: Mapping[str, str] | Scope,
        session: str,
        *,
        config: RuntimeConfig | None = None,
        agent: str = "sdk",
    ) -> None:
        self.service = service
        self.scope = Scope.required(dict(scope.items()))
        self.session = session
        self.config = config or RuntimeConfig()
        self.agent = agent
        self.state = TurnState()
        self._cool_until = 0.0
        self._lock = threading.Lock()
        self._hot = cf.ThreadPoolExecutor(max_workers=4, thread_name_prefix="mc-hot-path")
        self._pool = cf.ThreadPoolExecutor(max_workers=1, thread_name_prefix="mc-background")
        service.warm_up()  # the agent's first turn should not wait for the model (R17)

    def close(self) -> None:
        """Stop the workers (pending extractions finish first; a stalled read is abandoned)."""
        self._hot.shutdown(wait=False, cancel_futures=True)
        self._pool.shutdown(wait=True)

    def __enter__(self) -> MemoryRuntime:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # --- the hot path ----------------------------------------------------------------

    def prefetch(self, goal: str) -> cf.Future[list[SearchHit]]:
        """Start the look-up for the next turn's goal in the background (R17).

        It warms the retrieval catalog (the first read after another process wrote is the
        expensive one) and caches the hits, so `search_memory(goal)` is answered from memory.
        """
        future = self._hot.submit(self._search_now, goal, self.config.search_limit)
        future.add_done_callback(lambda f: self._remember_prefetch(goal, f))
        return future

    def inject(self, goal: str) -> tuple[str, str | None]:
        """The reference block for the next model call and its snapshot id.

        An opted-out session gets an empty block and a snapshot recording that nothing was
        injected. ("", None) means memory was unavailable (slow, failing, or cooling down
        after a failure); the turn goes on without it and `state.degraded` counts it.
        """
        if self._cooling():
            return self._degrade("memory cooling down after a failure", record=False)
        budget = self.config.budget_tokens
        try:
            result = self._bounded(
                lambda: self.service.inject(self.scope, goal, budget, session=self.session),
                self.config.hot_path_seconds,
            )
        except (cf.TimeoutError, MemoryCenterError) as exc:
            return self._degrade(_describe(exc), record=True)
        value = result.value
        with self._lock:
            self.state.injections += 1
            self.state.last_snapshot_id = value.snapshot_id
            if value.degraded:
                self.state.degraded += 1
        return value.text, value.snapshot_id

    def search_memory(self, query: str, *, limit: int | None = None) -> list[SearchHit]:
        """The model's deeper look-up: visible, active memories with provenance (R16).

        Empty when the session opted out or memory is unavailable (never raises for that).
        """
        count = limit or self.config.search_limit
        cached = self._prefetched(query)
        if cached is not None:
            return cached[:count]
        if self._cooling():
            return []
        try:
            return self._bounded(lambda: self._search_now(query, count), self.config.search_seconds)
        except (cf.TimeoutError, MemoryCenterError) as exc:
            self._degrade(_describe(exc), record=True)
            return []

    # --- the write path ----------------------------------------------------------------

    def sync_turn(self, events: Sequence[NewEvent | Mapping[str, Any]]) -> list[str]:
        """Append a turn's events to the log in one transaction; return their ids.

        Each item is a `NewEvent`, or a mapping with `role` (user, assistant, tool), `text`
        and optionally `trust`, `kind`, `source`, `data`, `refs` (see `trust_for` for the
        trust rule). Raises `MemoryCenterError` when nothing was written.
        """
        items = [self._event(e, i) for i, e in enumerate(events)]
        if not items:
            return []
        result = self.service.append_events(items)
        return [ev.id for ev in result.value]

    def on_pre_compress(
        self, items: Sequence[str] | Sequence[NewEvent | Mapping[str, Any]]
    ) -> cf.Future[list[MemoryOutcome]]:
        """The context is about to be compacted: propose candidates from what leaves it (R12).

        `items` are event ids already in this session's log, or events not yet recorded
        (they are appended first, synchronously). Extraction runs in the background; the
        future holds the outcomes (only candidates, never active memories).
        """
        if all(isinstance(x, str) for x in items):
            ids = [str(x) for x in items]
        else:
            ids = self.sync_turn([x for x in items if not isinstance(x, str)])
        session = self.session
        return self._pool.submit(lambda: self.service.pre_compress(session, ids).value)

    def on_session_switch(self, old: str | None, new: str) -> cf.Future[list[MemoryOutcome]]:
        """Move to session `new`; extract candidates from the finished session in the background."""
        self.session = new
        with self._lock:
            self.state.prefetched.clear()
            self._cool_until = 0.0
        if old is None or old == new:
            done: cf.Future[list[MemoryOutcome]] = cf.Future()
            done.set_result([])
            return done
        return self._pool.submit(self._extract_quietly, old)

    def opt_out(self, opted_out: bool = True) -> None:
        """Switch memory off (or on) for the current session: nothing injected or extracted."""
        self.service.set_session_opt_out(self.session, opted_out)

    def is_opted_out(self) -> bool:
        """True when the user switched memory off for the current session (R26)."""
        try:
            return self.service.get_session(self.session).opted_out
        except NotFoundError:
            return False

    # --- helpers ----------------------------------------------------------------------

    def _event(self, item: NewEvent | Mapping[str, Any], index: int) -> NewEvent:
        if isinstance(item, NewEvent):
            return item
        if not isinstance(item, Mapping):
            raise InvalidInputError(f"events[{index}]", "must be a NewEvent or a mapping")
        role = str(item.get("role", ""))
        trust = item.get("trust")
        actor, level = trust_for(role, None if trust is None else str(trust))
        default_kind = EventKind.TOOL_RESULT if role == "tool" else EventKind.MESSAGE
        return NewEvent(
            session=self.session,
            actor=actor,
            trust=level,
            scope=self.scope,
            text=item.get("text", ""),
            kind=item.get("kind", default_kind),
            source=item.get("source"),
            data=item.get("data"),
            refs=tuple(item.get("refs", ())),
            by=self.agent,
        )

    def _search_now(self, query: str, limit: int) -> list[SearchHit]:
        if self.is_opted_out():
            return []
        return self.service.search_memory(self.scope, query, limit=limit, session=self.session)

    def _remember_prefetch(self, goal: str, future: cf.Future[list[SearchHit]]) -> None:
        if future.cancelled() or future.exception() is not None:
            return
        with self._lock:
            self.state.prefetched[_key(goal)] = (time.monotonic(), future.result())

    def _prefetched(self, query: str) -> list[SearchHit] | None:
        with self._lock:
            entry = self.state.prefetched.pop(_key(query), None)
        if entry is None or time.monotonic() - entry[0] > self.config.prefetch_ttl_seconds:
            return None
        return entry[1]

    def _bounded(self, fn: Callable[[], T], seconds: float) -> T:
        future = self._hot.submit(fn)
        return future.result(timeout=seconds)

    def _cooling(self) -> bool:
        with self._lock:
            return time.monotonic() < self._cool_until

    def _degrade(self, why: str, *, record: bool) -> tuple[str, None]:
        with self._lock:
            self.state.degraded += 1
            self.state.last_error = why
            self._cool_until = time.monotonic() + self.config.failure_cooldown_seconds
        log.warning("memory unavailable for this turn: %s", why)
        if record:
            self._pool.submit(self._record_degraded, why)
        return "", None

    def _record_degraded(self, why: str) -> None:
        item = NewEvent(
            self.session,
            Actor.SYSTEM,
            TrustLevel.TOOL_VERIFIED,
            self.scope,
            "degraded_memory_unavailable",
            kind=EventKind.DEGRADED,
            data={"reason": why, "by": "sdk"},
            by=self.agent,
        )
        try:
            self.service.append_event(item)
        except MemoryCenterError as exc:  # the turn goes on; the log is best effort here
            log.warning("could not record degraded memory: %s", exc)

    def _extract_quietly(self, session: str) -> list[MemoryOutcome]:
        try:
            return self.service.extract(session).value
        except NotFoundError:
            return []


def _key(text: str) -> str:
    return " ".join(text.casefold().split())


def _describe(exc: BaseException) -> str:
    if isinstance(exc, cf.TimeoutError):
        return "memory read exceeded the hot-path budget"
    if isinstance(exc, MemoryCenterError):
        return f"{exc.kind}: {exc.message}"
    return type(exc).__name__


__all__ = [
    "DEFAULT_TRUST",
    "ROLES",
    "TRUST_CEILING",
    "MemoryRuntime",
    "RuntimeConfig",
    "ScopeWidenedError",
    "TurnState",
    "narrow_scope",
    "trust_for",
]
