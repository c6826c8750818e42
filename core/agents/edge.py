"""The agent edge (R11, R16, R17, R30): the rules every agent gateway shares, in one place.

An agent reaches memory through an adapter: `MemoryRuntime` (core/sdk.py) for Python
runtimes, the MCP gateway (app/mcp/) for MCP clients. Both are thin; what they must agree on
lives here:

- scope narrowing: a call may add scope keys, never change or drop configured ones;
- trust mapping: which actor and trust an event gets by role, with a ceiling per role, and
  content from outside sources (web pages, search results, e-mail, issues) always untrusted;
- visibility: an agent acts only on memories its scope can see, and an id it cannot see is
  reported as unknown (never revealing other scopes' ids);
- audit: every tool call is written to the log as an `agent_call` event, best effort;
- the hot-path guard: a read that fails or exceeds its time budget degrades to "no memory",
  and memory is skipped for a cool-down afterwards (beside the retrieval circuit breaker in
  core/retrieval/guard.py, which protects the store; this protects the agent's turn).
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from core.errors import InvalidInputError, MemoryCenterError, NotFoundError, ScopeWidenedError
from core.model import commands as c
from core.model.commands import Origin
from core.model.enums import Actor, EventKind, TrustLevel
from core.model.jsonsafe import has_lone_surrogate
from core.model.memory import SearchHit, Tombstone
from core.model.origin import EXTERNAL_SOURCES
from core.model.records import MemoryRecord, NewEvent
from core.model.scope import SCOPE_KEYS, Scope
from core.service import MemoryService

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


AUDIT_TEXT_LIMIT = 200
"""Characters of a text argument an audit event keeps (a purge finds copies up to here)."""


# Whose memory it is: a call may never add these to the configured scope.
OWNER_KEYS = ("user", "org")


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
    for key in OWNER_KEYS:
        if key in asked and key not in base:
            # By the containment rule, adding a key shows more memories, not fewer: adding
            # `user` to a server configured without one showed that user's own memories.
            raise ScopeWidenedError(
                field,
                f"{key}={asked[key]} is not in the configured scope {base}; a call may add "
                "only " + ", ".join(k for k in SCOPE_KEYS if k not in OWNER_KEYS),
            )
    for key, value in base.items_:
        if key in asked and asked[key] != value:
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


def source_trust(
    role: str,
    trust: str | None,
    source: str | None,
    *,
    ceiling: Mapping[str, TrustLevel] = TRUST_CEILING,
) -> tuple[Actor, TrustLevel]:
    """`trust_for`, and content from an outside source is untrusted whatever is claimed.

    Raises:
        InvalidInputError: as `trust_for`, or a higher trust claimed for outside content.
    """
    actor, level = trust_for(role, trust, ceiling=ceiling)
    if isinstance(source, str) and source.strip().lower() in EXTERNAL_SOURCES:
        if trust is not None and level != TrustLevel.UNTRUSTED:
            raise InvalidInputError("trust", f"content from a {source} is always 'untrusted'")
        level = TrustLevel.UNTRUSTED
    return actor, level


class AgentEdge:
    """One agent's door into memory: its scope, session, trust ceiling and audit trail.

    Args:
        service: the open service, or a function that opens it on first use (so a locked
            store is reported on the call, not when the agent starts).
        scope: the configured (widest) scope of every call.
        session: the session this agent's events go to (may change: `session` is public).
        agent: written as `by` on the events this edge writes.
        ceiling: the most each role may claim (a server may cap `user` at `assistant`).
        entry: the entry point its commands come in by (sdk, mcp).
    """

    def __init__(
        self,
        service: MemoryService | Callable[[], MemoryService],
        scope: Scope,
        session: str,
        *,
        agent: str = "agent",
        ceiling: Mapping[str, TrustLevel] = TRUST_CEILING,
        entry: str = "sdk",
    ) -> None:
        self._service = service
        self.base_scope = scope
        self.session = session
        self.agent = agent
        self.ceiling = dict(ceiling)
        self.entry = entry

    @property
    def origin(self) -> Origin:
        """Where this edge's commands come from (stamped by `service.commands`, #39)."""
        return Origin(self.entry, self.agent)

    @property
    def service(self) -> MemoryService:
        """The service (opened on first use when a function was given)."""
        svc = self._service
        return svc if isinstance(svc, MemoryService) else svc()

    # --- the rules ---------------------------------------------------------------------

    def scope(self, requested: Mapping[str, str] | None = None) -> Scope:
        """The scope of one call: the configured one, narrowed by `requested`."""
        return narrow_scope(self.base_scope, requested)

    def trust(
        self, role: str, trust: str | None, source: str | None = None
    ) -> tuple[Actor, TrustLevel]:
        """The actor and trust of an event this agent records (see `source_trust`)."""
        return source_trust(role, trust, source, ceiling=self.ceiling)

    def event(
        self,
        role: str,
        text: Any,
        *,
        trust: str | None = None,
        source: str | None = None,
        scope: Scope | None = None,
        kind: Any = None,
        data: Any = None,
        refs: tuple[str, ...] = (),
        by: str | None = None,
        said_at: Any = None,
        speaker: Any = None,
    ) -> NewEvent:
        """An event of this agent's session, with the trust the rules allow; `said_at` and
        `speaker` (for history recorded later) stay out of the text."""
        actor, level = self.trust(role, trust, source)
        default_kind = EventKind.TOOL_RESULT if role == "tool" else EventKind.MESSAGE
        return NewEvent(
            session=self.session,
            actor=actor,
            trust=level,
            scope=scope if scope is not None else self.scope(),
            text=text,
            kind=kind if kind is not None else default_kind,
            source=source,
            data=data,
            refs=refs,
            by=by or self.agent,
            said_at=said_at,
            speaker=speaker,
        )

    def opted_out(self) -> bool:
        """True when the user switched memory off for this session (R26)."""
        try:
            return self.service.events.get_session(self.session).opted_out
        except NotFoundError:
            return False

    def visible(self, memory_id: str, requested: Mapping[str, str] | None = None) -> MemoryRecord:
        """A memory this agent's scope can see.

        Raises:
            NotFoundError: no such memory, or one outside the scope (the same answer, so
                other scopes' ids are never revealed).
        """
        record = self.service.memories.get_memory(memory_id)
        if not record.scope.visible_to(self.scope(requested)):
            raise NotFoundError("memory", memory_id)
        return record

    # --- operations every agent has ------------------------------------------------------

    def search(
        self, query: str, limit: int, requested: Mapping[str, str] | None = None
    ) -> list[SearchHit] | None:
        """Visible active memories for `query`; None when the session opted out."""
        req = self.scope(requested)
        if self.opted_out():
            return None
        return self.service.retrieval.search_memory(req, query, limit=limit, session=self.session)

    def forget(self, memory_id: str, reason: str, *, by: str | None = None) -> Tombstone:
        """Delete a visible memory through the tombstone path (R19)."""
        record = self.visible(memory_id)
        return self.service.commands.run(
            c.Delete(record.id, reason=reason, requested_by=by or self.agent), self.origin
        ).value

    def audit(
        self,
        tool: str,
        args: Mapping[str, Any],
        *,
        client: Mapping[str, str],
        error: str | None = None,
        by: str | None = None,
    ) -> None:
        """Write the `agent_call` event of one call (best effort: never fails the call)."""
        item = self.audit_event(tool, args, client=client, error=error, by=by)
        if item is not None:
            self._best_effort(item, f"the {tool} call")

    def audit_event(
        self,
        tool: str,
        args: Mapping[str, Any],
        *,
        client: Mapping[str, str],
        error: str | None = None,
        by: str | None = None,
    ) -> NewEvent | None:
        """The `agent_call` event of one call (`audit` writes it; an injection can take it
        as `record_with`); None when the edge has no scope to file it under."""
        if not self.base_scope:
            return None
        data: dict[str, Any] = {
            "tool": tool,
            "client": dict(client),
            "session": self.session,
            "ok": error is None,
            "args": {k: clipped(v) for k, v in args.items() if v is not None},
        }
        if error is not None:
            data["error"] = error
        return NewEvent(
            self.session,
            Actor.ASSISTANT,
            TrustLevel.ASSISTANT,
            self.base_scope,
            f"mcp tool call: {tool}",
            kind=EventKind.AGENT_CALL,
            data=data,
            by=by or self.agent,
        )

    def record_degraded(self, why: str, *, by: str = "sdk") -> None:
        """Record that memory was unavailable for a turn (R17; best effort)."""
        item = NewEvent(
            self.session,
            Actor.SYSTEM,
            TrustLevel.TOOL_VERIFIED,
            self.base_scope,
            "degraded_memory_unavailable",
            kind=EventKind.DEGRADED,
            data={"reason": why, "by": by},
            by=self.agent,
        )
        self._best_effort(item, "degraded memory")

    def _best_effort(self, item: NewEvent, what: str) -> None:
        try:
            self.service.commands.run(c.AppendEvent(item), self.origin)
        except MemoryCenterError as exc:  # the turn goes on; the log is best effort here
            log.warning("could not record %s: %s", what, exc.message)


class HotPathGuard:
    """Bounded reads for an agent's turn: a time limit per read, and a cool-down after a
    failure during which memory is skipped at once (R17)."""

    def __init__(self, cooldown_seconds: float, *, workers: int = 4) -> None:
        self.cooldown_seconds = cooldown_seconds
        self._cool_until = 0.0
        self._lock = threading.Lock()
        self._pool = cf.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="mc-hot-path")

    def submit(self, fn: Callable[[], T]) -> cf.Future[T]:
        """Start a read in the background (a prefetch)."""
        return self._pool.submit(fn)

    def run(self, fn: Callable[[], T], seconds: float) -> T:
        """Run a read, waiting at most `seconds`.

        Raises:
            concurrent.futures.TimeoutError: the read took longer (it is abandoned).
        """
        return self._pool.submit(fn).result(timeout=seconds)

    def cooling(self) -> bool:
        """True while memory is skipped after a failure."""
        with self._lock:
            return time.monotonic() < self._cool_until

    def trip(self) -> None:
        """A read failed or was slow: skip memory for the cool-down."""
        with self._lock:
            self._cool_until = time.monotonic() + self.cooldown_seconds

    def reset(self) -> None:
        """End the cool-down (a new session starts afresh)."""
        with self._lock:
            self._cool_until = 0.0

    def close(self) -> None:
        """Stop the workers; a stalled read is abandoned."""
        self._pool.shutdown(wait=False, cancel_futures=True)


def describe(exc: BaseException) -> str:
    """Why memory was unavailable, in one line."""
    if isinstance(exc, cf.TimeoutError):
        return "memory read exceeded the hot-path budget"
    if isinstance(exc, MemoryCenterError):
        return f"{exc.kind}: {exc.message}"
    return type(exc).__name__


def clipped(value: Any) -> Any:
    """An argument as the audit keeps it: clipped, valid text, one level of a mapping."""
    if isinstance(value, str):
        if has_lone_surrogate(value):
            # A refused argument leaves a readable trace, not the bad code points.
            value = value.encode("utf-8", "replace").decode("utf-8")
        return value[:AUDIT_TEXT_LIMIT] + "…" if len(value) > AUDIT_TEXT_LIMIT else value
    if isinstance(value, dict):
        return {clipped(str(k)): _flat(v) for k, v in list(value.items())[:20]}
    return _flat(value)


def _flat(value: Any) -> Any:
    if isinstance(value, str):
        return clipped(value)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return f"<{type(value).__name__}>"
