"""Writes while the server is away (R23): spool them on this machine, replay them in order.

Service methods marked `@spoolable` pass through `Spooler.call` on a store kept on a server.
A write goes straight to the store when nothing waits; when the server cannot be reached it
goes to the local spool (`core/storage/spool.py`) and the caller gets `WriteSpooledError`,
never a success. While writes wait, new writes queue behind them, so the store sees this
machine's writes in the order they were made. `flush` replays each entry through the same
service method (the policy decides it at apply time) with its id claimed in the store in the
same transaction. A direct write claims its id too, so a write whose commit was cut off in
flight (committed, but the answer lost) and then spooled is recognised and not applied twice.
"""

from __future__ import annotations

import datetime as dt
import functools
import inspect
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

from core.errors import (
    AlreadyAppliedError,
    InvalidInputError,
    MemoryCenterError,
    ResourceUnavailableError,
    ServerUnavailableError,
    WriteSpooledError,
)
from core.model.clock import from_iso
from core.model.commands import COMMANDS, Command, decode, encode, from_wire
from core.model.records import NewEvent
from core.model.scope import Scope
from core.model.spool import FlushReport, SpoolEntry, SpoolRefusal, SpoolStatus
from core.model.validate import identifier, new_event, said_at, speaker
from core.storage.spool import LocalSpool, claim, record_refused
from core.storage.store import Store, WriteTx, new_id

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")
# After the server was found away, writes go straight to the spool for this long before the
# next one tries the server again: an agent's turn never waits for a connect timeout twice.
RETRY_SECONDS = 5.0
OFFLINE_NOTE = "offline_since"
ERROR_NOTE = "last_error"
# Replayed calls, named `namespace.method` of the service: every method here takes only
# plain, scope, event and time arguments.
SPOOLABLE = frozenset(
    {
        "events.append_event",
        "events.append_events",
        "memories.remember",
        "memories.suggest",
        "memories.observe",
        "review.approve",
        "review.reject",
        "review.edit",
        "review.disable",
        "review.enable",
        "review.delete",
    }
)
# Spool files written before the service had namespaces name the bare method.
LEGACY_OPERATIONS = {name.split(".", 1)[1]: name for name in SPOOLABLE}
# The signature of each spoolable method, recorded by `@spoolable` as the services load: an
# offline writer names positional arguments with them without an open service.
SIGNATURES: dict[str, inspect.Signature] = {}


def spooled_call(operation: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """What the spool keeps of a write: the command itself (#39, `Command.to_wire`), beside
    the operation that carries it out. Building the command checks that the arguments fit.

    Raises:
        InvalidInputError: arguments the command does not take.
    """
    name = operation.split(".", 1)[1]
    kind = COMMANDS.get(name)
    if kind is None:
        raise InvalidInputError("operation", f"{operation!r} is not a command")
    try:
        command = kind(**arguments)
    except TypeError as exc:
        raise InvalidInputError("arguments", f"{operation}: {exc}") from None
    return {"operation": operation, **command.to_wire()}


def spooled_command(call: dict[str, Any], made_at: dt.datetime) -> Command[Any]:
    """The command a spool entry keeps; an entry of an older version (an operation and its
    arguments) is read as the command of the same name."""
    operation = qualified(str(call["operation"]))
    name = str(call.get("command") or operation.split(".", 1)[1])
    try:
        arguments = _dated(operation, decode(call["arguments"]), made_at)
    except (TypeError, ValueError, KeyError) as exc:
        raise InvalidInputError("arguments", f"cannot be replayed: {exc}") from None
    return from_wire(name, {k: encode(v) for k, v in arguments.items()})


def qualified(operation: str) -> str:
    """The `namespace.method` name of a spooled operation (an old bare name is mapped)."""
    return LEGACY_OPERATIONS.get(operation, operation)


class Gated(Protocol):
    """A namespace of the service whose writes may be spooled."""

    def _write_gate(self) -> Spooler | None: ...


def spoolable(operation: str) -> Callable[[F], F]:
    """Mark a service write as `operation` (`namespace.method`): on a server store it is
    spooled while the server is away."""
    if operation not in SPOOLABLE:
        raise TypeError(f"{operation} is not a spoolable operation")

    def mark(method: F) -> F:
        if operation.split(".", 1)[1] != method.__name__:
            raise TypeError(f"{method.__name__} cannot be spooled as {operation}")
        signature = inspect.signature(method)
        SIGNATURES[operation] = signature

        @functools.wraps(method)
        def wrapper(self: Gated, *args: Any, **kwargs: Any) -> Any:
            gate = self._write_gate()
            if gate is None:
                return method(self, *args, **kwargs)
            bound = signature.bind(self, *args, **kwargs).arguments
            arguments = {k: v for k, v in bound.items() if k != "self"}
            return gate.call(operation, arguments, lambda: method(self, *args, **kwargs))

        return cast(F, wrapper)

    return mark


class Spooler:
    """The spool gate of one service on a server store.

    Args:
        execute: runs a replayed command through the pipeline (`service.commands`, as the
            spool's own entry point).
        store: its store (for the claim in the replaying transaction).
        data_dir: the local data directory that holds the spool file.
        device: this machine's device id, recorded with each applied entry.
    """

    def __init__(
        self, execute: Callable[[Command[Any]], object], store: Store, data_dir: Path, device: str
    ) -> None:
        self._execute = execute
        self._store = store
        self._device = device
        self.local = LocalSpool(data_dir, lambda: store.codec)
        store.on_dispose.append(self.local.close)
        self._lock = threading.RLock()
        self._replaying = threading.local()
        self._retry_at = 0.0
        self._offline = False

    # --- the gate -----------------------------------------------------------------

    def call(self, operation: str, arguments: dict[str, Any], run: Callable[[], T]) -> T:
        """Run a write, or spool it when the server is away or earlier writes still wait.

        Raises:
            WriteSpooledError: the write waits in the spool.
        """
        if getattr(self._replaying, "on", False):
            return run()
        _prevalidate(operation, arguments)
        call = spooled_call(operation, arguments)
        with self._lock:
            waiting, _ = self.local.summary()
            if waiting and (time.monotonic() < self._retry_at or self.flush().waiting):
                raise self._spool(operation, call, None)
            entry = SpoolEntry(new_id("sp", self._store.clock.now()), operation, self._now())
            try:
                # A direct write's fresh id cannot be there yet: recorded after the write's own
                # work, it joins the queued writes sent at commit (no round trip of its own).
                with self._store.first_write_also(
                    self._claimer(entry, direct=True), at_start=False
                ):
                    result = run()
            except ServerUnavailableError as exc:
                raise self._spool(operation, call, str(exc), entry_id=entry.id) from None
            self._back_online()
            return result

    def _spool(
        self, operation: str, call: dict[str, Any], error: str | None, entry_id: str | None = None
    ) -> WriteSpooledError:
        if error is not None:
            self._went_offline(error)
        # Listed by the command's name (`remember`, `delete`), as `spool list` shows it.
        entry = self.local.add(str(call["command"]), call, self._now(), entry_id=entry_id)
        waiting, _ = self.local.summary()
        return WriteSpooledError(entry.id, operation, waiting)

    # --- replay -------------------------------------------------------------------

    def flush(self) -> FlushReport:
        """Apply waiting writes in order until the spool is empty or the server goes away.

        An entry the store refuses at apply time (its memory was deleted meanwhile, the
        input no longer fits) is recorded as refused in the store, reported, and dropped;
        a policy rejection (a secret) is a normal outcome of the applied write.
        """
        applied: list[str] = []
        already: list[str] = []
        refused: list[SpoolRefusal] = []
        error: str | None = None
        with self._lock, self.local.flushing() as mine:
            if not mine:
                error = "another process is flushing this spool"
            for entry in self.local.entries() if mine else []:
                outcome = self._apply(entry)
                if isinstance(outcome, ResourceUnavailableError):
                    # Server away, key or disk unavailable: not a decision; keep it, stop.
                    error = outcome.message
                    self.local.note_attempt(entry.id, error)
                    if isinstance(outcome, ServerUnavailableError):
                        self._went_offline(error)
                    else:
                        self.local.note(ERROR_NOTE, error)
                    break
                if outcome is None:
                    applied.append(entry.id)
                elif isinstance(outcome, AlreadyAppliedError):
                    already.append(entry.id)
                else:
                    refused.append(SpoolRefusal(entry.id, entry.operation, outcome.message))
                    self.local.note(ERROR_NOTE, f"{entry.operation} refused: {outcome.message}")
                self.local.remove(entry.id)
            waiting, _ = self.local.summary()
        if mine and error is None:
            self._back_online()
            self.local.note(OFFLINE_NOTE, None)  # another process may have set it
        return FlushReport(tuple(applied), tuple(already), tuple(refused), waiting, error)

    def _apply(self, entry: SpoolEntry) -> MemoryCenterError | None:
        """Replay one entry; None when applied, else the error that settled or stopped it."""
        try:
            call = self.local.call(entry.id)
            operation = qualified(str(call["operation"]))
            if operation not in SPOOLABLE or operation != qualified(entry.operation):
                raise InvalidInputError("operation", f"{operation!r} cannot be replayed")
            command = spooled_command(call, entry.spooled_at)
            self._replaying.on = True
            try:
                # Through the pipeline, as any change: the edge's stamp, then the operation.
                with self._store.first_write_also(self._claimer(entry, direct=False)):
                    self._execute(command)
            finally:
                self._replaying.on = False
        except (AlreadyAppliedError, ResourceUnavailableError) as exc:
            return exc
        except MemoryCenterError as exc:
            return self._refuse(entry, exc)
        return None

    def _refuse(self, entry: SpoolEntry, exc: MemoryCenterError) -> MemoryCenterError:
        try:
            with self._store.write("record a refused spooled write") as tx:
                record_refused(tx, entry, self._device, exc.kind)
        except ServerUnavailableError as away:
            return away
        return exc

    def _claimer(self, entry: SpoolEntry, *, direct: bool) -> Callable[[WriteTx], None]:
        def step(tx: WriteTx) -> None:
            claim(tx, entry, self._device, check=not direct)

        return step

    # --- state ----------------------------------------------------------------------

    def status(self) -> SpoolStatus:
        """Waiting writes, the oldest, the last error, and whether the server was away."""
        waiting, oldest = self.local.summary()
        notes = self.local.notes() if waiting or self.local.path.exists() else {}
        return SpoolStatus(
            waiting=waiting,
            oldest=from_iso(oldest) if oldest else None,
            last_error=notes.get(ERROR_NOTE),
            offline=self._offline or (waiting > 0 and OFFLINE_NOTE in notes),
        )

    def _went_offline(self, error: str) -> None:
        self._retry_at = time.monotonic() + RETRY_SECONDS
        self.local.note(ERROR_NOTE, error)
        if not self._offline:
            self._offline = True
            self.local.note(OFFLINE_NOTE, self._now().isoformat())

    def _back_online(self) -> None:
        if self._offline or self._retry_at:
            self._offline = False
            self._retry_at = 0.0
            self.local.note(OFFLINE_NOTE, None)

    def _now(self) -> dt.datetime:
        return self._store.clock.now()


def spool_summary(data_dir: Path) -> SpoolStatus:
    """A spool's state read from its file alone (nothing is decrypted)."""

    def no_codec() -> Any:
        raise InvalidInputError("spool", "reading the summary needs no key")

    local = LocalSpool(data_dir, no_codec)
    waiting, oldest = local.summary()
    notes = local.notes()
    return SpoolStatus(
        waiting=waiting,
        oldest=from_iso(oldest) if oldest else None,
        last_error=notes.get(ERROR_NOTE),
        offline=OFFLINE_NOTE in notes,
    )


def spool_entries(data_dir: Path) -> list[SpoolEntry]:
    """A spool's waiting entries read from its file alone (nothing is decrypted): what
    `spool list` shows while the server is away."""

    def no_codec() -> Any:
        raise InvalidInputError("spool", "listing the entries needs no key")

    return LocalSpool(data_dir, no_codec).entries()


class OfflineWriter:
    """The spoolable writes of a server store that could not be opened (R23).

    A one-shot process (a CLI call, an agent's script) that starts while the server is away
    cannot open the store, but this machine still holds its copy of the key set: the write
    is sealed into the same local spool an open service uses, and the next process that
    writes to the open store (or `spool flush`) applies it in order, each decided by the
    policy then. Nothing is checked against the store now; bad input that can be checked
    without it is refused.

    Args:
        data_dir: the store's local data directory (holds the spool file).
        codec: sealed with this machine's copy of the key set.
        clock: stamps the entries.
        signatures: the spoolable methods by operation, to name positional arguments.
        reason: why the server could not be used (kept as the spool's last error).
    """

    def __init__(
        self,
        data_dir: Path,
        codec: Any,
        clock: Any,
        signatures: Mapping[str, inspect.Signature],
        reason: str,
    ) -> None:
        self._data_dir = data_dir
        self._codec = codec
        self._clock = clock
        self._signatures = signatures
        self._reason = reason

    def spool(self, operation: str, *args: Any, **kwargs: Any) -> WriteSpooledError:
        """Seal one write into the spool; return the error that tells the caller so.

        `operation` is `namespace.method` (`memories.remember`); a bare old name is mapped.

        Raises:
            InvalidInputError: not a spoolable operation, arguments it does not take, or
                input refused before it is kept.
        """
        operation = qualified(operation)
        signature = self._signatures.get(operation)
        if signature is None:
            raise InvalidInputError("operation", f"{operation!r} cannot be kept in the spool")
        try:
            bound = signature.bind(None, *args, **kwargs).arguments
        except TypeError as exc:
            raise InvalidInputError("arguments", f"{operation}: {exc}") from None
        arguments = {k: v for k, v in bound.items() if k != "self"}
        _prevalidate(operation, arguments)
        call = spooled_call(operation, arguments)
        now = self._clock.now()
        local = LocalSpool(self._data_dir, lambda: self._codec)
        try:
            entry = local.add(str(call["command"]), call, now)
            local.note(ERROR_NOTE, self._reason)
            if OFFLINE_NOTE not in local.notes():
                local.note(OFFLINE_NOTE, now.isoformat())
            waiting, _ = local.summary()
        finally:
            local.close()
        return WriteSpooledError(entry.id, operation, waiting)


# --- the sealed form of a call ----------------------------------------------------------


def _dated(operation: str, arguments: dict[str, Any], made_at: dt.datetime) -> dict[str, Any]:
    """A spooled memory or event keeps the time it was made, not the time the server came
    back: what was said has the spool time as its own time unless the caller gave one."""
    if operation in {"memories.remember", "memories.suggest"} and arguments.get("said_at") is None:
        return {**arguments, "said_at": made_at}
    if operation == "events.append_event" and isinstance(arguments.get("item"), NewEvent):
        return {**arguments, "item": _event_dated(arguments["item"], made_at)}
    if operation == "events.append_events" and isinstance(arguments.get("items"), list):
        return {**arguments, "items": [_event_dated(i, made_at) for i in arguments["items"]]}
    return arguments


def _event_dated(item: Any, made_at: dt.datetime) -> Any:
    if isinstance(item, NewEvent) and item.said_at is None:
        return replace(item, said_at=made_at)
    return item


def _prevalidate(operation: str, arguments: dict[str, Any]) -> None:
    """Refuse bad input before it is spooled (what can be checked without the store)."""
    if operation == "events.append_event":
        new_event(arguments["item"])
    elif operation == "events.append_events":
        for i, item in enumerate(arguments["items"]):
            new_event(item, field=f"events[{i}]")
    elif "memory_id" in arguments:
        identifier(arguments["memory_id"], "memory_id", 64)
    if operation in {"memories.remember", "memories.suggest", "memories.observe"}:
        scope = arguments.get("scope")
        Scope.required(dict(scope.items_) if isinstance(scope, Scope) else scope)
    if operation in {"memories.remember", "memories.suggest"}:
        # A write that waits in the spool must not fail only when it is replayed.
        said_at(arguments.get("said_at"), dt.datetime.now(dt.UTC))
        speaker(arguments.get("speaker"))
