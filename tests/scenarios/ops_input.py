"""Handlers of the write-side ops: inputs, user controls and environment (README 4.1 - 4.3)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from tests.scenarios import adapter as product
from tests.scenarios.common import fail, show
from tests.scenarios.text import found_forbidden

if TYPE_CHECKING:
    from tests.scenarios.runner import ScenarioRun

Step = Mapping[str, Any]

# --- inputs (4.1) ------------------------------------------------------------------------------


def op_event(run: ScenarioRun, step: Step) -> None:
    """Append one event; `summarizes` becomes the event's refs (trust follows sources, R11)."""
    run.note_scope(step["scope"])
    refs = [run.event_id(label) for label in step.get("summarizes", [])]
    event = run.product.append_event(step, refs, step.get("by"))
    if "label" in step:
        run.events[step["label"]] = event.id


def _check_echo(outcome: Any, step: Step) -> None:
    """The caller's own result must not echo what `expect.not_contains` lists (secrets)."""
    forbidden = step.get("expect", {}).get("not_contains", [])
    leaked = found_forbidden([product.text_of(outcome)], forbidden)
    if leaked:
        fail(f"the result returned to the caller echoes {show(leaked)}")


def op_remember(run: ScenarioRun, step: Step) -> None:
    """The explicit remember request; the label binds to the stored (or merged) record."""
    run.note_scope(step["scope"])
    outcome = run.product.remember(
        step["scope"],
        step["text"],
        session=step.get("session"),
        kind=step.get("kind"),
        expires_in_days=step.get("expires_in_days"),
        by=run.by_for(step, step["scope"]),
    )
    _check_echo(outcome, step)
    run.bind_memory(step.get("label"), getattr(outcome, "record", None))


def op_suggest(run: ScenarioRun, step: Step) -> None:
    """The agent's suggest request with evidence event references."""
    run.note_scope(step["scope"])
    outcome = run.product.suggest(
        step["scope"],
        step["text"],
        kind=step.get("kind"),
        evidence=tuple(run.event_id(label) for label in step.get("evidence", [])),
        session=step.get("session"),
        by=run.by_for(step, step["scope"]),
    )
    _check_echo(outcome, step)
    run.bind_memory(step.get("label"), getattr(outcome, "record", None))


def op_observe(run: ScenarioRun, step: Step) -> None:
    """A fresh verified observation, optionally contradicting one memory (R10)."""
    run.note_scope(step["scope"])
    contradicts = run.one_id(step["contradicts"]) if "contradicts" in step else None
    event = run.product.observe(
        step["scope"], step["text"], session=step.get("session"), contradicts=contradicts
    )
    if "label" in step:
        run.events[step["label"]] = event.id


def op_extract(run: ScenarioRun, step: Step) -> None:
    """Run extraction for the session to completion."""
    run.product.extract(step["session"])


def op_pre_compress(run: ScenarioRun, step: Step) -> None:
    """on_pre_compress with the events about to leave the context."""
    run.product.pre_compress(step["session"], [run.event_id(e) for e in step["events"]])


# --- user controls (4.2) -----------------------------------------------------------------------


def _act(run: ScenarioRun, step: Step, action: str, *args: Any, **kw: Any) -> None:
    """Apply a control to the one matched memory; the label follows a new revision."""
    matcher = step["keep"] if action == "resolve_conflict" else step["match"]
    memory_id = run.one_id(matcher)
    by = run.by_for_memory(step, memory_id)
    if action == "delete":
        kw["requested_by"] = by
    else:
        kw["by"] = by
    value = run.product.act(action, memory_id, *args, **kw)
    run.follow(memory_id, value)


def _control(action: str, *positional: str, **named: str) -> Callable[[ScenarioRun, Step], None]:
    """A handler passing the named step fields positionally / by keyword to the action."""

    def handler(run: ScenarioRun, step: Step) -> None:
        args = [step[name] for name in positional]
        kw = {key: step.get(name) for key, name in named.items()}
        if "scope" in positional:
            run.note_scope(step["scope"])
        _act(run, step, action, *args, **kw)

    handler.__doc__ = f"User control `{action}` (README 4.2)."
    return handler


def op_delete(run: ScenarioRun, step: Step) -> None:
    """Delete with tombstone; `purge` also redacts the content everywhere (R19)."""
    _act(run, step, "delete", reason=step["reason"], purge=step["purge"])


def op_opt_out(run: ScenarioRun, step: Step) -> None:
    """Per-session opt-out; the service creates a session that does not exist yet."""
    run.product.opt_out(step["session"])


# --- environment (4.3) -------------------------------------------------------------------------


def op_advance_time(run: ScenarioRun, step: Step) -> None:
    """Move the clock by days / minutes, or to one day past a record's expiry."""
    if "days" in step:
        delta = dt.timedelta(days=step["days"])
    elif "minutes" in step:
        delta = dt.timedelta(minutes=step["minutes"])
    else:
        record = run.one_record(step["past_expiry_of"])
        if record.expires_at is None:
            fail(f"{show(step['past_expiry_of'])} has no expires_at to move past")
        delta = record.expires_at + dt.timedelta(days=1) - run.now()
    run.product.advance(delta)


def op_rotate_key(run: ScenarioRun, step: Step) -> None:
    """Rotate the data key; everything must stay readable (checked by later steps)."""
    run.product.rotate_key()


def op_restart(run: ScenarioRun, step: Step) -> None:
    """Close the store and reopen it with the same passphrase and clock."""
    run.product.restart()


def op_fault(run: ScenarioRun, step: Step) -> None:
    """Switch on the read fault seam (R17)."""
    run.product.set_fault(step["target"], step["mode"])


def op_clear_fault(run: ScenarioRun, step: Step) -> None:
    """Switch the fault off."""
    run.product.clear_fault()


HANDLERS: dict[str, Callable[[ScenarioRun, Step], None]] = {
    "event": op_event,
    "remember": op_remember,
    "suggest": op_suggest,
    "observe": op_observe,
    "extract": op_extract,
    "pre_compress": op_pre_compress,
    "approve": _control("approve"),
    "reject": _control("reject", reason="reason"),
    "edit": _control("edit", "new_text"),
    "downgrade": _control("downgrade", "scope"),
    "widen": _control("widen", "scope"),
    "disable": _control("disable"),
    "enable": _control("enable"),
    "exclude": _control("exclude", "session"),
    "quarantine": _control("quarantine", "reason"),
    "resolve_conflict": _control("resolve_conflict", reason="reason"),
    "delete": op_delete,
    "opt_out": op_opt_out,
    "advance_time": op_advance_time,
    "rotate_key": op_rotate_key,
    "restart": op_restart,
    "fault": op_fault,
    "clear_fault": op_clear_fault,
}
