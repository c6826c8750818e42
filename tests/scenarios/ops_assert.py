"""Handlers of the assertion ops (README 4.5)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tests.scenarios import adapter as product
from tests.scenarios.common import fail, item_texts, show
from tests.scenarios.text import found_forbidden, pattern_matches, short

if TYPE_CHECKING:
    from tests.scenarios.runner import ScenarioRun

Step = Mapping[str, Any]
NULLABLE_FIELDS = frozenset({"expires_at", "supersedes"})
MAY_BE_EMPTY = frozenset({"index_refs"})  # empty until derived indexes exist


# --- expect_memory / expect_no_memory ------------------------------------------------------------


def _exposes(record: Any, name: str) -> bool:
    """A record exposes a field when it has it and, except where null is allowed, it is set."""
    if not hasattr(record, name):
        return False
    value = getattr(record, name)
    if name in NULLABLE_FIELDS or name in MAY_BE_EMPTY:
        return True
    if value is None or value == "":
        return False
    return not (hasattr(value, "__len__") and not isinstance(value, str) and len(value) == 0)


def _unmet(run: ScenarioRun, record: Any, step: Step) -> list[str]:
    """The conditions of an expect_memory step this record does not satisfy."""
    status = product.status_of(record, run.now())
    flags = product.flags_of(record)
    checks: list[tuple[str, bool]] = [
        ("status_in", "status_in" not in step or status in step["status_in"]),
        ("flags_any", "flags_any" not in step or bool(flags & set(step["flags_any"]))),
        ("flags_none", not flags & set(step.get("flags_none", []))),
        (
            "has_expiry",
            step.get("has_expiry", record.expires_at is not None)
            == (record.expires_at is not None),
        ),
        ("has_fields", all(_exposes(record, f) for f in step.get("has_fields", []))),
        (
            "source_events_include",
            {run.event_id(e) for e in step.get("source_events_include", [])}
            <= set(record.source_event_ids),
        ),
    ]
    if "supersedes" in step:
        checks.append(("supersedes", record.supersedes in run.ids(step["supersedes"])))
    return [name for name, ok in checks if not ok]


def _describe(run: ScenarioRun, record: Any) -> str:
    flags = sorted(product.flags_of(record))
    return (
        f"[{record.id} {product.status_of(record, run.now())} flags={flags}"
        f" kind={product.kind_of(record)} expires={record.expires_at} "
        f"{short(record.content or '', 70)!r}]"
    )


def op_expect_memory(run: ScenarioRun, step: Step) -> None:
    """At least one (or exactly `count`, or exactly one for `label`) record satisfies all."""
    candidates = run.records(step["match"])
    satisfied = [r for r in candidates if not _unmet(run, r, step)]
    wanted = step.get("count", 1 if "label" in step else None)
    if (wanted is None and satisfied) or len(satisfied) == wanted:
        if "label" in step:
            run.bind_memory(step["label"], satisfied[0])
        return
    details = "; ".join(f"{_describe(run, r)} fails {_unmet(run, r, step)}" for r in candidates)
    expected = "at least one" if wanted is None else f"exactly {wanted}"
    fail(
        f"{expected} record must satisfy {show(_conditions(step))}, {len(satisfied)} do; "
        f"matcher {show(step['match'])} selected {len(candidates)}: {details or 'none'}"
    )


def _conditions(step: Step) -> dict[str, Any]:
    return {k: v for k, v in step.items() if k not in ("op", "match", "note", "label")}


def op_expect_no_memory(run: ScenarioRun, step: Step) -> None:
    """No record matches with an effective status in `status_in` (default: any)."""
    statuses = step.get("status_in")
    now = run.now()
    found = [
        r
        for r in run.records(step["match"])
        if statuses is None or product.status_of(r, now) in statuses
    ]
    if found:
        fail(f"expected no such memory, found {'; '.join(_describe(run, r) for r in found)}")


# --- expect_history ----------------------------------------------------------------------------


def _history(run: ScenarioRun, step: Step) -> list[Any]:
    """Decisions of the memory and of the earlier revisions its label denoted, oldest first."""
    matcher = step["match"]
    ids = run.label_ids(matcher["label"]) if set(matcher) == {"label"} else []
    ids = ids or [run.one_record(matcher).id]
    decisions = [d for memory_id in ids for d in run.product.history(memory_id)]
    return sorted(decisions, key=lambda d: (d.ts, getattr(d, "store_revision", 0)))


def _in_order(seen: Sequence[str], sequence: Iterable[Any]) -> bool:
    position = 0
    for wanted in sequence:
        options = {wanted} if isinstance(wanted, str) else set(wanted)
        while position < len(seen) and seen[position] not in options:
            position += 1
        if position == len(seen):
            return False
        position += 1
    return True


def op_expect_history(run: ScenarioRun, step: Step) -> None:
    """The decision history: ordered statuses, actions, and who / why / which policy (R5)."""
    history = _history(run, step)
    if not history:
        fail("the memory has no history")
    incomplete = [
        product.action_of(d) for d in history if not (d.actor and d.reason and d.policy_version)
    ]
    if incomplete:
        fail(f"history entries without actor, reason or policy version: {incomplete}")
    statuses = [product.stored_status_of(d.to_status) for d in history]
    if not _in_order(statuses, step.get("sequence", [])):
        fail(f"status sequence {statuses} does not contain {show(step['sequence'])} in order")
    actions = {product.action_of(d) for d in history}
    missing = [a for a in step.get("actions_include", []) if a not in actions]
    if missing:
        fail(f"history actions {sorted(actions)} lack {missing}")


# --- expect_snapshot ---------------------------------------------------------------------------


def _complete(snapshot: Any) -> str | None:
    """What a complete snapshot lacks (R18), or None."""
    for name in (
        "id",
        "store_revision",
        "hits",
        "injected",
        "dropped",
        "text",
        "policy_version",
        "index_version",
    ):
        if not hasattr(snapshot, name):
            return f"snapshot lacks {name}"
    for name in ("id", "policy_version", "index_version"):
        if not getattr(snapshot, name):
            return f"snapshot {name} is empty"
    if not isinstance(snapshot.store_revision, int) or snapshot.store_revision < 0:
        return f"snapshot store_revision is {snapshot.store_revision!r}"
    if any(not isinstance(getattr(h, "score", None), int | float) for h in snapshot.hits):
        return "a hit has no ranking score"
    if any(not getattr(d, "reason", "") for d in snapshot.dropped):
        return "a dropped hit has no reason"
    if snapshot.injected and not snapshot.hits:
        return "memories were injected but the hit list is empty"
    if snapshot.injected and not snapshot.text:
        return "memories were injected but the snapshot has no injected text"
    return None


def _explained(snapshot: Any) -> str | None:
    for item in snapshot.injected:
        if not item.scope or not item.why_visible:
            return f"injected item {item.memory_id} lacks its scope or why_visible"
        if any(snapshot.scope.get(k) != v for k, v in item.scope.items()):
            return f"injected item {item.memory_id} scope {dict(item.scope)} is not visible"
    return None


def _snapshot_problems(run: ScenarioRun, snapshot: Any, step: Step) -> Iterable[str | None]:
    injected = {i.memory_id for i in snapshot.injected}
    dropped = {d.memory_id for d in snapshot.dropped if getattr(d, "reason", "")}
    if step.get("complete"):
        yield _complete(snapshot)
    if step.get("items_explained"):
        yield _explained(snapshot)
    for matcher in step.get("injected_include", []):
        yield None if run.ids(matcher) & injected else f"{show(matcher)} was not injected"
    for matcher in step.get("not_injected", []):
        yield f"{show(matcher)} was injected" if run.ids(matcher) & injected else None
    for matcher in step.get("dropped_include", []):
        yield None if run.ids(matcher) & dropped else f"{show(matcher)} is not a dropped hit"
    if step.get("truncated"):
        digest = any(getattr(i, "in_digest", False) for i in snapshot.injected)
        yield None if dropped or digest else "nothing was dropped or digested"
    if "revision_after" in step:
        other = run.product.snapshot(run.inject_call(step["revision_after"]).snapshot_id)
        if not snapshot.store_revision > other.store_revision:
            yield (
                f"store revision {snapshot.store_revision} is not after "
                f"{other.store_revision} of {step['revision_after']}"
            )


def op_expect_snapshot(run: ScenarioRun, step: Step) -> None:
    """Checks on the snapshot an inject recorded (R18, R13, R15, R21)."""
    snapshot = run.product.snapshot(run.inject_call(step["of"]).snapshot_id)
    problems = [p for p in _snapshot_problems(run, snapshot, step) if p]
    if problems:
        fail("; ".join(problems))


# --- tombstone, adoption, security, nowhere, log ----------------------------------------------


def op_expect_tombstone(run: ScenarioRun, step: Step) -> None:
    """The tombstone of a deleted memory (R19, R20)."""
    tomb = run.product.tombstone(run.one_id(step["match"]))
    problems = []
    if "requested_by" in step and tomb.requested_by != step["requested_by"]:
        problems.append(f"requested_by is {tomb.requested_by!r}")
    if "reason_contains" in step and not pattern_matches(
        tomb.reason or "", step["reason_contains"]
    ):
        problems.append(f"reason {tomb.reason!r} lacks {show(step['reason_contains'])}")
    if "purged" in step and bool(tomb.purged) != step["purged"]:
        problems.append(f"purged is {tomb.purged!r}")
    wanted = {run.event_id(e) for e in step.get("source_events_include", [])}
    if not wanted <= set(tomb.source_event_ids):
        problems.append("source_event_ids lack the expected events")
    missing = set(step.get("cleaned_include", [])) - product.cleaned_of(tomb)
    if missing:
        problems.append(f"cleaned {sorted(product.cleaned_of(tomb))} lacks {sorted(missing)}")
    if problems:
        fail("tombstone: " + "; ".join(problems))


def _injection_snapshot_ids(chain: Any) -> set[str]:
    ids = set()
    for entry in chain.injections:
        ids.add(entry[0] if isinstance(entry, tuple) else getattr(entry, "snapshot_id", entry))
    return ids


def op_expect_adoption(run: ScenarioRun, step: Step) -> None:
    """The adoption chain of a memory (R22)."""
    chain = run.product.adoption_chain(run.one_id(step["match"]))
    problems = []
    sources = {e.id for e in chain.source_events}
    if not {run.event_id(e) for e in step.get("source_events_include", [])} <= sources:
        problems.append("source events lack the expected events")
    if "activated" in step and (chain.activation is not None) != step["activated"]:
        problems.append(f"activation is {chain.activation!r}")
    used = _injection_snapshot_ids(chain)
    problems += [
        f"not injected in {x}"
        for x in step.get("injected_in", [])
        if run.inject_call(x).snapshot_id not in used
    ]
    problems += [
        f"injected in {x}"
        for x in step.get("not_injected_in", [])
        if run.inject_call(x).snapshot_id in used
    ]
    sessions = set(chain.sessions)
    problems += [
        f"sessions lack {s}" for s in step.get("sessions_include", []) if s not in sessions
    ]
    problems += [f"sessions include {s}" for s in step.get("sessions_exclude", []) if s in sessions]
    if problems:
        fail(f"adoption chain: {'; '.join(problems)} (sessions {sorted(sessions)})")


def op_expect_security_event(run: ScenarioRun, step: Step) -> None:
    """A finding of one of the types was recorded since the last security expectation (R8)."""
    window = run.security_window()
    found = set().union(*(product.finding_types_of(e) for e in window)) if window else set()
    wanted = step["finding_types_any"]
    if not any(product.finding_satisfies(f, w) for f in found for w in wanted):
        fail(f"security events since the last check have types {sorted(found)}, wanted {wanted}")
    leaked = found_forbidden([product.text_of(e) for e in window], step.get("not_contains", []))
    if leaked:
        fail(f"a security event copies {show(leaked)}")


def op_expect_no_security_event(run: ScenarioRun, step: Step) -> None:
    """No security event since the last security expectation (false-positive check)."""
    window = run.security_window()
    if window:
        types = sorted(set().union(*(product.finding_types_of(e) for e in window)))
        fail(f"{len(window)} security event(s) recorded, finding types {types}")


def _everywhere(run: ScenarioRun, texts: Sequence[str]) -> Iterable[tuple[str, str]]:
    """(where, text) of every place README 4.5 expect_nowhere names."""
    labelled = [r for ids in run.memories.values() for i in ids if (r := run.product.memory(i))]
    for record in [*run.product.all_memories(), *labelled]:
        yield f"memory {record.id} ({record.status})", record.content or ""
    for snapshot_id in run.snapshot_ids:
        snap = run.product.snapshot(snapshot_id)
        yield f"snapshot {snapshot_id}", "\n".join([snap.text, *item_texts(snap.injected)])
    for scope in run.scopes:
        for text in texts:
            hits = run.product.search(scope, text)
            yield f"search {show(scope)} for {text!r}", "\n".join(item_texts(hits))
    for event in run.product.security_events():
        yield f"security event {event.event_id}", product.text_of(event)


def op_expect_nowhere(run: ScenarioRun, step: Step) -> None:
    """None of the strings is retrievable anywhere (secrets, purged content)."""
    for where, text in _everywhere(run, step["texts"]):
        leaked = found_forbidden([text], step["texts"])
        if leaked:
            fail(f"{show(leaked)} found in {where}: {short(text)!r}")


def op_expect_error(run: ScenarioRun, step: Step) -> None:
    """The previous step failed with the kind and changed no memory."""
    pending, run.pending = run.pending, None
    if pending is None:
        fail("expect_error must follow a step that was run in error mode")
    if pending.error is None:
        fail(f"the previous step succeeded; expected an error of kind {show(step['kind'])}")
    kinds = [step["kind"]] if isinstance(step["kind"], str) else step["kind"]
    if not product.is_product_error(pending.error):
        fail(f"expected {kinds}, got unexpected {type(pending.error).__name__}: {pending.error}")
    kind = product.error_kind(pending.error)
    if kind not in kinds:
        fail(f"expected an error of kind {kinds}, got {kind}: {pending.error}")
    after = run.fingerprint()
    if after != pending.before:
        changed = sorted({t[0] for t in set(after) ^ set(pending.before)})
        fail(f"the failed step changed the store: memories {changed}")


def op_verify_log(run: ScenarioRun, step: Step) -> None:
    """The hash chain verifies (R3)."""
    report = run.product.verify()
    if not report.ok:
        fail(f"log verification failed: {getattr(report, 'first_failure', None)}")


HANDLERS: dict[str, Callable[[ScenarioRun, Step], None]] = {
    "expect_memory": op_expect_memory,
    "expect_no_memory": op_expect_no_memory,
    "expect_history": op_expect_history,
    "expect_snapshot": op_expect_snapshot,
    "expect_tombstone": op_expect_tombstone,
    "expect_adoption": op_expect_adoption,
    "expect_security_event": op_expect_security_event,
    "expect_no_security_event": op_expect_no_security_event,
    "expect_nowhere": op_expect_nowhere,
    "expect_error": op_expect_error,
    "verify_log": op_verify_log,
}
