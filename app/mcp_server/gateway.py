"""The tools' behaviour over a `MemoryService`, independent of the MCP transport.

A thin adapter over the agent edge (`core/agents/edge.py`), which holds the rules every
agent gateway shares: scope narrowing, trust by role and source, visibility and the audit
event of each call. This module shapes the tools' answers and turns failures into
`ToolFailure` (`<error kind>: <message>`), so the server never crashes on input.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from app.capture import history as past_work
from app.compose import open_service
from app.mcp_server.config import ServerSettings
from app.paths import platform_data_dir
from app.serialize import to_jsonable
from core import EventSource, MemoryCenterError, MemoryService, Scope, TrustLevel
from core.agents.edge import TRUST_CEILING, AgentEdge
from core.model import commands as c
from core.model import limits
from core.model.enums import MemoryKind
from core.model.memory import KEYWORD_ONLY, MemoryFilter
from core.model.validate import enum_value
from core.model.validate import text as valid_text

T = TypeVar("T")
log = logging.getLogger("memory_center.mcp")

REVIEW_STATUSES = ("candidate", "quarantined")


@dataclass(frozen=True)
class Caller:
    """Who is calling: the MCP client's name and version from `initialize`."""

    name: str = "unknown"
    version: str = ""

    @property
    def label(self) -> str:
        """The `by` / `requested_by` written for this client."""
        return f"mcp:{self.name}"[:200]


def _open_at(path: Path) -> MemoryService:
    return open_service(path, create=_is_default(path))


def _is_default(path: Path) -> bool:
    try:
        return path.expanduser().resolve() == platform_data_dir().resolve()
    except OSError:
        return False


class ToolFailure(Exception):
    """A failed tool call, already phrased for the model (`kind: message`)."""


class Gateway:
    """The MCP tools over one store, through the agent edge.

    The store is opened on first use, so a locked store (no key) is reported as a tool error
    instead of a dead server. It is created on first use only at the default data directory
    (an agent set up before the first `init` works): a directory named by --data-dir or the
    environment that holds no store is most likely a typo, and a store created there would
    take the agent's memories away from the user's own, so it is refused by name.
    """

    def __init__(
        self,
        settings: ServerSettings,
        opener: Callable[[Path], MemoryService] | None = None,
    ) -> None:
        self.settings = settings
        self._opener = opener or _open_at
        self._service: MemoryService | None = None
        self._lock = threading.Lock()
        self._last_context: dict[str, Any] | None = None
        ceiling = dict(TRUST_CEILING)
        ceiling["user"] = TrustLevel(settings.user_trust)
        self.edge = AgentEdge(
            lambda: self.service,
            settings.scope,
            settings.session,
            agent="mcp",
            ceiling=ceiling,
            entry="mcp",
        )

    @property
    def service(self) -> MemoryService:
        """The open store (opened on first use)."""
        with self._lock:
            if self._service is None:
                self._service = self._opener(self.settings.data_dir)
            return self._service

    def close(self) -> None:
        """Release the store."""
        with self._lock:
            if self._service is not None:
                self._service.close()
                self._service = None

    # --- tools -------------------------------------------------------------------------

    def search_memory(
        self, caller: Caller, query: str, scope: dict[str, str] | None, limit: int
    ) -> dict[str, Any]:
        """Visible active memories matching `query`, with provenance and why_visible."""

        def run() -> dict[str, Any]:
            hits = self.edge.search(query, limit, scope)
            if hits is None:
                return {"memories": [], "count": 0, "opted_out": True}
            found = [_hit(h) for h in hits]
            return {"memories": found, "count": len(found), "opted_out": False}

        return self._call(caller, "search_memory", {"query": query, "scope": scope}, run)

    def get_context(
        self, caller: Caller, goal: str, budget_tokens: int | None, scope: dict[str, str] | None
    ) -> dict[str, Any]:
        """The injection block for the next model call, and its snapshot id."""

        args = {"goal": goal, "scope": scope}

        def run() -> dict[str, Any]:
            req = self.edge.scope(scope)
            budget = budget_tokens or self.settings.budget_tokens
            # The call's record goes with the snapshot, written behind the answer (#13).
            audit = self.edge.audit_event(
                "get_context", args, client=_client(caller), by=caller.label
            )
            result = self.service.retrieval.inject(
                req, goal, budget, session=self.settings.session, record_with=audit
            ).value
            out = {
                "block": result.text,
                "snapshot_id": result.snapshot_id,
                "tokens": result.tokens,
                # Degraded whenever the block is less than the store's search gives: no
                # memory, or the keyword path alone while the vector path was unavailable;
                # `mode` says which (#44).
                "degraded": result.degraded or result.mode == KEYWORD_ONLY,
                "mode": result.mode,
                "memory_ids": [item.memory_id for item in result.items],
            }
            self._last_context = out
            return out

        return self._call(caller, "get_context", args, run, recorded=True)

    def remember(
        self,
        caller: Caller,
        content: str,
        kind: str | None,
        evidence: str | None,
        scope: dict[str, str] | None,
        said_at: str | None = None,
        speaker: str | None = None,
        replaces: list[str] | None = None,
        same_as: str | None = None,
    ) -> dict[str, Any]:
        """Suggest a memory (never active on the agent's word alone; see docs/mcp.md). It
        may name memories it replaces or restates (#40): the policy weighs that by trust."""

        def run() -> dict[str, Any]:
            req = self.edge.scope(scope)
            # Checked before the evidence is written: a refused suggestion leaves no trace
            # but its audit event.
            valid_text(content, "content", limits.MAX_MEMORY_TEXT)
            if kind is not None:
                enum_value(MemoryKind, kind, "kind")
            if replaces or same_as is not None:
                self.service.memories.check_declared(req, replaces=replaces or (), same_as=same_as)
            evidence_ids = [self._evidence(req, evidence, caller)] if evidence is not None else []
            outcome = self.service.commands.run(
                c.Suggest(
                    req,
                    content,
                    kind=kind,
                    evidence=evidence_ids,
                    session=self.settings.session,
                    by=caller.label,
                    said_at=said_at,
                    speaker=speaker,
                    replaces=tuple(replaces or ()),
                    same_as=same_as,
                ),
                self.edge.origin,
            ).value
            record = outcome.record
            return {
                "memory_id": record.id if record else None,
                "status": record.status.value if record else None,
                "outcome": outcome.outcome,
                "reasons": list(outcome.reasons),
                "evidence_event_ids": evidence_ids,
                "superseded": list(outcome.superseded),
            }

        args: dict[str, Any] = {"content": content, "kind": kind, "scope": scope}
        args |= {"said_at": said_at, "speaker": speaker, "replaces": replaces, "same_as": same_as}
        return self._call(caller, "remember", args, run)

    def record_event(
        self,
        caller: Caller,
        role: str,
        text: str,
        trust: str | None,
        source: str | None,
        scope: dict[str, str] | None,
        said_at: str | None = None,
        speaker: str | None = None,
    ) -> dict[str, Any]:
        """Append one user/assistant/tool event; trust follows the role rules."""

        def run() -> dict[str, Any]:
            item = self.edge.event(
                role,
                text,
                trust=trust,
                source=source,
                scope=self.edge.scope(scope),
                data={"via": "mcp", "client": caller.name, "client_version": caller.version},
                by=caller.label,
                said_at=said_at,
                speaker=speaker,
            )
            event = self.service.commands.run(c.AppendEvent(item), self.edge.origin).value
            return {
                "event_id": event.id,
                "seq": event.seq,
                "actor": event.actor.value,
                "trust": event.trust.value,
                "session": event.session_id,
            }

        args = {"role": role, "trust": trust, "source": source, "scope": scope}
        args |= {"said_at": said_at, "speaker": speaker}
        return self._call(caller, "record_event", args, run)

    def forget(self, caller: Caller, memory_id: str, reason: str) -> dict[str, Any]:
        """Delete a visible memory through the tombstone path."""

        def run() -> dict[str, Any]:
            stone = self.edge.forget(memory_id, reason, by=caller.label)
            return {
                "memory_id": stone.memory_id,
                "deleted_at": stone.deleted_at.isoformat(),
                "requested_by": stone.requested_by,
                "cleaned": list(stone.cleaned),
            }

        return self._call(caller, "forget", {"memory_id": memory_id, "reason": reason}, run)

    def list_recent(
        self, caller: Caller, limit: int, scope: dict[str, str] | None
    ) -> dict[str, Any]:
        """The most recently changed active memories visible to the scope."""

        def run() -> dict[str, Any]:
            req = self.edge.scope(scope)
            flt = MemoryFilter(statuses=("active",), visible_to=req, limit=limit)
            items = [_record(r, req) for r in self.service.memories.list_memories(flt)]
            return {"memories": items, "count": len(items)}

        return self._call(caller, "list_recent", {"limit": limit, "scope": scope}, run)

    def search_history(
        self, caller: Caller, query: str, scope: dict[str, str] | None, limit: int
    ) -> dict[str, Any]:
        """Past events (what was said and done) matching `query`, within the agent's scope:
        quotes with session, time and a command to replay the surroundings (#42)."""

        def run() -> dict[str, Any]:
            if self.edge.opted_out():
                return {"events": [], "count": 0, "opted_out": True}
            req = self.edge.scope(scope)
            hits = [to_jsonable(h) for h in past_work.search(self.service, req, query, limit=limit)]
            return {"events": hits, "count": len(hits), "opted_out": False}

        return self._call(caller, "search_history", {"query": query, "scope": scope}, run)

    # --- resources -----------------------------------------------------------------------

    def context_resource(self) -> str:
        """`memory://context`: the block of the latest get_context call of this server."""
        if self._last_context is None:
            return "(no context yet: call the get_context tool with the task's goal)"
        return str(self._last_context["block"])

    def review_queue_resource(self) -> str:
        """`memory://review-queue`: how many suggestions wait for the user, as JSON."""
        try:
            req = self.edge.scope()
            flt = MemoryFilter(statuses=REVIEW_STATUSES, visible_to=req, limit=1_000_000)
            records = self.service.memories.list_memories(flt)
        except MemoryCenterError as exc:
            return json.dumps({"error": {"kind": exc.kind, "message": exc.message}})
        counts = {status: 0 for status in REVIEW_STATUSES}
        for rec in records:
            counts[rec.status.value] += 1
        return json.dumps({"pending": len(records), **counts})

    def index_status_resource(self) -> str:
        """`memory://index-status`: the indexes and the background embedding still to do
        (`pending`, `progress`: a reopened store's backfill and an import's windows, #44)."""
        try:
            status = self.service.index.status()
        except MemoryCenterError as exc:
            return json.dumps({"error": {"kind": exc.kind, "message": exc.message}})
        return json.dumps(to_jsonable(status), ensure_ascii=False)

    # --- helpers ---------------------------------------------------------------------------

    def _evidence(self, scope: Scope, text: str, caller: Caller) -> str:
        item = self.edge.event(
            "tool",
            text,
            source=EventSource.DOCUMENT,
            scope=scope,
            data={
                "via": "mcp",
                "client": caller.name,
                "client_version": caller.version,
                "role": "evidence",
            },
            by=caller.label,
        )
        return self.service.commands.run(c.AppendEvent(item), self.edge.origin).value.id

    def _call(
        self,
        caller: Caller,
        tool: str,
        args: Mapping[str, Any],
        run: Callable[[], T],
        *,
        recorded: bool = False,
    ) -> T:
        """`run` with its `agent_call` event written; `recorded`: a run that succeeds has
        handed its event to the store itself."""
        client = _client(caller)
        try:
            result = run()
        except MemoryCenterError as exc:
            self.edge.audit(tool, args, client=client, error=exc.kind, by=caller.label)
            raise ToolFailure(f"{exc.kind}: {exc.message}") from None
        if not recorded:
            self.edge.audit(tool, args, client=client, by=caller.label)
        return result


def _client(caller: Caller) -> dict[str, str]:
    return {"name": caller.name, "version": caller.version}


def _hit(hit: Any) -> dict[str, Any]:
    out: dict[str, Any] = to_jsonable(hit)
    out["provenance"] = {"source_trust": hit.source_trust, "created_at": out["created_at"]}
    return out


def _record(rec: Any, req: Scope) -> dict[str, Any]:
    return {
        "memory_id": rec.id,
        "content": rec.content,
        "kind": rec.kind.value,
        "scope": dict(rec.scope.items_),
        "confidence": rec.confidence,
        "source_trust": rec.source_trust.value,
        "source_event_ids": list(rec.source_event_ids),
        "updated_at": rec.updated_at.isoformat(),
        "why_visible": rec.scope.why_visible(req),
    }
