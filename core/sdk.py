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

The rules every agent gateway shares (scope narrowing, trust by role, visibility, audit) and
the hot-path guard live in the agent edge (`core/agents/edge.py`); this runtime is a thin
adapter over it. `narrow_scope` and `trust_for` are re-exported here under their old names.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.agents.edge import (
    DEFAULT_TRUST,
    ROLES,
    TRUST_CEILING,
    AgentEdge,
    HotPathGuard,
    describe,
    narrow_scope,
    trust_for,
)
from core.errors import InvalidInputError, MemoryCenterError, NotFoundError, ScopeWidenedError
from core.model import commands as c
from core.model.memory import MemoryOutcome, SearchHit
from core.model.records import NewEvent
from core.model.scope import Scope
from core.service import MemoryService

log = logging.getLogger(__name__)


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
        agent: a name recorded as `by` on the events this runtime writes, and as their
            `data.runtime`: the memory center names the session's client by it (#43).
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
        self.config = config or RuntimeConfig()
        self.agent = agent
        self.state = TurnState()
        self.edge = AgentEdge(service, self.scope, session, agent=agent)
        self.guard = HotPathGuard(self.config.failure_cooldown_seconds)
        self._lock = threading.Lock()
        self._pool = cf.ThreadPoolExecutor(max_workers=1, thread_name_prefix="mc-background")
        service.index.warm_up()  # the agent's first turn should not wait for the model (R17)

    @property
    def session(self) -> str:
        """The current session (conversation) id."""
        return self.edge.session

    @session.setter
    def session(self, value: str) -> None:
        self.edge.session = value

    def close(self) -> None:
        """Stop the workers (pending extractions finish first; a stalled read is abandoned)."""
        self.guard.close()
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
        future = self.guard.submit(lambda: self._search_now(goal, self.config.search_limit))
        future.add_done_callback(lambda f: self._remember_prefetch(goal, f))
        return future

    def inject(self, goal: str) -> tuple[str, str | None]:
        """The reference block for the next model call and its snapshot id.

        An opted-out session gets an empty block and a snapshot recording that nothing was
        injected. ("", None) means memory was unavailable (slow, failing, or cooling down
        after a failure); the turn goes on without it and `state.degraded` counts it.
        """
        if self.guard.cooling():
            return self._degrade("memory cooling down after a failure", record=False)
        budget = self.config.budget_tokens
        try:
            result = self.guard.run(
                lambda: self.service.retrieval.inject(
                    self.scope, goal, budget, session=self.session
                ),
                self.config.hot_path_seconds,
            )
        except InvalidInputError as exc:
            return self._refused(exc)
        except (cf.TimeoutError, MemoryCenterError) as exc:
            return self._degrade(describe(exc), record=True)
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
        if self.guard.cooling():
            return []
        try:
            return self.guard.run(
                lambda: self._search_now(query, count), self.config.search_seconds
            )
        except InvalidInputError as exc:
            self._refused(exc)
            return []
        except (cf.TimeoutError, MemoryCenterError) as exc:
            self._degrade(describe(exc), record=True)
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
        result = self.service.commands.run(c.AppendEvents(tuple(items)), self.edge.origin)
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
        return self._pool.submit(
            lambda: self.service.commands.run(c.PreCompress(session, ids), self.edge.origin).value
        )

    def on_session_switch(self, old: str | None, new: str) -> cf.Future[list[MemoryOutcome]]:
        """Move to session `new`; extract candidates from the finished session in the background."""
        self.session = new
        with self._lock:
            self.state.prefetched.clear()
        self.guard.reset()
        if old is None or old == new:
            done: cf.Future[list[MemoryOutcome]] = cf.Future()
            done.set_result([])
            return done
        return self._pool.submit(self._extract_quietly, old)

    def opt_out(self, opted_out: bool = True) -> None:
        """Switch memory off (or on) for the current session: nothing injected or extracted."""
        self.service.commands.run(c.SetSessionOptOut(self.session, opted_out), self.edge.origin)

    def is_opted_out(self) -> bool:
        """True when the user switched memory off for the current session (R26)."""
        return self.edge.opted_out()

    # --- helpers ----------------------------------------------------------------------

    def _event(self, item: NewEvent | Mapping[str, Any], index: int) -> NewEvent:
        if isinstance(item, NewEvent):
            return item
        if not isinstance(item, Mapping):
            raise InvalidInputError(f"events[{index}]", "must be a NewEvent or a mapping")
        trust = item.get("trust")
        data = item.get("data")
        if data is None or isinstance(data, Mapping):
            # Who wrote it, in what it wrote (#43): the session's client is then known, not
            # guessed from the session's name. A `runtime` the caller gave stays.
            data = {"runtime": self.agent, **(data or {})}
        return self.edge.event(
            str(item.get("role", "")),
            item.get("text", ""),
            trust=None if trust is None else str(trust),
            source=item.get("source"),
            kind=item.get("kind"),
            data=data,
            refs=tuple(item.get("refs", ())),
        )

    def _search_now(self, query: str, limit: int) -> list[SearchHit]:
        return self.edge.search(query, limit) or []

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

    def _refused(self, exc: InvalidInputError) -> tuple[str, None]:
        """The caller's own input was refused (a blank turn, an image-only message): no
        memory for this turn, and no cool-down. It once put the next turns' memory on hold
        for 5 s as if the store had failed."""
        with self._lock:
            self.state.last_error = describe(exc)
        log.info("no memory for this turn: %s", describe(exc))
        return "", None

    def _degrade(self, why: str, *, record: bool) -> tuple[str, None]:
        with self._lock:
            self.state.degraded += 1
            self.state.last_error = why
        self.guard.trip()
        log.warning("memory unavailable for this turn: %s", why)
        if record:
            self._pool.submit(self._record_degraded, why)
        return "", None

    def _record_degraded(self, why: str) -> None:
        self.edge.record_degraded(why)

    def _extract_quietly(self, session: str) -> list[MemoryOutcome]:
        try:
            return self.service.commands.run(c.Extract(session), self.edge.origin).value
        except NotFoundError:
            return []


def _key(text: str) -> str:
    return " ".join(text.casefold().split())


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
