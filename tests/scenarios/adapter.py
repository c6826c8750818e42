"""Product adapter for the acceptance scenarios (README section 2, item 4).

The scenarios speak an abstract language: operations ("remember", "inject", "approve" ...) and
small vocabularies (statuses, flags, notes, replay marks, actions, finding types, error kinds).
This module is the one place that knows how Memory Center spells those things. The runner talks
only to `ProductAdapter` and to the `*_of` mapping functions below; it never touches the service.

The adapter imports from `core` only (the public API). When the service does not (yet) offer a
method the scenarios need, the call fails with `ServiceLacksError` ("service lacks <name>") instead
of an opaque AttributeError, so the team can read the report as a to-do list.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from core import (
    InvalidInputError,
    InvalidStateError,
    ManualClock,
    MemoryCenterError,
    MemoryFilter,
    MemoryRecord,
    MemoryService,
    NewEvent,
    NotFoundError,
    ScopeRequiredError,
)

PASSPHRASE = "scenario runner passphrase"
START = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)
DEFAULT_USER = "scenario-user"
"""Who acts when neither the step nor the memory's scope names a user (README 4)."""

LISTING_LIMIT = 100_000

# --- vocabulary mapping: product word -> scenario word (README 3.6) ---------------------------
# Memory Center already uses the scenario words for most vocabularies; the tables list the
# product words that differ. Anything not listed maps to itself (lower-cased).

STATUS_MAP: dict[str, str] = {"expired": "expired"}
FLAG_MAP: dict[str, str] = {}
NOTE_MAP: dict[str, str] = {"conflicting": "conflict", "outdated": "stale"}
MARK_MAP: dict[str, str] = {"purged": "deleted", "rescope": "rescoped", "scope_changed": "rescoped"}
ACTION_MAP: dict[str, str] = {"purge_content": "purge", "conflict_resolved": "resolve_conflict"}
CLEANED_MAP: dict[str, str] = {"snapshots": "snapshot_text", "cache": "injection_cache"}
KIND_MAP: dict[str, str] = {}

SECRET_TYPES = frozenset({"api_key", "token", "password", "private_key", "connection_string"})
PII_TYPES = frozenset(
    {"email_address", "phone_number", "card_number", "national_id", "postal_address"}
)
FINDING_FAMILY: dict[str, str] = {
    **dict.fromkeys(SECRET_TYPES, "secret"),
    **dict.fromkeys(PII_TYPES, "pii"),
    "bank_account": "pii",  # product extra: satisfies an expected "pii", no scenario member
    "secret": "secret",
    "pii": "pii",
}


def _word(value: object) -> str:
    """The plain lower-case word of an enum member or string."""
    raw = value.value if isinstance(value, enum.Enum) else value
    return str(raw).strip().lower()


def _mapped(table: Mapping[str, str], values: Iterable[object]) -> frozenset[str]:
    return frozenset(table.get(_word(v), _word(v)) for v in values)


def status_of(record: MemoryRecord, now: dt.datetime) -> str:
    """Effective status (README 3.5): stored status, or `expired` once the expiry has passed."""
    word = _word(record.effective_status(now))
    return STATUS_MAP.get(word, word)


def stored_status_of(value: object) -> str:
    """A status as written in a decision (`Decision.to_status`)."""
    word = _word(value)
    return STATUS_MAP.get(word, word)


def kind_of(record: MemoryRecord) -> str:
    """Memory kind in scenario words."""
    return KIND_MAP.get(_word(record.kind), _word(record.kind))


def flags_of(record: MemoryRecord) -> frozenset[str]:
    """Record flags in scenario words (`stale`, `conflict`, `redacted`, `needs_confirmation`)."""
    return _mapped(FLAG_MAP, getattr(record, "flags", ()) or ())


def notes_of(item: object) -> frozenset[str]:
    """Notes on an injected item or search hit (`conflict`, `stale`, `superseded`)."""
    return _mapped(NOTE_MAP, getattr(item, "notes", ()) or ())


def marks_of(item: object) -> frozenset[str]:
    """Replay marks of a replayed item (`deleted`, `edited`, `superseded` ...)."""
    return _mapped(MARK_MAP, getattr(item, "marks", ()) or ())


def action_of(decision: object) -> str:
    """A history entry's action in scenario words."""
    word = _word(getattr(decision, "action", ""))
    return ACTION_MAP.get(word, word)


def cleaned_of(tombstone: object) -> frozenset[str]:
    """Derived assets a tombstone says the deletion cleaned."""
    return _mapped(CLEANED_MAP, getattr(tombstone, "cleaned", ()) or ())


def finding_types_of(event: object) -> frozenset[str]:
    """Finding types of a security event, lower-cased."""
    return frozenset(_word(t) for t in getattr(event, "finding_types", ()) or ())


def finding_satisfies(found: str, expected: str) -> bool:
    """Hierarchy rule (3.6): a family is met by any member; a member only by itself."""
    if expected in ("secret", "pii"):
        return FINDING_FAMILY.get(found) == expected
    return found == expected


def error_kind(exc: BaseException) -> str:
    """Error kind of a product exception (3.6). Subclasses are tested before their bases."""
    for cls, word in (
        (ScopeRequiredError, "scope_required"),
        (InvalidInputError, "invalid_input"),
        (NotFoundError, "not_found"),
        (InvalidStateError, "invalid_state"),
    ):
        if isinstance(exc, cls):
            return word
    return str(getattr(exc, "kind", type(exc).__name__))


def is_product_error(exc: BaseException) -> bool:
    """True for errors the product raises on purpose (its error hierarchy)."""
    return isinstance(exc, MemoryCenterError)


def text_of(value: object) -> str:
    """Every string inside a product value, joined: what the caller could read from it.

    Used for "must not echo" checks on results, security events and regression exports, where
    a secret may hide in any field.
    """
    parts: list[str] = []
    _collect_text(value, parts, depth=0)
    return "\n".join(parts)


def _collect_text(value: object, parts: list[str], depth: int) -> None:
    if depth > 12 or value is None:
        return
    if isinstance(value, enum.Enum):
        parts.append(str(value.value))
    elif isinstance(value, str | int | float | bool | dt.datetime):
        parts.append(str(value))
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _collect_text(getattr(value, f.name), parts, depth + 1)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            parts.append(str(key))
            _collect_text(item, parts, depth + 1)
    elif isinstance(value, Iterable) and not isinstance(value, bytes):
        for item in value:
            _collect_text(item, parts, depth + 1)
    else:
        parts.append(str(value))


def unwrap(value: Any) -> Any:
    """The payload of a `Result` (value + changes), or the value itself."""
    if hasattr(value, "value") and hasattr(value, "changes"):
        return value.value
    return value


class ServiceLacksError(AssertionError):
    """The service has no method for an abstract operation (not implemented yet)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"service lacks {name}")
        self.name = name


# --- the adapter -------------------------------------------------------------------------------

Opener = Callable[[Path, ManualClock], Any]
"""Opens the service for a store directory and clock (a seam for the runner's own self-test)."""


SCENARIO_HOT_PATH_SECONDS = 1.0
"""The scenarios test what degrades, not how fast a loaded CI machine schedules a read: the
product's 0.5 s limit, inside a test process whose earlier tests may still run background
threads, occasionally let a healthy read time out (the first read after a breaker's cool-down
then degraded). 1 s still sits below the injected slow fault (1.5 s), so slowness degrades."""


def open_service(data_dir: Path, clock: ManualClock) -> MemoryService:
    """Open Memory Center's store headless: passphrase-protected, never the OS keyring."""
    return MemoryService.open(
        data_dir,
        passphrase=PASSPHRASE,
        clock=clock,
        prefer_keyring=False,
        hot_path_seconds=SCENARIO_HOT_PATH_SECONDS,
    )


# The service's namespaces (#39), searched in this order for an operation's flat name.
NAMESPACES = (
    "review",
    "memories",
    "events",
    "retrieval",
    "index",
    "policy",
    "keys",
    "team",
    "agents",
    "spool",
)
# Operations whose name changed in their namespace.
RENAMED = {"rotate_key": "keys.rotate"}


class ProductAdapter:
    """One scenario's store: a fresh directory, a fixed passphrase and a manual clock.

    Args:
        data_dir: directory for the store (must not hold another store).
        start: the fixed instant the clock starts at.
    """

    def __init__(
        self, data_dir: Path, start: dt.datetime = START, opener: Opener | None = None
    ) -> None:
        self.data_dir = data_dir
        self.clock = ManualClock(start)
        self._opener = opener or open_service
        self._svc: Any = None

    # lifecycle and test seams

    def open(self) -> None:
        """Open (create on first use) the store with the same passphrase and clock."""
        self._svc = self._opener(self.data_dir, self.clock)

    def close(self) -> None:
        """Close the store; safe to call twice."""
        if self._svc is not None:
            svc, self._svc = self._svc, None
            svc.close()

    def restart(self) -> None:
        """Close the store and every process-local cache, then reopen it (README 4.3)."""
        self.close()
        self.open()

    def now(self) -> dt.datetime:
        """The product's current instant."""
        return self.clock.now()

    def advance(self, delta: dt.timedelta) -> None:
        """Move the product's clock forward."""
        if delta > dt.timedelta(0):
            self.clock.advance(delta)

    def _fn(self, name: str) -> Callable[..., Any]:
        """The service's callable for an operation named by its flat name (`approve`,
        `rotate_key`): the store-level method, else the namespace method of that name."""
        if self._svc is None:
            raise AssertionError("the store is closed")
        space, _, method = RENAMED.get(name, "").partition(".")
        if space:
            return getattr(getattr(self._svc, space), method)  # type: ignore[no-any-return]
        fn = getattr(self._svc, name, None)
        for space in NAMESPACES:
            if fn is not None:
                break
            fn = getattr(getattr(self._svc, space, None), name, None)
        if fn is None:
            raise ServiceLacksError(name)
        return fn  # type: ignore[no-any-return]

    def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        return unwrap(self._fn(name)(*args, **kwargs))

    def rotate_key(self) -> None:
        """Rotate the data encryption key."""
        self._call("rotate_key")

    def set_fault(self, target: str, mode: str) -> None:
        """Switch on a read fault (R17 test seam)."""
        self._call("set_fault", target, mode)

    def clear_fault(self) -> None:
        """Switch the fault off."""
        self._call("clear_fault")

    # inputs

    def append_event(self, step: Mapping[str, Any], refs: Sequence[str], by: str | None) -> Any:
        """Append one event; returns the product's event (with `.id`)."""
        item = NewEvent(
            session=step["session"],
            actor=step["actor"],
            trust=step["trust"],
            scope=step["scope"],  # None is sent on purpose (scope_required)
            text=step["text"],
            kind=step.get("kind", "message"),
            source=step.get("source"),
            refs=tuple(refs),
            by=by,
        )
        return self._call("append_event", item)

    def remember(self, scope: Any, text: str, **kw: Any) -> Any:
        """The explicit remember request; returns a MemoryOutcome."""
        return self._call("remember", scope, text, **kw)

    def suggest(self, scope: Any, text: str, **kw: Any) -> Any:
        """The agent's suggest request; returns a MemoryOutcome."""
        return self._call("suggest", scope, text, **kw)

    def observe(self, scope: Any, text: str, **kw: Any) -> Any:
        """A verified tool observation; returns the observation event."""
        return self._call("observe", scope, text, **kw)

    def extract(self, session: str) -> Any:
        """Run extraction for a session to completion."""
        return self._call("extract", session)

    def pre_compress(self, session: str, event_ids: Sequence[str]) -> Any:
        """on_pre_compress with the events about to leave the context."""
        return self._call("pre_compress", session, list(event_ids))

    def opt_out(self, session: str) -> None:
        """Per-session opt-out (the service creates the session when missing)."""
        self._call("set_session_opt_out", session, True)

    def act(self, action: str, memory_id: str, *args: Any, **kw: Any) -> Any:
        """A user control on one memory (approve, reject, edit, downgrade, widen, disable,
        enable, exclude, quarantine, resolve_conflict, delete); returns the product's value."""
        return self._call(action, memory_id, *args, **kw)

    # reads

    def inject(self, scope: Any, goal: str, budget: int, session: str | None) -> Any:
        """The runtime's inject; returns an InjectResult."""
        return self._call("inject", scope, goal, budget, session=session)

    def search(self, scope: Any, query: str, session: str | None = None) -> list[Any]:
        """The model's search_memory; returns search hits."""
        return list(self._call("search_memory", scope, query, session=session))

    def memory(self, memory_id: str) -> MemoryRecord | None:
        """One record in any status, or None when the product does not know the id."""
        try:
            return self._call("get_memory", memory_id)  # type: ignore[no-any-return]
        except NotFoundError:
            return None

    def all_memories(self) -> list[MemoryRecord]:
        """Every record in every status and scope."""
        return list(self._call("list_memories", MemoryFilter(limit=LISTING_LIMIT)))

    def history(self, memory_id: str) -> list[Any]:
        """Decisions of one memory."""
        return list(self._call("history", memory_id))

    def tombstone(self, memory_id: str) -> Any:
        """The tombstone of a deleted memory."""
        return self._call("tombstone", memory_id)

    def adoption_chain(self, memory_id: str) -> Any:
        """Source events, activation, injections and affected sessions of a memory."""
        return self._call("adoption_chain", memory_id)

    def export_regression(self, memory_id: str) -> Any:
        """A JSON-able regression case for a memory."""
        return self._call("export_regression", memory_id)

    def security_events(self) -> list[Any]:
        """Every security event recorded so far."""
        return list(self._call("security_events"))

    def snapshot(self, snapshot_id: str) -> Any:
        """The snapshot one inject recorded."""
        return self._call("get_snapshot", snapshot_id)

    def replay(self, snapshot_id: str) -> Any:
        """Diagnostic replay of a snapshot."""
        return self._call("replay", snapshot_id)

    def resume(self, session: str, snapshot_id: str | None) -> Any:
        """Live resume through the ResumeGate."""
        return self._call("resume", session, snapshot_id=snapshot_id)

    def verify(self) -> Any:
        """Log verification report (`.ok`)."""
        return self._call("verify")

    def fake_memory_id(self) -> str:
        """A well-formed id of a memory that does not exist (matcher `nonexistent`).

        Shaped like the product's ids (prefix, 12 hex of milliseconds, 12 random hex; the prefix
        copied from a stored memory when there is one) so the product must answer not_found
        rather than invalid_input.
        """
        known = self.all_memories()
        prefix = known[0].id.split("_", 1)[0] if known and "_" in known[0].id else "mem"
        millis = int(self.now().timestamp() * 1000)
        return f"{prefix}_{millis:012x}{secrets.token_hex(6)}"
