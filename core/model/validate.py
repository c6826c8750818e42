"""Input validation at the service boundary. Each failure names the field; nothing is written."""

from __future__ import annotations

import datetime as dt
import json
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from core.errors import InvalidInputError
from core.model import limits
from core.model.enums import (
    ENGINE_EVENT_KINDS,
    Actor,
    EventKind,
    EventSource,
    MemoryKind,
    MemoryStatus,
    TrustLevel,
)
from core.model.jsonsafe import check_string, check_tree, has_control, visible_part
from core.model.memory import MemoryFilter
from core.model.records import NewEvent
from core.model.scope import Scope
from core.model.sessions import INTERNAL_SESSION_PREFIX, is_internal_session

E = TypeVar("E", bound=StrEnum)

OUTSIDE_SOURCES = frozenset(
    {EventSource.WEB_PAGE, EventSource.SEARCH_RESULT, EventSource.EMAIL, EventSource.ISSUE}
)


@dataclass(frozen=True)
class ValidEvent:
    """An event that passed validation, ready to append."""

    session: str
    actor: Actor
    trust: TrustLevel
    scope: Scope
    text: str
    kind: EventKind
    source: EventSource | None
    data: Mapping[str, Any]
    refs: tuple[str, ...]
    by: str | None


def enum_value(cls: type[E], value: object, field: str) -> E:
    """Coerce `value` to a member of `cls`, or name the field and the allowed values."""
    if isinstance(value, cls):
        return value
    if isinstance(value, str):
        try:
            return cls(value.strip().lower())
        except ValueError:
            pass
    allowed = ", ".join(m.value for m in cls)
    raise InvalidInputError(field, f"unknown value {value!r}; allowed: {allowed}")


def text(value: object, field: str, max_len: int) -> str:
    """A non-blank string of at most `max_len` characters (NFC-normalised, ends stripped)."""
    if not isinstance(value, str):
        raise InvalidInputError(field, "must be a string")
    check_string(value, field)
    cleaned = unicodedata.normalize("NFC", value).strip()
    if not cleaned:
        raise InvalidInputError(field, "must not be empty or blank")
    if len(cleaned) > max_len:
        raise InvalidInputError(field, f"is {len(cleaned)} characters; the limit is {max_len}")
    if "\x00" in cleaned:
        raise InvalidInputError(field, "contains a NUL character")
    if not visible_part(cleaned):
        raise InvalidInputError(
            field, "has no visible text once control and invisible characters are removed"
        )
    return cleaned


def said_at(value: object, now: dt.datetime, field: str = "said_at") -> dt.datetime | None:
    """When something was said or observed: an aware datetime or ISO-8601 text, not in the future.

    It becomes the memory's own time (`valid_from`), kept out of its text, so an agent that
    imports history does not have to write dates into what it remembers.
    """
    if value is None:
        return None
    moment = value
    if isinstance(value, str):
        try:
            moment = dt.datetime.fromisoformat(value.strip())
        except ValueError:
            raise InvalidInputError(field, "must be an ISO-8601 date and time") from None
    if not isinstance(moment, dt.datetime):
        raise InvalidInputError(field, "must be a date and time")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    try:
        if moment > now + dt.timedelta(minutes=5):
            raise InvalidInputError(field, "lies in the future")
        return moment.astimezone(dt.UTC)
    except OverflowError:  # "0001-01-01T00:00:00+14:00" lies before the first UTC instant
        raise InvalidInputError(field, "lies before the year 1 in UTC") from None


def listed(value: object, field: str) -> list[object]:
    """A list of ids as given: a single string is refused, not read letter by letter (a
    `refs="ev_1"` once entered the append-only log as the references "e", "v", "_", "1")."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise InvalidInputError(field, f"must be a list of ids, not a {type(value).__name__}")
    return list(value)


def identifier(value: object, field: str, max_len: int = limits.MAX_SESSION_ID) -> str:
    """A name such as a session id: non-blank, single line, no control characters."""
    cleaned = text(value, field, max_len)
    if has_control(cleaned):
        raise InvalidInputError(field, "must be one line without control characters")
    return cleaned


def json_data(value: Mapping[str, Any] | None, field: str) -> dict[str, Any]:
    """A JSON-serialisable mapping of bounded size."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInputError(field, "must be a JSON object")
    # Depth and Unicode first: json.dumps recurses and would fail with a traceback.
    check_tree(dict(value), field)
    try:
        encoded = json.dumps(dict(value), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(field, f"is not JSON-serialisable: {exc}") from None
    if len(encoded.encode()) > limits.MAX_DATA_BYTES:
        raise InvalidInputError(field, f"is larger than {limits.MAX_DATA_BYTES} bytes")
    return dict(json.loads(encoded))


def new_event(item: NewEvent, field: str = "event") -> ValidEvent:
    """Validate a `NewEvent`.

    Raises:
        InvalidInputError: naming the first bad field (e.g. `event.trust`).
    """
    refs = tuple(identifier(r, f"{field}.refs", 64) for r in listed(item.refs, f"{field}.refs"))
    if len(refs) > limits.MAX_REFS:
        raise InvalidInputError(f"{field}.refs", f"more than {limits.MAX_REFS} references")
    source = (
        None if item.source is None else enum_value(EventSource, item.source, f"{field}.source")
    )
    trust = enum_value(TrustLevel, item.trust, f"{field}.trust")
    data = {**json_data(item.data, f"{field}.data"), **_when_and_who(item, field)}
    if source in OUTSIDE_SOURCES and trust != TrustLevel.UNTRUSTED:
        # Content from the web, e-mail or an issue tracker is untrusted whoever relays it
        # (R2, R11); the label the caller gave is kept for the audit trail.
        data = {**data, "claimed_trust": trust.value}
        trust = TrustLevel.UNTRUSTED
    kind, session = public_kind_and_session(item, field)
    return ValidEvent(
        session=session,
        actor=enum_value(Actor, item.actor, f"{field}.actor"),
        trust=trust,
        scope=Scope.required(
            item.scope if not isinstance(item.scope, Scope) else dict(item.scope),
            field=f"{field}.scope",
        ),
        text=text(item.text, f"{field}.text", limits.MAX_EVENT_TEXT),
        kind=kind,
        source=source,
        data=data,
        refs=refs,
        by=None if item.by is None else identifier(item.by, f"{field}.by"),
    )


def public_kind_and_session(item: NewEvent, field: str) -> tuple[EventKind, str]:
    """The kind and session of an event from outside the engine: never one the engine
    alone writes. `new_event` is the one gate of every public append (CLI `event add`, MCP
    `record_event`, the SDK, hooks, importers, capture, the spool's replay); the engine's
    own events are built as `ValidEvent`s and never pass here.

    Raises:
        InvalidInputError: an engine-only kind, or one of Memory Center's own sessions.
    """
    kind = enum_value(EventKind, item.kind, f"{field}.kind")
    if kind in ENGINE_EVENT_KINDS:
        raise InvalidInputError(
            f"{field}.kind",
            f"{kind.value} events are written by Memory Center itself and cannot be added",
        )
    return kind, public_session(item.session, f"{field}.session")


def public_session(value: object, field: str = "session") -> str:
    """A session a caller may log events in: any but Memory Center's own.

    Raises:
        InvalidInputError: not a session id, or one of the `memory-center:` sessions.
    """
    session = identifier(value, field)
    if is_internal_session(session):
        raise InvalidInputError(
            field,
            f"sessions named {INTERNAL_SESSION_PREFIX}... are Memory Center's own and "
            "cannot be written to",
        )
    return session


def _when_and_who(item: NewEvent, field: str) -> dict[str, str]:
    """The event's own time and speaker, validated, as data entries (absent when not given)."""
    out: dict[str, str] = {}
    now = dt.datetime.now(dt.UTC)
    when = said_at(item.said_at, now, f"{field}.said_at")
    if when is not None:
        out["said_at"] = when.isoformat()
    who = speaker(item.speaker, f"{field}.speaker")
    if who is not None:
        out["speaker"] = who
    return out


def speaker(value: object, field: str = "speaker") -> str | None:
    """Who said a memory or event (one line, at most `MAX_SPEAKER` characters), or None."""
    return None if value is None else identifier(value, field, limits.MAX_SPEAKER)


def event_speaker(data: Mapping[str, Any]) -> str | None:
    """The speaker an event was recorded with (`NewEvent.speaker`), if any."""
    value = data.get("speaker")
    return value if isinstance(value, str) and value.strip() else None


def event_said_at(data: Mapping[str, Any]) -> dt.datetime | None:
    """The own time an event was recorded with (`NewEvent.said_at`), if any."""
    value = data.get("said_at")
    if not isinstance(value, str):
        return None
    try:
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


EFFECTIVE_STATUSES = (*(m.value for m in MemoryStatus), "expired")


# The largest integer the databases store (SQLite INTEGER, PostgreSQL BIGINT): a larger
# position, offset or revision ended in OverflowError deep in the driver.
MAX_WHOLE = 2**63 - 1


def whole_number(value: object, field: str, low: int = 0) -> int:
    """A whole number from `low` to the largest the store can compare against.

    Raises:
        InvalidInputError: not an integer (a bool is not one), or out of range.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInputError(field, "must be a whole number")
    if not low <= value <= MAX_WHOLE:
        raise InvalidInputError(field, f"must be a whole number from {low} to {MAX_WHOLE}")
    return value


def memory_filter(flt: MemoryFilter) -> None:
    """Refuse filter values outside their vocabulary: a typo must not read as "no memories".

    Raises:
        InvalidInputError: naming the filter field and the allowed values.
    """
    vocabularies: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
        ("statuses", flt.statuses, tuple(m.value for m in MemoryStatus)),
        ("kinds", flt.kinds, tuple(m.value for m in MemoryKind)),
        ("source_trust", flt.source_trust, tuple(m.value for m in TrustLevel)),
        ("effective_statuses", flt.effective_statuses, EFFECTIVE_STATUSES),
    )
    for name, given, allowed in vocabularies:
        unknown = [v for v in given if v not in allowed]
        if unknown:
            raise InvalidInputError(
                f"filter.{name}", f"unknown value {unknown[0]!r}; allowed: {', '.join(allowed)}"
            )
    whole_number(flt.limit, "filter.limit")
    whole_number(flt.offset, "filter.offset")
    if flt.text is not None:
        check_string(flt.text, "filter.text")
