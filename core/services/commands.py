"""`service.commands`: the one way in for every change from outside the core (#39), and the
offline spool that keeps changes while the server is away (R23).

    command (core/model/commands.py), from an entry point (cli, desktop, mcp, sdk, hook,
    capture, importer)
      -> the agent edge's stamp (core/model/origin.py): trust within each actor's ceiling,
         outside content untrusted, an agent's command signed with its name
      -> the spool gate, on a store kept on a server (the namespace method's `@spoolable`)
      -> the namespace operation: the policy decides, one write transaction
      -> the transition journal (core/storage/journal.py) records what changed

Each command is carried out by the namespace operation of the same name, with the command's
fields as its arguments (`HANDLERS`); a test checks that every command has one and that the
operation takes every field.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from core.errors import InvalidInputError
from core.model import commands as c
from core.model.commands import Command, Origin
from core.model.origin import stamp
from core.model.records import Result
from core.services.spool import SpoolService

T = TypeVar("T")
CORE = Origin("core")
SPOOL = Origin("spool")

# Where each command is carried out: (namespace, operation). The operation's parameters are
# the command's fields, by name.
HANDLERS: dict[type[Command[Any]], tuple[str, str]] = {
    c.AppendEvent: ("events", "append_event"),
    c.AppendEvents: ("events", "append_events"),
    c.AppendCaptured: ("events", "append_captured"),
    c.SetSessionOptOut: ("events", "set_session_opt_out"),
    c.Remember: ("memories", "remember"),
    c.RememberMany: ("memories", "remember_many"),
    c.Suggest: ("memories", "suggest"),
    c.SuggestMany: ("memories", "suggest_many"),
    c.Observe: ("memories", "observe"),
    c.Extract: ("memories", "extract"),
    c.ExtractMany: ("memories", "extract_many"),
    c.PreCompress: ("memories", "pre_compress"),
    c.ImportMemories: ("memories", "import_memories"),
    c.LiftFence: ("memories", "lift_fence"),
    c.ExpireSweep: ("memories", "expire_sweep"),
    c.Approve: ("review", "approve"),
    c.ApproveMany: ("review", "approve_many"),
    c.Reject: ("review", "reject"),
    c.Edit: ("review", "edit"),
    c.EditAndApprove: ("review", "edit_and_approve"),
    c.Disable: ("review", "disable"),
    c.Enable: ("review", "enable"),
    c.NarrowScope: ("review", "downgrade"),
    c.WidenScope: ("review", "widen"),
    c.RescopeAndApprove: ("review", "rescope_and_approve"),
    c.Exclude: ("review", "exclude"),
    c.Include: ("review", "include"),
    c.Quarantine: ("review", "quarantine"),
    c.Delete: ("review", "delete"),
    c.ResolveConflict: ("review", "resolve_conflict"),
    c.KeepConflicting: ("review", "keep_conflicting"),
    c.TakeOutOfConflict: ("review", "take_out_of_conflict"),
    c.AnswerPossible: ("review", "answer_possible"),
    c.SettleWithModel: ("review", "settle_with_model"),
    c.UndoResolution: ("review", "undo_resolution"),
    c.UndoChange: ("review", "undo_change"),
    c.UndoDecision: ("review", "undo"),
    c.SetAgentPaused: ("agents", "set_paused"),
    c.BindProjectPlace: ("agents", "bind_place"),
    c.UnbindProjectPlace: ("agents", "unbind_place"),
    c.UpdatePolicySettings: ("policy", "update_settings"),
}

# Fields whose operation takes them spread out, or as a list rather than a tuple.
_SPREAD: dict[type[Command[Any]], str] = {c.UpdatePolicySettings: "changes"}
_LISTS = frozenset({"items", "memory_ids", "sessions", "event_ids", "evidence"})


class Commands(SpoolService):
    """Run commands through the pipeline; the spool's state and its flush.

    Args:
        engine: the shared engine.
        service: the `MemoryService` whose namespaces carry the commands out (typed loosely:
            the service is built on this module).
    """

    def run(self, command: Command[T], origin: Origin = CORE) -> Result[T]:
        """Carry out one change, as the agent edge lets it in.

        Raises:
            InvalidInputError: not a command, an unknown entry point, or an event claiming
                more trust than its actor may have; and whatever the operation raises.
            WriteSpooledError: on a store kept on a server that is away, the change waits
                in this machine's spool (it is applied, in order, when the server is back).
        """
        if not isinstance(command, Command) or type(command) not in HANDLERS:
            raise InvalidInputError("command", f"{type(command).__name__} is not a command")
        stamped = stamp(command, origin)
        operation = self.operation(type(stamped))
        arguments = stamped.arguments()
        spread = _SPREAD.get(type(stamped))
        if spread is not None:
            return operation(**dict(arguments.pop(spread)), **arguments)  # type: ignore[no-any-return]
        fixed = {
            k: list(v) if k in _LISTS and isinstance(v, tuple) else v for k, v in arguments.items()
        }
        return operation(**fixed)  # type: ignore[no-any-return]

    def replay(self, command: Command[Any]) -> object:
        """Run a command the offline spool kept, now that the server is back (R23)."""
        return self.run(command, SPOOL)

    def operation(self, kind: type[Command[Any]]) -> Callable[..., Any]:
        """The namespace operation that carries out commands of `kind`."""
        namespace, name = HANDLERS[kind]
        found: Callable[..., Any] = getattr(getattr(self._service, namespace), name)
        return found
