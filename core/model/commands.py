"""Commands (#39): every change to a store, as one frozen, typed, serialisable value.

Every entry point (the CLI, the desktop, the MCP server, the SDK, the hooks, capture and the
importers) asks for a change by building a command and handing it to the service's one way
in, `service.commands.run`, which runs it through the pipeline (core/services/commands.py):
the agent edge stamps who asks and with what trust, the policy decides, one transaction
writes, and the transition journal records what changed (core/storage/journal.py). The
offline spool keeps the command itself (`to_wire`), and replays it through the same pipeline.

A command's fields are the arguments of the service operation that carries it out, by the
same names; `arguments()` gives them. Adding a field here and a parameter there is the whole
change for a new option.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Generic, TypeVar

from core.errors import InvalidInputError
from core.model.capture import CaptureCursor
from core.model.memory import MemoryOutcome, QuarantineReport, Tombstone
from core.model.records import Event, MemoryRecord, NewEvent, SessionInfo
from core.model.scope import Scope

ScopeValue = Mapping[str, str] | Scope | None
T = TypeVar("T")


@dataclass(frozen=True)
class Origin:
    """Where a command comes from, as the agent edge stamps it.

    Attributes:
        entry: the entry point: cli, desktop, mcp, sdk, hook, capture, importer, spool, core.
        agent: the agent or program on the other side (an MCP client's name, "claude-code").
    """

    entry: str = "core"
    agent: str | None = None


COMMANDS: dict[str, type[Command[Any]]] = {}


@dataclass(frozen=True)
class Command(Generic[T]):
    """A change to the store, whose result value is a `T`. Subclasses are frozen dataclasses
    named for what they do."""

    name: ClassVar[str] = ""
    # Whether the offline spool may keep it while the server is away (R23).
    spoolable: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.name:
            COMMANDS[cls.name] = cls

    def arguments(self) -> dict[str, Any]:
        """The fields, by name: the service operation's arguments."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def to_wire(self) -> dict[str, Any]:
        """The command as tagged JSON (scopes, events, times keep their type)."""
        return {"command": self.name, "arguments": encode(self.arguments())}


def from_wire(name: str, arguments: Mapping[str, Any]) -> Command[Any]:
    """The command `to_wire` wrote.

    Raises:
        InvalidInputError: an unknown command, or arguments it does not take.
    """
    cls = COMMANDS.get(name)
    if cls is None:
        raise InvalidInputError("command", f"unknown command {name!r}")
    # A command's sequences are tuples (it is frozen); inside a mapping, lists stay lists.
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in decode(dict(arguments)).items()}
    try:
        return cls(**values)
    except TypeError as exc:
        raise InvalidInputError("arguments", f"{name} cannot take them: {exc}") from None


# --- the event log ---------------------------------------------------------------------


@dataclass(frozen=True)
class AppendEvent(Command[Event]):
    """Append one event to a session's log."""

    name: ClassVar[str] = "append_event"
    spoolable: ClassVar[bool] = True
    item: NewEvent


@dataclass(frozen=True)
class AppendEvents(Command[list[Event]]):
    """Append several events in one transaction: all or none."""

    name: ClassVar[str] = "append_events"
    spoolable: ClassVar[bool] = True
    items: Sequence[NewEvent]


@dataclass(frozen=True)
class AppendCaptured(Command[list[Event]]):
    """Append captured transcript events and move the capture cursor, atomically."""

    name: ClassVar[str] = "append_captured"
    items: Sequence[NewEvent]
    cursor: CaptureCursor
    position: int
    state: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class SetSessionOptOut(Command[SessionInfo]):
    """Switch a session's memory off (nothing injected, nothing extracted) or on (R26)."""

    name: ClassVar[str] = "set_session_opt_out"
    session: str
    opted_out: bool


# --- the write path of memory ----------------------------------------------------------------


@dataclass(frozen=True)
class Remember(Command[MemoryOutcome]):
    """The user's explicit request to remember something (R7)."""

    name: ClassVar[str] = "remember"
    spoolable: ClassVar[bool] = True
    scope: ScopeValue
    text: str
    session: str | None = None
    kind: str | None = None
    expires_in_days: float | None = None
    by: str | None = None
    said_at: dt.datetime | str | None = None
    speaker: str | None = None
    replaces: Sequence[str] = ()
    same_as: str | None = None


@dataclass(frozen=True)
class Suggest(Command[MemoryOutcome]):
    """An agent's or extractor's suggestion; the policy decides (R7)."""

    name: ClassVar[str] = "suggest"
    spoolable: ClassVar[bool] = True
    scope: ScopeValue
    text: str
    kind: str | None = None
    evidence: Sequence[str] = ()
    session: str | None = None
    by: str | None = None
    said_at: dt.datetime | str | None = None
    speaker: str | None = None
    replaces: Sequence[str] = ()
    same_as: str | None = None


@dataclass(frozen=True)
class RememberMany(Command[list[MemoryOutcome]]):
    """Many explicit requests in one transaction (history being imported)."""

    name: ClassVar[str] = "remember_many"
    items: Sequence[Mapping[str, Any]]


@dataclass(frozen=True)
class SuggestMany(Command[list[MemoryOutcome]]):
    """Many suggestions in one transaction."""

    name: ClassVar[str] = "suggest_many"
    items: Sequence[Mapping[str, Any]]


@dataclass(frozen=True)
class Observe(Command[Event]):
    """A verified observation, which may contradict memories (R10)."""

    name: ClassVar[str] = "observe"
    spoolable: ClassVar[bool] = True
    scope: ScopeValue
    text: str
    session: str | None = None
    contradicts: str | None = None


@dataclass(frozen=True)
class Extract(Command[list[MemoryOutcome]]):
    """Run extraction over a session's events."""

    name: ClassVar[str] = "extract"
    session: str
    event_ids: Sequence[str] | None = None


@dataclass(frozen=True)
class PreCompress(Command[list[MemoryOutcome]]):
    """Extraction before the agent compacts its context: what it is about to forget."""

    name: ClassVar[str] = "pre_compress"
    session: str
    event_ids: Sequence[str] | None = None


@dataclass(frozen=True)
class ExtractMany(Command[list[MemoryOutcome]]):
    """Run extraction over several sessions."""

    name: ClassVar[str] = "extract_many"
    sessions: Sequence[str]


@dataclass(frozen=True)
class ImportMemories(Command[list[MemoryOutcome]]):
    """Import an exported memory document; each item decided by the policy."""

    name: ClassVar[str] = "import_memories"
    document: Mapping[str, Any]
    by: str | None = None


# --- the user's controls over one memory (R9, R19, R22, R25, R26) -----------------------------


@dataclass(frozen=True)
class MemoryCommand(Command[T]):
    """A command about one memory."""

    memory_id: str


@dataclass(frozen=True)
class Approve(MemoryCommand[MemoryRecord]):
    name: ClassVar[str] = "approve"
    spoolable: ClassVar[bool] = True
    by: str | None = None


@dataclass(frozen=True)
class ApproveMany(Command[list[MemoryRecord]]):
    name: ClassVar[str] = "approve_many"
    memory_ids: Sequence[str]
    by: str | None = None


@dataclass(frozen=True)
class Reject(MemoryCommand[MemoryRecord]):
    name: ClassVar[str] = "reject"
    spoolable: ClassVar[bool] = True
    reason: str | None = None
    by: str | None = None


@dataclass(frozen=True)
class Edit(MemoryCommand[MemoryRecord]):
    name: ClassVar[str] = "edit"
    spoolable: ClassVar[bool] = True
    new_text: str
    by: str | None = None


@dataclass(frozen=True)
class EditAndApprove(MemoryCommand[MemoryRecord]):
    name: ClassVar[str] = "edit_and_approve"
    new_text: str
    by: str | None = None


@dataclass(frozen=True)
class Disable(MemoryCommand[MemoryRecord]):
    name: ClassVar[str] = "disable"
    spoolable: ClassVar[bool] = True
    by: str | None = None
    reason: str | None = None


@dataclass(frozen=True)
class Enable(MemoryCommand[MemoryRecord]):
    name: ClassVar[str] = "enable"
    spoolable: ClassVar[bool] = True
    by: str | None = None


@dataclass(frozen=True)
class NarrowScope(MemoryCommand[MemoryRecord]):
    """Downgrade a memory's scope (add keys)."""

    name: ClassVar[str] = "downgrade"
    scope: ScopeValue
    by: str | None = None


@dataclass(frozen=True)
class WidenScope(MemoryCommand[MemoryRecord]):
    name: ClassVar[str] = "widen"
    scope: ScopeValue
    by: str | None = None


@dataclass(frozen=True)
class RescopeAndApprove(MemoryCommand[MemoryRecord]):
    name: ClassVar[str] = "rescope_and_approve"
    scope: ScopeValue
    by: str | None = None


@dataclass(frozen=True)
class Exclude(MemoryCommand[MemoryRecord]):
    name: ClassVar[str] = "exclude"
    session: str
    by: str | None = None


@dataclass(frozen=True)
class Include(MemoryCommand[MemoryRecord]):
    name: ClassVar[str] = "include"
    session: str
    by: str | None = None


@dataclass(frozen=True)
class Quarantine(MemoryCommand[QuarantineReport]):
    name: ClassVar[str] = "quarantine"
    reason: str
    by: str | None = None


@dataclass(frozen=True)
class Delete(MemoryCommand[Tombstone]):
    """Tombstone a memory (and purge every copy with `purge`) (R19, R20)."""

    name: ClassVar[str] = "delete"
    spoolable: ClassVar[bool] = True
    reason: str
    purge: bool = False
    requested_by: str | None = None
    purge_events: bool = False


@dataclass(frozen=True)
class LiftFence(MemoryCommand[int]):
    name: ClassVar[str] = "lift_fence"


# --- conflicts and undo ------------------------------------------------------------------


@dataclass(frozen=True)
class ResolveConflict(Command[list[MemoryRecord]]):
    """Keep one member of a conflict set."""

    name: ClassVar[str] = "resolve_conflict"
    keep_id: str
    reason: str | None = None
    by: str | None = None
    approve: bool = False


@dataclass(frozen=True)
class KeepConflicting(Command[list[MemoryRecord]]):
    """Keep every member of a conflict set, each optionally narrowed."""

    name: ClassVar[str] = "keep_conflicting"
    scopes: Mapping[str, ScopeValue]
    reason: str | None = None
    by: str | None = None
    approve: bool = False


@dataclass(frozen=True)
class TakeOutOfConflict(MemoryCommand[list[MemoryRecord]]):
    name: ClassVar[str] = "take_out_of_conflict"
    by: str | None = None


@dataclass(frozen=True)
class AnswerPossible(MemoryCommand[list[MemoryRecord]]):
    name: ClassVar[str] = "answer_possible"
    answer: str
    by: str | None = None


@dataclass(frozen=True)
class SettleWithModel(Command[list[Any]]):
    """Ask the configured model judge about the review items the rule judge could not
    decide, and apply its answers under the trust rules (#40). Not spooled: it needs the
    model and the store at once."""

    name: ClassVar[str] = "settle_with_model"
    memory_ids: Sequence[str] = ()
    limit: int = 50


@dataclass(frozen=True)
class UndoResolution(MemoryCommand[list[MemoryRecord]]):
    name: ClassVar[str] = "undo_resolution"
    by: str | None = None


@dataclass(frozen=True)
class UndoChange(Command[list[MemoryRecord]]):
    """Undo one journalled change; undoing an undo redoes it."""

    name: ClassVar[str] = "undo_change"
    command_id: str
    by: str | None = None


@dataclass(frozen=True)
class UndoDecision(MemoryCommand[MemoryRecord]):
    """Undo a memory's latest change, which must have recorded decision `action`."""

    name: ClassVar[str] = "undo"
    action: str
    by: str | None = None


# --- the store's own settings ----------------------------------------------------------


@dataclass(frozen=True)
class SetAgentPaused(Command[frozenset[str]]):
    name: ClassVar[str] = "set_agent_paused"
    agent: str
    paused: bool


@dataclass(frozen=True)
class BindProjectPlace(Command[frozenset[str]]):
    """Confirm that a folder (the digest of its real path) speaks for a project: the hooks
    bring the project's memories only into such folders."""

    name: ClassVar[str] = "bind_project_place"
    project: str
    place: str


@dataclass(frozen=True)
class UnbindProjectPlace(Command[frozenset[str]]):
    """Withdraw a folder's confirmation for a project (a path reused for other content)."""

    name: ClassVar[str] = "unbind_project_place"
    project: str
    place: str


@dataclass(frozen=True)
class UpdatePolicySettings(Command[Any]):
    """Change the memory policy's settings (a new policy version)."""

    name: ClassVar[str] = "update_policy_settings"
    changes: Mapping[str, Any]


@dataclass(frozen=True)
class ExpireSweep(Command[list[str]]):
    name: ClassVar[str] = "expire_sweep"


# --- the wire form -------------------------------------------------------------------------


def encode(value: Any) -> Any:
    """A value as tagged JSON (scopes, events, cursors, times and mappings keep their type).

    Raises:
        InvalidInputError: a value of a type a command cannot carry.
    """
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Scope):
        return {"$scope": dict(value.items_)}
    if isinstance(value, NewEvent):
        return {"$event": {f.name: encode(getattr(value, f.name)) for f in fields(value)}}
    if isinstance(value, CaptureCursor):
        return {"$cursor": {f.name: encode(getattr(value, f.name)) for f in fields(value)}}
    if isinstance(value, dt.datetime):
        return {"$time": value.isoformat()}
    if isinstance(value, Mapping):
        return {"$map": {str(k): encode(v) for k, v in value.items()}}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    raise InvalidInputError("arguments", f"a {type(value).__name__} cannot be kept in a command")


def decode(value: Any) -> Any:
    """The value `encode` wrote."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "$scope" in value:
        return Scope.required(value["$scope"])
    if "$event" in value:
        parts = {k: decode(v) for k, v in value["$event"].items()}
        parts["refs"] = tuple(parts.get("refs") or ())
        return NewEvent(**parts)
    if "$cursor" in value:
        return CaptureCursor(**{k: decode(v) for k, v in value["$cursor"].items()})
    if "$time" in value:
        return dt.datetime.fromisoformat(value["$time"])
    if "$map" in value:
        return {k: decode(v) for k, v in value["$map"].items()}
    return {k: decode(v) for k, v in value.items()}
