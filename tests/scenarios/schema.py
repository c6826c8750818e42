"""Structural validation of scenario files (README sections 1, 4 and 6).

A scenario with an unknown op or field is a broken scenario, not a product failure: the runner
refuses it before touching the store, naming the step and the offending field, so a typo in a
scenario can never turn into a silently skipped check.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

TOP_REQUIRED = frozenset({"id", "title", "requirements", "lang", "steps"})
TOP_OPTIONAL = frozenset({"domain", "description"})

_ACTION_FIELDS = ("match",)

# op -> (required fields, optional fields); `op` and `note` are allowed everywhere.
STEP_FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "event": (
        frozenset({"session", "actor", "trust", "scope", "text"}),
        frozenset({"kind", "source", "summarizes", "by", "label"}),
    ),
    "remember": (
        frozenset({"scope", "text"}),
        frozenset({"session", "kind", "expires_in_days", "by", "label", "expect"}),
    ),
    "suggest": (
        frozenset({"scope", "text"}),
        frozenset({"kind", "evidence", "session", "by", "label", "expect"}),
    ),
    "observe": (frozenset({"scope", "text"}), frozenset({"session", "contradicts", "label"})),
    "extract": (frozenset({"session"}), frozenset()),
    "pre_compress": (frozenset({"session", "events"}), frozenset()),
    "approve": (frozenset({"match"}), frozenset({"by"})),
    "reject": (frozenset({"match"}), frozenset({"reason", "by"})),
    "edit": (frozenset({"match", "new_text"}), frozenset({"by"})),
    "downgrade": (frozenset({"match", "scope"}), frozenset({"by"})),
    "widen": (frozenset({"match", "scope"}), frozenset({"by"})),
    "disable": (frozenset({"match"}), frozenset({"by"})),
    "enable": (frozenset({"match"}), frozenset({"by"})),
    "exclude": (frozenset({"match", "session"}), frozenset({"by"})),
    "quarantine": (frozenset({"match", "reason"}), frozenset({"by"})),
    "resolve_conflict": (frozenset({"keep"}), frozenset({"reason", "by"})),
    "delete": (frozenset({"match", "purge", "reason"}), frozenset({"by"})),
    "opt_out": (frozenset({"session"}), frozenset({"by"})),
    "advance_time": (frozenset(), frozenset({"days", "minutes", "past_expiry_of"})),
    "rotate_key": (frozenset(), frozenset()),
    "restart": (frozenset(), frozenset()),
    "fault": (frozenset({"target", "mode"}), frozenset()),
    "clear_fault": (frozenset(), frozenset()),
    "inject": (
        frozenset({"scope", "goal", "budget_tokens"}),
        frozenset({"session", "label", "expect"}),
    ),
    "search": (frozenset({"scope", "query"}), frozenset({"session", "expect"})),
    "replay": (frozenset({"snapshot_of", "expect"}), frozenset()),
    "resume": (frozenset({"session", "expect"}), frozenset({"snapshot_of"})),
    "export_regression": (frozenset({"match"}), frozenset({"expect"})),
    "expect_memory": (
        frozenset({"match"}),
        frozenset(
            {
                "status_in",
                "flags_any",
                "flags_none",
                "has_expiry",
                "has_fields",
                "source_events_include",
                "supersedes",
                "count",
                "label",
            }
        ),
    ),
    "expect_no_memory": (frozenset({"match"}), frozenset({"status_in"})),
    "expect_history": (frozenset({"match"}), frozenset({"sequence", "actions_include"})),
    "expect_snapshot": (
        frozenset({"of"}),
        frozenset(
            {
                "complete",
                "injected_include",
                "not_injected",
                "dropped_include",
                "truncated",
                "revision_after",
                "items_explained",
            }
        ),
    ),
    "expect_tombstone": (
        frozenset({"match"}),
        frozenset(
            {
                "requested_by",
                "reason_contains",
                "purged",
                "source_events_include",
                "cleaned_include",
            }
        ),
    ),
    "expect_adoption": (
        frozenset({"match"}),
        frozenset(
            {
                "source_events_include",
                "activated",
                "injected_in",
                "not_injected_in",
                "sessions_include",
                "sessions_exclude",
            }
        ),
    ),
    "expect_security_event": (frozenset({"finding_types_any"}), frozenset({"not_contains"})),
    "expect_no_security_event": (frozenset(), frozenset()),
    "expect_nowhere": (frozenset({"texts"}), frozenset()),
    "expect_error": (frozenset({"kind"}), frozenset()),
    "verify_log": (frozenset(), frozenset()),
}

EXPECT_FIELDS: dict[str, frozenset[str]] = {
    "remember": frozenset({"not_contains"}),
    "suggest": frozenset({"not_contains"}),
    "inject": frozenset(
        {"contains", "not_contains", "max_tokens", "annotated", "empty", "degraded"}
    ),
    "search": frozenset({"contains", "not_contains", "top_contains", "annotated", "empty"}),
    "replay": frozenset({"contains", "not_contains", "marked"}),
    "resume": frozenset({"contains", "not_contains", "removed"}),
    "export_regression": frozenset({"references_injects", "not_contains"}),
}

MATCHER_FIELDS = frozenset({"label", "contains", "from_event", "scope", "kind_in", "nonexistent"})
MATCHER_ANCHORS = frozenset({"label", "contains", "from_event", "nonexistent"})
SINGLE_MATCHERS = ("match", "keep", "contradicts", "past_expiry_of", "supersedes")
LIST_MATCHERS = ("injected_include", "not_injected", "dropped_include")
ANNOTATED_FIELDS = frozenset({"match", "note_in", "required"})
MARKED_FIELDS = frozenset({"match", "mark_in"})
REQ_ID = re.compile(r"^R([1-9]|[12][0-9]|30)$")


class ScenarioFormatError(AssertionError):
    """The scenario file itself is malformed (unknown op or field, missing field)."""


def validate(scenario: Mapping[str, Any], file_stem: str | None = None) -> None:
    """Check the structure of a whole scenario; raise ScenarioFormatError on the first problem."""
    if not isinstance(scenario, Mapping):
        raise ScenarioFormatError("a scenario must be a JSON object")
    sid = scenario.get("id", "?")
    _fields(scenario, TOP_REQUIRED, TOP_OPTIONAL, f"{sid}: scenario")
    if file_stem is not None and sid != file_stem:
        raise ScenarioFormatError(f"{sid}: id differs from the file name {file_stem!r}")
    bad = [r for r in scenario["requirements"] if not REQ_ID.match(str(r))]
    if bad:
        raise ScenarioFormatError(f"{sid}: unknown requirement ids {bad}")
    steps = scenario["steps"]
    if not isinstance(steps, list) or not steps:
        raise ScenarioFormatError(f"{sid}: steps must be a non-empty list")
    for index, step in enumerate(steps, start=1):
        _step(step, f"{sid}: step {index}")


def _step(step: Any, where: str) -> None:
    if not isinstance(step, Mapping) or "op" not in step:
        raise ScenarioFormatError(f"{where}: a step must be an object with an 'op'")
    op = step["op"]
    if op not in STEP_FIELDS:
        raise ScenarioFormatError(f"{where}: unknown op {op!r}")
    required, optional = STEP_FIELDS[op]
    where = f"{where} ({op})"
    _fields(step, required | {"op"}, optional | {"note"}, where)
    if op == "advance_time" and len(set(step) & {"days", "minutes", "past_expiry_of"}) != 1:
        raise ScenarioFormatError(f"{where}: needs exactly one of days, minutes, past_expiry_of")
    for name in SINGLE_MATCHERS:
        if name in step:
            _matcher(step[name], f"{where} {name}")
    for name in LIST_MATCHERS:
        for item in _as_list(step.get(name, []), f"{where} {name}"):
            _matcher(item, f"{where} {name}")
    if "expect" in step:
        _expect(op, step["expect"], where)


def _expect(op: str, expect: Any, where: str) -> None:
    if not isinstance(expect, Mapping):
        raise ScenarioFormatError(f"{where}: expect must be an object")
    _fields(expect, frozenset(), EXPECT_FIELDS[op], f"{where} expect")
    for item in _as_list(expect.get("annotated", []), f"{where} annotated"):
        _fields(item, frozenset({"match", "note_in"}), ANNOTATED_FIELDS, f"{where} annotated")
        _matcher(item["match"], f"{where} annotated")
    for item in _as_list(expect.get("marked", []), f"{where} marked"):
        _fields(item, MARKED_FIELDS, MARKED_FIELDS, f"{where} marked")
        _matcher(item["match"], f"{where} marked")
    for item in _as_list(expect.get("removed", []), f"{where} removed"):
        _matcher(item, f"{where} removed")


def _matcher(matcher: Any, where: str) -> None:
    if not isinstance(matcher, Mapping):
        raise ScenarioFormatError(f"{where}: a matcher must be an object")
    _fields(matcher, frozenset(), MATCHER_FIELDS, f"{where} matcher")
    if not MATCHER_ANCHORS & set(matcher):
        raise ScenarioFormatError(
            f"{where}: matcher needs label, contains, from_event or nonexistent"
        )


def _fields(obj: Any, required: Iterable[str], allowed: Iterable[str], where: str) -> None:
    if not isinstance(obj, Mapping):
        raise ScenarioFormatError(f"{where}: must be an object")
    allowed_set = set(required) | set(allowed)
    unknown = sorted(set(obj) - allowed_set)
    if unknown:
        raise ScenarioFormatError(f"{where}: unknown field(s) {unknown}")
    missing = sorted(set(required) - set(obj))
    if missing:
        raise ScenarioFormatError(f"{where}: missing field(s) {missing}")


def _as_list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise ScenarioFormatError(f"{where}: must be a list")
    return value
