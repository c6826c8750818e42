"""Handlers of the read ops: inject, search, replay, resume, export (README 4.4).

Besides each step's own `expect`, these enforce the rules that hold on every call: the budget
guard on every inject, and "only visible, effectively active memories" on inject and search.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tests.scenarios import adapter as product
from tests.scenarios.common import (
    check_annotated,
    check_text,
    fail,
    item_texts,
    require,
    show,
    within_hot_path,
)
from tests.scenarios.runner import InjectCall
from tests.scenarios.text import found_forbidden, pattern_matches, short

if TYPE_CHECKING:
    from tests.scenarios.runner import ScenarioRun

Step = Mapping[str, Any]


# --- inject ------------------------------------------------------------------------------------


def _check_budget(result: Any, budget: int, max_tokens: int | None) -> None:
    """Reported tokens within the budget (and max_tokens); at most 4 characters per token."""
    limit = min(budget, max_tokens) if max_tokens is not None else budget
    tokens = require(result, "tokens", "the inject result")
    text = require(result, "text", "the inject result")
    if tokens is None or tokens > limit:
        fail(f"injected {tokens} tokens, limit is {limit}")
    if len(text) > 4 * limit:
        fail(f"injected text has {len(text)} characters, more than 4 x {limit}")


def _check_admissible(
    run: ScenarioRun,
    items: Sequence[Any],
    scope: Mapping[str, str],
    what: str,
    allow_superseded: bool = False,
) -> None:
    """Every item's memory is visible to the request scope and effectively active (3.1, 3.5)."""
    now = run.now()
    for item in items:
        record = run.product.memory(item.memory_id)
        if record is None:
            fail(f"{what} item {item.memory_id} is not a known memory")
        if any(scope.get(k) != v for k, v in record.scope.items()):
            fail(
                f"{what} returned {short(record.content, 60)!r} of scope {dict(record.scope)}, "
                f"not visible to {dict(scope)}"
            )
        status = product.status_of(record, now)
        superseded_ok = allow_superseded and status == "superseded"
        if status != "active" and not (superseded_ok and "superseded" in product.notes_of(item)):
            fail(
                f"{what} returned {short(record.content, 60)!r} whose effective status is "
                f"{status} (notes {sorted(product.notes_of(item))})"
            )


def _check_degraded(run: ScenarioRun, result: Any) -> None:
    """Degraded: the call returned normally and the snapshot records the degradation (R17)."""
    if not getattr(result, "degraded", False):
        fail("the inject did not report degraded memory")
    snapshot = run.product.snapshot(result.snapshot_id)
    if not getattr(snapshot, "degraded", False):
        fail("the snapshot of the degraded inject does not record degraded_memory_unavailable")


def op_inject(run: ScenarioRun, step: Step) -> None:
    """The runtime's per-turn injection and its snapshot (R15, R16, R18)."""
    scope, expect = step["scope"], step.get("expect", {})
    run.note_scope(scope)
    result = within_hot_path(
        "inject",
        lambda: run.product.inject(scope, step["goal"], step["budget_tokens"], step.get("session")),
    )
    _check_budget(result, step["budget_tokens"], expect.get("max_tokens"))
    items = tuple(require(result, "items", "the inject result"))
    call = InjectCall(result.snapshot_id, step.get("session"), result)
    run.snapshot_ids.append(result.snapshot_id)
    if "label" in step:
        run.injects[step["label"]] = call
    if step.get("session") is not None:
        run.latest_inject[step["session"]] = call
    _check_admissible(run, items, scope, "inject")
    check_text(result.text, item_texts(items), expect, "injected text")
    if expect.get("empty") and items:
        fail(f"expected nothing injected, got {len(items)} item(s): {short(result.text)!r}")
    if expect.get("degraded"):
        _check_degraded(run, result)
    check_annotated(run.ids, items, expect.get("annotated", []), "injected")


# --- search ------------------------------------------------------------------------------------


def op_search(run: ScenarioRun, step: Step) -> None:
    """The model's search_memory (R16, R13)."""
    scope, expect = step["scope"], step.get("expect", {})
    run.note_scope(scope)
    hits = within_hot_path(
        "search", lambda: run.product.search(scope, step["query"], step.get("session"))
    )
    _check_admissible(run, hits, scope, "search", allow_superseded=True)
    contents = [h.content or "" for h in hits]
    for pattern in expect.get("contains", []):
        if not any(pattern_matches(c, pattern) for c in contents):
            fail(f"no search result matches {show(pattern)}; results: {show(contents)}")
    leaked = found_forbidden(item_texts(hits), expect.get("not_contains", []))
    if leaked:
        fail(f"search results contain forbidden {show(leaked)}")
    top = expect.get("top_contains")
    if top is not None and (not contents or not pattern_matches(contents[0], top)):
        fail(f"the first search result does not match {show(top)}; results: {show(contents)}")
    if expect.get("empty") and hits:
        fail(f"expected no search results, got {show(contents)}")
    check_annotated(run.ids, hits, expect.get("annotated", []), "search")


# --- replay and resume -------------------------------------------------------------------------


def op_replay(run: ScenarioRun, step: Step) -> None:
    """Diagnostic replay: memory as it was at the call, with marks for what changed (R21)."""
    expect = step["expect"]
    replay = run.product.replay(run.inject_call(step["snapshot_of"]).snapshot_id)
    items = tuple(require(replay, "items", "the replay"))
    check_text(require(replay, "text", "the replay"), item_texts(items), expect, "replayed text")
    for spec in expect.get("marked", []):
        ids = run.ids(spec["match"])
        present = [i for i in items if i.memory_id in ids]
        if not present:
            fail(f"{show(spec['match'])} is not among the replayed items")
        marks = set().union(*(product.marks_of(i) for i in present))
        if not marks & set(spec["mark_in"]):
            fail(
                f"{show(spec['match'])} is marked {sorted(marks)}, expected one of "
                f"{spec['mark_in']}"
            )


def op_resume(run: ScenarioRun, step: Step) -> None:
    """Live resume through the ResumeGate: removed items are reported and never re-injected."""
    if "snapshot_of" in step:
        call: InjectCall | None = run.inject_call(step["snapshot_of"])
    else:
        call = run.latest_inject.get(step["session"])
    if call is None:
        fail(f"no earlier inject in session {step['session']!r} to resume")
    result = run.product.resume(step["session"], call.snapshot_id)
    items = tuple(require(result, "items", "the resume result"))
    removed = {d.memory_id for d in require(result, "removed", "the resume result")}
    check_text(result.text, item_texts(items), step["expect"], "resumed text")
    again = removed & {i.memory_id for i in items}
    if again:
        fail(f"the gate re-injects removed memories {sorted(again)}")
    for matcher in step["expect"].get("removed", []):
        if not run.ids(matcher) & removed:
            fail(f"{show(matcher)} is not reported as removed by the gate")


# --- regression export -------------------------------------------------------------------------


def op_export_regression(run: ScenarioRun, step: Step) -> None:
    """A regression case for a memory: JSON-able, referencing the calls it names (R22)."""
    data = run.product.export_regression(run.one_id(step["match"]))
    try:
        dumped = json.dumps(data, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        fail(f"the regression export is not JSON-serialisable: {exc}")
    expect = step.get("expect", {})
    for label in expect.get("references_injects", []):
        if run.inject_call(label).snapshot_id not in dumped:
            fail(f"the regression export does not reference the snapshot of {label}")
    leaked = found_forbidden([dumped], expect.get("not_contains", []))
    if leaked:
        fail(f"the regression export contains forbidden {show(leaked)}")


HANDLERS: dict[str, Callable[[ScenarioRun, Step], None]] = {
    "inject": op_inject,
    "search": op_search,
    "replay": op_replay,
    "resume": op_resume,
    "export_regression": op_export_regression,
}
